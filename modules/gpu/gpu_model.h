// The detailed GPU: SMs, their L1s, the NoC, L2 slices and DRAM channels with
// their banks, built as sc_modules bound by TLM sockets, plus the CTA
// dispatcher. run() executes one kernel through the PTX engine's step
// interface and returns its cycles and statistics.
//
// The model keeps its own calendar (GPU-local picoseconds) so that only
// elements with work run; it is a temporally decoupled TLM subsystem that the
// platform sees as one kernel duration. Caches and DRAM rows stay warm from
// one kernel to the next, as on hardware (L1 is not flushed either: the PTX
// engine holds the data, so staleness cannot change results).
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "gpu/arch_config.h"
#include "gpu/l2_policy.h"
#include "gpu/perf_stats.h"
#include "ptx/executor.h"

namespace cnuas::gpu {

struct KernelRun {
  std::string kernel;
  std::uint64_t cycles = 0;   // SM cycles from launch until the last memory traffic drained
  std::uint64_t time_ps = 0;  // the same, in picoseconds
  std::uint32_t ctas = 0;
  std::uint32_t ctas_per_sm = 0;  // occupancy limit
  // The launch configuration as the model saw it.
  ptx::Dim3 grid, block;
  std::uint32_t warps_per_cta = 0;
  std::uint32_t registers_per_thread = 0;  // the profile's assumption (PTX registers are virtual)
  std::uint32_t shared_bytes = 0;          // per CTA, static and dynamic
  Counters total;
  std::deque<Counters> windows;     // one per sample_cycles SM cycles
  std::uint64_t sample_cycles = 0;  // chosen from the kernel's length when built with 0
  // The SM clock over the kernel, one span per frequency (kernel-relative cycle and time it
  // starts from); more than one only when power management changed the clock.
  struct ClockSpan {
    std::uint64_t first_cycle = 0, first_ps = 0;
    Rational hz;
  };
  std::vector<ClockSpan> clock;
  std::uint32_t throttle_events = 0;  // times power management lowered the clock
  std::uint32_t raise_events = 0;     // and raised it again
};

class PerformanceGpu {
 public:
  // Builds the modules under a top module named `name`; call before the
  // SystemC elaboration ends (or in a program that never calls sc_start).
  // `sample_cycles` 0: each kernel's sampling interval is chosen from its
  // length (PerfRecorder::kAutoMaxWindows).
  PerformanceGpu(const std::string& name, ArchConfig arch, std::uint64_t sample_cycles = 1000);
  ~PerformanceGpu();
  PerformanceGpu(const PerformanceGpu&) = delete;
  PerformanceGpu& operator=(const PerformanceGpu&) = delete;

  const ArchConfig& arch() const;
  // Runs a kernel to completion under an L2 access policy. Throws what the
  // PTX engine throws (faults, bad launches) and ptx::ExecutionError when CTAs
  // can never finish.
  KernelRun run(ptx::Executor& executor, const ptx::LoadedModule& module, const std::string& kernel,
                const ptx::LaunchConfig& config, const L2AccessPolicy& policy = {});
  // Makes every persisting L2 line normal again.
  void reset_persisting_l2();

 private:
  struct Top;
  std::unique_ptr<Top> top_;
};

}  // namespace cnuas::gpu
