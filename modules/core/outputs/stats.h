// Run statistics as JSON: per element busy time per lane, utilization, queue
// wait (mean, p50, p99, max), stage count; per operation its latency.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

#include "core/kernel/element.h"
#include "core/kernel/run_context.h"
#include "core/outputs/power.h"

namespace cnuas {

struct WaitSummary {
  std::uint64_t count = 0;
  Rational mean;
  std::uint64_t p50 = 0, p99 = 0, max = 0;
};

// Nearest-rank percentiles over a copy of `waits`.
WaitSummary summarize_waits(std::vector<std::uint64_t> waits);

// The end of the last stage of the run (0 when nothing ran).
std::uint64_t makespan_ps(const RunContext& context);

// Idle power over the makespan plus active power over every busy lane, in joules.
Rational element_energy_j(const Element& e, std::uint64_t makespan_ps);

// One collective of the workload as nccl-tests reports it: its time from the
// first transfer's ready time to the last one's end, algbw = bytes / time and
// busbw = algbw x the collective's bus factor (2(n-1)/n for an allreduce,
// (n-1)/n for allgather, reduce-scatter and all-to-all), in GB/s of 1e9 B.
struct CollectiveResult {
  const CollectiveRecord* record = nullptr;
  std::uint64_t transfers_not_done = 0;  // > 0: the collective failed and has no bandwidth
  std::uint64_t start_ps = 0, end_ps = 0, time_ps = 0;
  Rational algbw_gbps, busbw_gbps;
};
std::vector<CollectiveResult> collective_results(const RunContext& context);

// `power`, when given, adds per-rack power (average, peak, energy, series,
// telemetry) and the power events.
void write_stats_json(std::ostream& out, const RunContext& context,
                      const PowerReport* power = nullptr);

}  // namespace cnuas
