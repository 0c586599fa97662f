// A shelf's power loss stops its rack's elements until power returns: work in
// flight is cut off (its main-lane time so far is lost, but drew power) and
// done again whole afterwards, or its operation fails (on_outage: fail).
// When the loss comes depends on the load, which depends on the loss: the
// run repeats until the two agree (modules/run/power_passes.cpp).
#include <gtest/gtest.h>

#include "cli/cli_harness.h"
#include "cli/trace_check.h"

namespace cnuas {
using namespace testing_support;
using nlohmann::json;

namespace {

constexpr std::uint64_t ms = 1'000'000'000;

// One GPU-like element in rack r0 (1 TFLOP/s, one lane: 10 GFLOP hold it
// 10 ms; 500 W idle + 1000 W active), fed by a shelf of two 2 kW supplies
// (N+1) with `battery` and a 1 ms switchover; `other` is outside the rack.
// AC is lost at 2 ms and comes back at 20 ms.
std::string rack(const std::string& battery, const std::string& on_outage) {
  return "platform: p\nelements:\n"
         "  - {name: gpu, type: cnuas.compute, set: {lanes: 1, rate: 1 TFLOP/s, idle_power: "
         "500 W, active_power: 1000 W, rack: r0, on_outage: " +
         on_outage +
         "}}\n"
         "  - {name: other, type: cnuas.compute, set: {lanes: 1, rate: 1 TFLOP/s}}\n"
         "  - {name: shelf, type: cnuas.orv3_shelf, set: {supplies: 2, supply_rating: 2 kW, "
         "redundancy: 1, efficiency: 100 %, battery_capacity: " +
         battery +
         ", switchover_time: 1 ms, rack: r0}}\n"
         "workload:\n  operations:\n"
         "    - {name: a, path: [gpu], dims: {flops: 10 GFLOP}}\n"
         "    - {name: c, path: [gpu], dims: {flops: 1 GFLOP}, start: 10 ms}\n"
         "    - {name: d, path: [other], dims: {flops: 10 GFLOP}}\n"
         "    - {name: out, event: ac_loss, target: shelf, start: 2 ms}\n"
         "    - {name: back, event: supply_restore, target: shelf, start: 20 ms, supplies: 2}\n";
}

struct PowerRun {
  TraceFacts trace;
  json stats;
  std::map<std::string, std::vector<std::pair<std::uint64_t, std::uint64_t>>> holds;
  std::vector<std::pair<std::string, std::uint64_t>> shelf_events;
};

PowerRun run_power_platform(const std::string& name, const std::string& platform) {
  const std::string trace = scratch_dir() + "/" + name + ".jsonl",
                    stats = scratch_dir() + "/" + name + ".json";
  CommandResult r = run_cnuas("run " + write_file(name + ".yaml", platform) + " --trace " + trace +
                              " --stats " + stats);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  PowerRun out{check_trace_rules(trace), json::parse(read_file(stats)), {}, {}};
  for (const TraceRecord& rec : out.trace.records)
    out.holds[rec.op].emplace_back(rec.start, rec.free);
  for (const json& e : out.trace.events)
    if (e["component"] == "p.shelf") out.shelf_events.emplace_back(e["event"], e["t_ps"]);
  return out;
}

using Spans = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

}  // namespace

// Battery 3 J: it takes over at 3 ms (shortfall at 2 ms + 1 ms switchover)
// and carries 1500 W (a is running) for 3 J / 1500 W = 2 ms: empty at 5 ms,
// the rack off until AC returns at 20 ms. a held the GPU [0, 5) ms, lost that
// work and runs again whole [20, 30) ms; c (ready at 10 ms) follows [30, 31).
// `other` has no rack: d runs [0, 10) ms.
TEST(PowerLoss, TheRacksElementsStopUntilPowerReturns) {
  const PowerRun r = run_power_platform("loss_wait", rack("3 J", "wait"));
  EXPECT_EQ(r.holds.at("a"), (Spans{{0, 5 * ms}, {20 * ms, 30 * ms}}));
  EXPECT_EQ(r.holds.at("c"), (Spans{{30 * ms, 31 * ms}}));
  EXPECT_EQ(r.holds.at("d"), (Spans{{0, 10 * ms}}));
  const std::vector<std::pair<std::string, std::uint64_t>> expected = {
      {"ac_loss", 2 * ms},
      {"redundancy_lost", 2 * ms},
      {"supply_shortfall", 2 * ms},
      {"battery_takeover", 3 * ms},
      {"battery_depleted", 5 * ms},
      {"power_loss", 5 * ms},
      {"supply_restore", 20 * ms},
      {"redundancy_restored", 20 * ms},
      {"supply_shortfall_cleared", 20 * ms},
      {"power_restored", 20 * ms}};
  EXPECT_EQ(r.shelf_events, expected);
  const json& gpu = r.stats["elements"]["p.gpu"];
  EXPECT_EQ(gpu["power_cuts"]["spans"], 1);
  EXPECT_EQ(gpu["power_cuts"]["off_ps"], 15 * ms);
  EXPECT_EQ(gpu["power_cuts"]["stages_cut"], 1);
  EXPECT_EQ(gpu["power_cuts"]["lost_ps"], 5 * ms);
  EXPECT_EQ(r.stats["makespan_ps"], 31 * ms);
  EXPECT_EQ(r.stats["operations"]["a"]["end_ps"], 30 * ms);
  // The GPU drew 500 W while powered (31 - 15 = 16 ms) and 1000 W more over
  // 5 + 10 + 1 = 16 ms of holdings: 8 J + 16 J.
  EXPECT_EQ(gpu["energy_j"], 24.0);
  EXPECT_FALSE(r.stats["elements"]["p.other"].contains("power_cuts"));
}

// Without a battery the rack is off from the takeover that finds it empty,
// 3 ms, to 20 ms. With on_outage: fail, a fails when the power goes, c
// (ready at 10 ms, no power) fails at once.
TEST(PowerLoss, OperationsFailWhenTheirElementsPowerFails) {
  const PowerRun r = run_power_platform("loss_fail", rack("0 J", "fail"));
  EXPECT_EQ(r.holds.at("a"), (Spans{{0, 3 * ms}}));
  EXPECT_EQ(r.holds.count("c"), 0u);
  EXPECT_EQ(r.stats["operations"]["a"]["outcome"], "failed");
  EXPECT_EQ(r.stats["operations"]["a"]["end_ps"], 3 * ms);
  EXPECT_EQ(r.stats["operations"]["c"]["outcome"], "failed");
  EXPECT_EQ(r.stats["operations"]["c"]["end_ps"], 10 * ms);
  EXPECT_EQ(r.stats["operations_failed"], 2);
  EXPECT_EQ(r.stats["elements"]["p.gpu"]["power_cuts"]["stages_failed"], 2);
}

// A battery that outlasts the outage (1 kJ: 1500 W for 0.67 s) stops nothing.
TEST(PowerLoss, ABatteryThatLastsStopsNothing) {
  const PowerRun r = run_power_platform("loss_none", rack("1 kJ", "wait"));
  EXPECT_EQ(r.holds.at("a"), (Spans{{0, 10 * ms}}));
  EXPECT_FALSE(r.stats["elements"]["p.gpu"].contains("power_cuts"));
}

}  // namespace cnuas
