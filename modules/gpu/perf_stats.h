// What the performance model counts, per kernel and per sampling window of N
// SM cycles: issue slots (W0 stalls by reason, W1..W32 by active lanes), warp
// instructions per SM and unit, cache hits and misses, NoC flits, DRAM bursts,
// activates and busy time per bank.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "gpu/arch_config.h"
#include "gpu/sm_clock.h"

namespace cnuas::gpu {

// Why a warp scheduler issued nothing in a cycle.
enum class Stall : std::uint8_t { DataHazard, Structural, Memory, Barrier, Idle, kCount };
constexpr std::size_t kStalls = static_cast<std::size_t>(Stall::kCount);
const char* stall_name(Stall s);

struct Counters {
  std::vector<std::uint64_t> sm_instructions;   // warp instructions per SM
  std::vector<std::uint64_t> sm_active_cycles;  // cycles with resident warps, per SM
  std::array<std::uint64_t, 33> issue{};  // W1..W32 scheduler cycles by active lanes; [0] unused
  std::array<std::uint64_t, kStalls> stalls{};  // scheduler cycles without an issue, by reason
  std::array<std::uint64_t, kUnits> unit_instructions{};
  std::uint64_t thread_instructions = 0;
  std::uint64_t tensor_flops = 0;            // of mma.sync, wmma.mma and wgmma.mma_async
  std::uint64_t l1_hits = 0, l1_misses = 0;  // sectors
  std::uint64_t shared_wavefronts = 0, shared_accesses = 0;
  std::uint64_t l2_hits = 0, l2_misses = 0;  // sectors
  std::uint64_t noc_flits = 0;
  std::uint64_t noc_busy_ps = 0;                  // port occupancy summed over ports
  std::uint64_t dram_reads = 0, dram_writes = 0;  // bursts
  std::uint64_t dram_activates = 0, dram_row_hits = 0;
  std::vector<std::uint64_t> bank_data_ps;    // data bus time of each bank's bursts
  std::vector<std::uint64_t> bank_active_ps;  // time each bank had requests waiting or in service
  std::vector<std::uint64_t> channel_active_ps;  // time each channel had requests outstanding

  void resize(std::uint32_t sms, std::uint32_t channels, std::uint32_t banks);
  void add(const Counters& o);
};

class PerfRecorder {
 public:
  // `sample_cycles` 0: automatic. Windows start kAutoFirstCycles long and, while
  // a kernel runs, adjacent pairs merge (doubling the interval) whenever there
  // are more than kAutoMaxWindows: a kernel longer than kAutoFirstCycles x
  // kAutoMaxWindows cycles ends with 257 to 512 windows of 8 x 2^k cycles.
  PerfRecorder(const ArchConfig& arch, std::uint64_t sample_cycles);
  static constexpr std::uint64_t kAutoFirstCycles = 8;
  static constexpr std::size_t kAutoMaxWindows = 512;

  // Starts a kernel at SM cycle `base`: counters and windows start empty.
  void reset(std::uint64_t base);

  Counters& total() { return total_; }
  const Counters& total() const { return total_; }
  const std::deque<Counters>& windows() const { return windows_; }
  std::uint64_t sample_cycles() const { return sample_cycles_; }
  bool automatic() const { return automatic_; }
  // With automatic sampling, merges windows pairwise until at most
  // kAutoMaxWindows remain. Invalidates references to windows: call it only
  // where no module holds one (between events).
  void coarsen_if_automatic();

  // The window counters for SM cycle `cycle` / time `ps`.
  Counters& at_cycle(std::uint64_t cycle);
  Counters& at_ps(std::uint64_t ps) { return at_cycle(sm_clock_.cycle_at_or_after(ps)); }
  // The SM clock, which power management may slow down and speed up.
  SmClock& sm_clock() { return sm_clock_; }
  const SmClock& sm_clock() const { return sm_clock_; }

  // `count` scheduler cycles from `first` with no issue, for `reason`.
  void stall(std::uint32_t sm, std::uint64_t first, std::uint64_t count, Stall reason,
             std::uint32_t schedulers = 1);
  void active(std::uint32_t sm, std::uint64_t first, std::uint64_t count);
  // A time span added to `field[index]` (a bank's data or busy time, a
  // channel's busy time), split over the windows it crosses.
  void span(std::vector<std::uint64_t> Counters::*field, std::uint32_t index, std::uint64_t from_ps,
            std::uint64_t to_ps);

 private:
  template <typename F>
  void split_cycles(std::uint64_t first, std::uint64_t count, F add);

  std::uint32_t sms_, channels_, banks_;
  bool automatic_;
  std::uint64_t sample_cycles_;
  std::uint64_t base_ = 0;
  SmClock sm_clock_;
  Counters total_;
  // A deque: callers hold a window while later ones are added (DRAM bursts book ahead).
  std::deque<Counters> windows_;
};

}  // namespace cnuas::gpu
