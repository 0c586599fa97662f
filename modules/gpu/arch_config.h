// The microarchitecture of a GPU for the performance model: what a strict
// `profiles/gpu-arch/*.yaml` file describes (SMs, functional units, L1/shared,
// NoC, L2 slices, DRAM channels and banks, energy per event).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "core/inputs/rational.h"
#include "ptx/unit_class.h"

namespace cnuas::gpu {

// Functional-unit classes: the PTX engine's own enum, which the model indexes
// its pipes, counters and energies by (one enum, no casts between two).
using Unit = ptx::UnitClass;
constexpr std::size_t kUnits = ptx::kUnitClasses;
const char* unit_name(Unit u);

struct PipeTiming {
  std::uint32_t latency = 1;   // cycles from issue until a dependent instruction may issue
  std::uint32_t interval = 1;  // cycles before the same scheduler's pipe takes another warp
};

enum class WarpScheduler : std::uint8_t { LooseRoundRobin, GreedyThenOldest };

struct SmConfig {
  std::uint32_t count = 1;
  Rational clock_hz;
  std::uint32_t schedulers = 4;  // warp schedulers (sub-partitions), one issue each per cycle
  WarpScheduler policy = WarpScheduler::GreedyThenOldest;
  std::uint32_t max_warps = 64;
  std::uint32_t max_ctas = 32;
  std::uint32_t registers = 65536;
  std::uint32_t registers_per_thread = 32;  // PTX has virtual registers: an assumption
  std::uint32_t shared_bytes = 228 * 1024;  // per SM, for occupancy
  std::uint32_t cta_launch_cycles = 0;      // from a CTA slot freeing to the next CTA issuing
  std::uint32_t gpcs = 1;                   // graphics processing clusters the SMs are split into
  std::uint32_t max_cluster = 1;            // thread-block cluster CTAs, portable
  std::uint32_t max_cluster_non_portable =
      1;  // with cudaFuncAttributeNonPortableClusterSizeAllowed
  std::array<PipeTiming, kUnits> pipes{};
  // Dense tensor throughput per SM per cycle, in FLOP (OPs for integers), by input type.
  struct TensorRates {
    std::uint32_t f16 = 0, tf32 = 0, fp8 = 0, int8 = 0, f64 = 0;
  };
  // Warpgroup MMA (wgmma); 0: no warpgroup tensor cores (wgmma then takes the tensor pipe like
  // mma.sync). f64 is unused: wgmma has no f64 form.
  TensorRates wgmma;
  // Warp-level MMA (mma.sync, wmma.mma): an instruction holds its scheduler's tensor pipe for
  // `overhead` cycles plus its FLOP at the sub-partition's share of `rates`, and its result is
  // ready `stages` times that after issue (0: the tensor pipe's latency, or the busy time if
  // longer). A rate of 0 for an input type: the pipe's interval and latency, whatever the shape.
  struct MmaTiming {
    TensorRates rates;
    std::uint32_t overhead = 0;
    std::uint32_t stages = 0;
  } mma;
  // Distributed shared memory: an access to another CTA's shared memory crosses the GPC's
  // SM-to-SM network. bytes_per_cycle 0: such accesses cost what local ones do.
  struct Dsmem {
    std::uint32_t latency = 0;          // SM cycles until a remote load's value is there
    std::uint32_t bytes_per_cycle = 0;  // what one SM's port to the network moves
  } dsmem;
  // The Tensor Memory Accelerator: a copy engine per SM for cp.async.bulk. bytes_per_cycle 0:
  // none (a bulk copy is one memory instruction whose transactions complete at issue).
  struct Tma {
    std::uint32_t latency = 0;          // SM cycles from issue to the first line request
    std::uint32_t bytes_per_cycle = 0;  // line requests issued, in bytes per SM cycle
    std::uint32_t outstanding = 1;      // line reads in flight
  } tma;
};

struct L1Config {
  std::uint32_t size_bytes = 128 * 1024;
  std::uint32_t line_bytes = 128;
  std::uint32_t sector_bytes = 32;
  std::uint32_t ways = 4;
  std::uint32_t mshrs = 256;
  std::uint32_t hit_latency = 33;  // SM cycles
  bool write_allocate = false;     // write-through either way
  std::uint32_t shared_latency = 29;
  std::uint32_t shared_banks = 32;
  std::uint32_t shared_bank_bytes = 4;
  std::uint32_t constant_latency = 8;  // ld.const / ld.param: constant cache hit
  std::uint32_t lines_per_cycle = 1;   // coalesced lines the LSU looks up per cycle
};

struct NocConfig {
  Rational clock_hz;
  std::uint32_t latency = 1;      // NoC cycles, each direction
  std::uint32_t flit_bytes = 32;  // bytes a port moves per NoC cycle
  std::uint32_t request_header_bytes = 8;
};

struct L2Config {
  Rational clock_hz;
  std::uint32_t slices = 1;
  std::uint64_t size_bytes = 0;  // all slices together
  std::uint32_t line_bytes = 128;
  std::uint32_t sector_bytes = 32;
  std::uint32_t ways = 16;
  std::uint32_t mshrs = 64;            // per slice
  std::uint32_t hit_latency = 100;     // L2 cycles, tag and data
  std::uint32_t bytes_per_cycle = 64;  // per slice
  std::uint32_t interleave_bytes = 256;
  // Two partitions (H100): each caches, for the SMs of its half of the GPCs, copies of lines
  // homed in the other; a copy is fetched over the partition crossbar, far_latency L2 cycles
  // each way, far_bytes_per_cycle per slice pair and direction. 1: one uniform L2.
  std::uint32_t partitions = 1;
  std::uint32_t far_latency = 0;
  std::uint32_t far_bytes_per_cycle = 0;
  // A read miss fetches from DRAM the aligned group of this many bytes around each sector it
  // misses (those neither present nor on their way); 0: only the sectors asked for.
  std::uint32_t fetch_bytes = 0;
};

struct DramConfig {
  std::uint32_t channels = 1;
  std::uint32_t banks = 16;              // per channel
  std::uint32_t row_bytes = 1024;        // row buffer (page) per bank
  std::uint32_t interleave_bytes = 256;  // consecutive chunks go to consecutive channels
  Rational channel_bytes_per_s;          // data bus of one channel
  std::uint32_t burst_bytes = 32;        // one column access moves this many bytes
  std::uint64_t tRCD_ps = 0, tRP_ps = 0, tCL_ps = 0, tRAS_ps = 0, tWR_ps = 0;
  std::uint64_t tREFI_ps = 0, tRFC_ps = 0;  // refresh interval and duration; 0 = no refresh
  bool refresh_per_bank = false;            // one bank at a time (tRFC is then per bank)
  std::uint64_t controller_ps = 0;          // controller and PHY, added once to every access
  std::uint32_t bank_groups = 1;            // bank b is in group b % bank_groups
  std::uint64_t tCCD_L_ps = 0;  // column to column in one bank group (the data bus spaces others)
  std::uint64_t tRRD_ps = 0;    // activate to activate, any two banks of the channel
  std::uint64_t tWTR_ps = 0;    // end of write data to a read command
  std::uint64_t tRTW_ps = 0;    // read command to a write command
};

// Energy per event (picojoules) and static power, for the power breakdown.
struct EnergyConfig {
  std::array<Rational, kUnits> instruction_pj{};  // per warp instruction of each unit class
  Rational l1_access_pj;                          // per sector looked up in L1
  Rational shared_access_pj;                      // per shared-memory wavefront
  Rational l2_access_pj;                          // per sector at an L2 slice
  Rational noc_flit_pj;                           // per flit on the crossbar
  Rational dram_activate_pj;                      // per activate+precharge
  Rational dram_burst_pj;                         // per burst read or written
  Rational static_w;        // leakage and clocks of the whole GPU while a kernel runs
  Rational sm_active_w;     // per SM with resident warps, on top of static
  Rational tensor_flop_pj;  // per FLOP of a tensor instruction, on top of its instruction energy
};

// Power management: above `tdp_w` (0: none) over an interval, the SM clock
// steps down by `clock_step_hz` (to no less than `min_clock_hz`) until the
// power fits, and back up when it falls.
struct PowerConfig {
  Rational tdp_w;
  Rational clock_step_hz;
  Rational min_clock_hz;
  std::uint64_t interval_ps = 0;
};

struct ArchConfig {
  std::string name;
  std::string file;  // where it was read from
  SmConfig sm;
  L1Config l1;
  NocConfig noc;
  L2Config l2;
  DramConfig dram;
  EnergyConfig energy;
  PowerConfig power;
};

// Reads a strict profile; errors name file:line:col, the key and what is accepted.
ArchConfig load_arch_file(const std::string& path);
ArchConfig load_arch_text(const std::string& text, const std::string& name);
// A built-in profile (h100-sxm, h200-sxm, gtx-1080-ti) or a file path.
ArchConfig load_arch(const std::string& name_or_path);
// Throws the InputError load_arch would for an unknown name or a missing file,
// without reading the file (elements that may never need the model check it).
void check_arch_reference(const std::string& name_or_path);
std::string builtin_arch_names();

}  // namespace cnuas::gpu
