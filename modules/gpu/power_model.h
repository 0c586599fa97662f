// Energy of a kernel (or of one sampling window) from the model's event
// counts: per-event energies from the architecture profile plus static power
// over the time, split the way GPU power studies report it.
#pragma once

#include <cstdint>

#include "gpu/arch_config.h"
#include "gpu/perf_stats.h"

namespace cnuas::gpu {

struct Energy {
  double core = 0;  // instructions by unit class, plus active SMs' power
  double l1 = 0;    // L1 sectors and shared-memory wavefronts
  double l2 = 0;
  double noc = 0;
  double dram = 0;  // activates and bursts
  double idle = 0;  // static power over the time
  double total() const { return core + l1 + l2 + noc + dram + idle; }
};

// Joules for the events in `c` over `duration_ps`.
Energy energy_of(const Counters& c, const ArchConfig& arch, std::uint64_t duration_ps);

}  // namespace cnuas::gpu
