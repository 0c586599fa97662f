// The performance model's statistics as JSON, with the names GPU architects
// use: cycles, IPC (global and per SM), the warp-issue distribution W0..W32,
// stall reasons, L1/L2 hit rates, DRAM efficiency and utilization per bank,
// bandwidth, NoC occupancy and the power breakdown, per kernel and as time
// series sampled every N cycles.
#pragma once

#include <nlohmann/json.hpp>

#include "gpu/arch_config.h"
#include "gpu/gpu_model.h"

namespace cnuas::gpu {

// a / b, or 0 when nothing was counted (b == 0).
inline double ratio(std::uint64_t a, std::uint64_t b) {
  return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

// Derived figures of one counter set over `cycles` SM cycles, which took `ps` picoseconds (0:
// `cycles` at sm.clock).
nlohmann::json summary_json(const Counters& c, const ArchConfig& arch, std::uint64_t cycles,
                            std::uint64_t ps = 0);
// Picoseconds from a kernel's start to its kernel-relative SM cycle `cycle`, through the clock
// changes power management made.
std::uint64_t kernel_ps(const KernelRun& run, const ArchConfig& arch, std::uint64_t cycle);
// Whether power management changed the SM clock during the kernel.
bool clock_changed(const KernelRun& run);
// A kernel: its summary, its per-SM and per-bank detail and its time series.
nlohmann::json kernel_json(const KernelRun& run, const ArchConfig& arch);

}  // namespace cnuas::gpu
