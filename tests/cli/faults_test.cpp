// Element failures in the workload (element_down / element_up / element_flap):
// stages wait for the element to come back, the trace says when it was down
// and which stages waited (admitted_ps), and the times are the hand-computed
// ones. The trace rules (tests/cli/trace_check.h) hold, outages included.
#include <gtest/gtest.h>

#include "cli/cli_harness.h"
#include "cli/trace_check.h"

namespace cnuas {
using namespace testing_support;
using nlohmann::json;

namespace {

// A 1 GB/s link: 1000 bytes hold it 1 us (occupancy, no latency).
const char* kLink =
    "platform: o\nelements:\n  - {name: link, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
    "  - {name: other, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
    "workload:\n  operations:\n";

struct FaultRun {
  TraceFacts trace;
  json stats;
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> op_times;  // start, end
};

FaultRun run_fault_operations(const std::string& name, const std::string& operations) {
  const std::string platform = write_file(name + ".yaml", kLink + operations);
  const std::string trace = scratch_dir() + "/" + name + ".jsonl",
                    stats = scratch_dir() + "/" + name + ".json";
  CommandResult r = run_cnuas("run " + platform + " --trace " + trace + " --stats " + stats);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  FaultRun out{check_trace_rules(trace), json::parse(read_file(stats)), {}};
  for (const TraceRecord& rec : out.trace.records) out.op_times[rec.op] = {rec.start, rec.end};
  return out;
}

}  // namespace

// The link is down over [1.5, 4) us. a (0..1 us) ends before. c, ready at
// 1.2 us, would hold the link over [1.2, 2.2) us, into the outage: it waits
// for 4 us and holds [4, 5). b, ready at 2 us inside the outage, queues behind
// c: [5, 6). `other` never fails: d there runs at once.
TEST(Faults, StagesWaitForTheElementToComeBackUp) {
  const FaultRun r =
      run_fault_operations("down_up",
                           "    - {name: a, path: [link], dims: {bytes: 1000}}\n"
                           "    - {name: b, path: [link], dims: {bytes: 1000}, start: 2 us}\n"
                           "    - {name: c, path: [link], dims: {bytes: 1000}, start: 1200 ns}\n"
                           "    - {name: d, path: [other], dims: {bytes: 1000}, start: 2 us}\n"
                           "    - {name: cut, event: element_down, target: link, start: 1500 ns}\n"
                           "    - {name: fix, event: element_up, target: link, start: 4 us}\n");
  using Times = std::pair<std::uint64_t, std::uint64_t>;
  EXPECT_EQ(r.op_times.at("a"), Times(0, 1 * us));
  EXPECT_EQ(r.op_times.at("c"), Times(4 * us, 5 * us));
  EXPECT_EQ(r.op_times.at("b"), Times(5 * us, 6 * us));
  EXPECT_EQ(r.op_times.at("d"), Times(2 * us, 3 * us));
  for (const TraceRecord& rec : r.trace.records)
    if (rec.op == "c") {
      EXPECT_EQ(rec.admitted, 4 * us);
    }
  ASSERT_EQ(r.trace.events.size(), 2u);
  EXPECT_EQ(r.trace.events[0]["event"], "element_down");
  EXPECT_EQ(r.trace.events[0]["t_ps"], 1'500'000u);
  EXPECT_EQ(r.trace.events[0]["until_ps"], 4 * us);
  EXPECT_EQ(r.trace.events[1]["event"], "element_up");
  const json& outages = r.stats["elements"]["o.link"]["outages"];
  EXPECT_EQ(outages["spans"], 1);
  EXPECT_EQ(outages["down_ps"], 2'500'000u);
  EXPECT_EQ(outages["stages_waited"], 1);     // c; b waited for c, not for the outage
  EXPECT_EQ(outages["wait_ps"], 2'800'000u);  // c: admitted at 4 us, ready at 1.2 us
  EXPECT_FALSE(r.stats["elements"]["o.other"].contains("outages"));
}

// Flapping: down for 1 us every 3 us, three times from 1 us: [1,2), [4,5),
// [7,8) us. Four 1 us transfers back to back from 0: [0,1), then the next
// would start at 1 (down) -> [2,3), [3,4), then [4,5) is down -> [5,6).
TEST(Faults, FlappingElementsServeBetweenTheirOutages) {
  const FaultRun r =
      run_fault_operations("flap",
                           "    - {name: x, path: [link], dims: {bytes: 1000}, repeat: 4}\n"
                           "    - {name: flaky, event: element_flap, target: link, start: 1 us, "
                           "down_for: 1 us, period: 3 us, count: 3}\n");
  using Times = std::pair<std::uint64_t, std::uint64_t>;
  EXPECT_EQ(r.op_times.at("x#0"), Times(0, 1 * us));
  EXPECT_EQ(r.op_times.at("x#1"), Times(2 * us, 3 * us));
  EXPECT_EQ(r.op_times.at("x#2"), Times(3 * us, 4 * us));
  EXPECT_EQ(r.op_times.at("x#3"), Times(5 * us, 6 * us));
  EXPECT_EQ(r.trace.events.size(), 6u);
  EXPECT_EQ(r.stats["elements"]["o.link"]["outages"]["spans"], 3);
  EXPECT_EQ(r.stats["elements"]["o.link"]["outages"]["down_ps"], 3 * us);
}

// A slowed element (element_degrade: a PCIe link retrained to half its
// lanes, a throttled GPU) works at the rate given over the span: its lane
// holdings take as long as their work takes at that speed. The link at 50 %
// over [0.5, 1.5) us: x (1 us of work from 0) does 0.5 us at full speed, then
// the other 0.5 us at half speed over [0.5, 1.5): it ends at 1.5 us; y, ready
// then, runs at full speed [1.5, 2.5). At 25 % over [1, 3) us, z (2 us of work
// on `other` from 0): 1 us done by 1 us, 0.5 us more over [1, 3), the last
// 0.5 us over [3, 3.5).
TEST(Faults, SlowedElementsTakeLongerInTheirSpan) {
  const FaultRun r = run_fault_operations(
      "degrade",
      "    - {name: x, path: [link], dims: {bytes: 1000}}\n"
      "    - {name: y, path: [link], dims: {bytes: 1000}, start: 1500 ns}\n"
      "    - {name: z, path: [other], dims: {bytes: 2000}}\n"
      "    - {name: half, event: element_degrade, target: link, start: 500 ns, duration: 1 us, "
      "rate: 50 %}\n"
      "    - {name: hot, event: element_degrade, target: other, start: 1 us, duration: 2 us, "
      "rate: 25 %}\n");
  using Times = std::pair<std::uint64_t, std::uint64_t>;
  EXPECT_EQ(r.op_times.at("x"), Times(0, 1'500'000));
  EXPECT_EQ(r.op_times.at("y"), Times(1'500'000, 2'500'000));
  EXPECT_EQ(r.op_times.at("z"), Times(0, 3'500'000));
  EXPECT_EQ(r.stats["elements"]["o.link"]["slowdowns"]["slowed_ps"], 500'000u);
  EXPECT_EQ(r.stats["elements"]["o.other"]["slowdowns"]["slowed_ps"], 1'500'000u);
  ASSERT_EQ(r.trace.events.size(), 4u);
  EXPECT_EQ(r.trace.events[0]["event"], "element_degraded");
  EXPECT_EQ(r.trace.events[0]["rate"], 0.5);
}

TEST(Faults, BadEventsAreRefusedAtTheirPlace) {
  struct Case {
    std::string entry, expect;
  };
  const Case cases[] = {
      {"    - {name: cut, event: element_down, target: link, start: 1 us}\n",
       "'link' goes down at 1000000 ps and never comes back up"},
      {"    - {name: fix, event: element_up, target: link, start: 1 us}\n",
       "element_up of 'link' at 1000000 ps: it is not down then"},
      {"    - {name: cut, event: element_down, target: lnk, start: 1 us}\n", "lnk"},
      {"    - {name: f, event: element_flap, target: link, down_for: 3 us, period: 3 us, "
       "count: 2}\n",
       "down_for must be above zero and below period"},
      {"    - {name: f, event: element_flip, target: link}\n", "did you mean 'element_flap'"},
      {"    - {name: d, event: element_degrade, target: link, duration: 1 us, rate: 0 %}\n",
       "rate '0 %' must be above 0 % and below 100 %"},
      {"    - {name: d, event: element_degrade, target: link, duration: 2 us, rate: 50 %}\n"
       "    - {name: e, event: element_degrade, target: link, start: 1 us, duration: 1 us, "
       "rate: 50 %}\n",
       "overlaps the one at 0 ps"},
  };
  for (const Case& c : cases) {
    const std::string p = write_file(
        "bad_fault.yaml",
        std::string(kLink) + "    - {name: a, path: [link], dims: {bytes: 1}}\n" + c.entry);
    CommandResult r = run_cnuas("validate " + p);
    EXPECT_EQ(r.exit_code, 2) << c.expect;
    EXPECT_NE(r.err.find("bad_fault.yaml:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
  }
}

}  // namespace cnuas
