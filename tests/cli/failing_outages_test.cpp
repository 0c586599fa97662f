// Outages that fail operations instead of holding them (an element with
// `on_outage: fail`), requests that time out while the device they go to is
// down (a Modbus master's response_timeout and retries), and a collective
// that loses a participant. Times are hand-computed; the trace rules
// (tests/cli/trace_check.h) hold.
#include <gtest/gtest.h>

#include "cli/cli_harness.h"
#include "cli/trace_check.h"

namespace cnuas {
using namespace testing_support;
using nlohmann::json;

namespace {

struct OutageRun {
  TraceFacts trace;
  json stats;
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> holds;  // op -> (first start,
                                                                         // last free)
  std::vector<json> failures;                                            // operation_failed
};

OutageRun run_outage_platform(const std::string& name, const std::string& platform) {
  const std::string trace = scratch_dir() + "/" + name + ".jsonl",
                    stats = scratch_dir() + "/" + name + ".json";
  CommandResult r = run_cnuas("run " + write_file(name + ".yaml", platform) + " --trace " + trace +
                              " --stats " + stats);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  OutageRun out{check_trace_rules(trace), json::parse(read_file(stats)), {}, {}};
  for (const TraceRecord& rec : out.trace.records) {
    auto [it, fresh] = out.holds.try_emplace(rec.op, rec.start, rec.free);
    if (!fresh) it->second.second = rec.free;
  }
  for (const json& e : out.trace.events)
    if (e["event"] == "operation_failed") out.failures.push_back(e);
  return out;
}

using Span = std::pair<std::uint64_t, std::uint64_t>;

}  // namespace

// Two 1 GB/s links (1000 bytes hold one 1 us); `link` fails its operations
// and is down over [1.5, 4) us. a [0, 1) ends before. c, ready at 1.2 us,
// holds the link until the outage begins and fails at 1.5 us. b, ready at
// 2 us inside the outage, fails at once and holds nothing. e waits for c: it
// is cancelled, and f after e too. h, at 5 us, finds the link up again: [5, 6).
TEST(FailingOutages, OperationsFailWhereTheElementIsDown) {
  const OutageRun r = run_outage_platform(
      "fail_on_outage",
      "platform: o\nelements:\n"
      "  - {name: link, type: cnuas.pipe, set: {bandwidth: 1 GB/s, on_outage: fail}}\n"
      "  - {name: other, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
      "  - {name: third, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
      "connections: [other -> third]\n"
      "workload:\n  operations:\n"
      "    - {name: a, path: [link], dims: {bytes: 1000}}\n"
      "    - {name: b, path: [link], dims: {bytes: 1000}, start: 2 us}\n"
      "    - {name: c, path: [link], dims: {bytes: 1000}, start: 1200 ns}\n"
      "    - {name: e, path: [other], dims: {bytes: 1000}, after: [c]}\n"
      "    - {name: f, path: [other], dims: {bytes: 1000}, after: [e]}\n"
      "    - {name: h, path: [link], dims: {bytes: 1000}, start: 5 us}\n"
      "    - {name: cut, event: element_down, target: link, start: 1500 ns}\n"
      "    - {name: fix, event: element_up, target: link, start: 4 us}\n");
  EXPECT_EQ(r.holds.at("a"), Span(0, 1 * us));
  EXPECT_EQ(r.holds.at("c"), Span(1'200'000, 1'500'000));
  EXPECT_EQ(r.holds.count("b"), 0u);
  EXPECT_EQ(r.holds.count("e"), 0u);
  EXPECT_EQ(r.holds.count("f"), 0u);
  EXPECT_EQ(r.holds.at("h"), Span(5 * us, 6 * us));
  ASSERT_EQ(r.failures.size(), 2u);
  EXPECT_EQ(r.failures[0]["op"], "c");
  EXPECT_EQ(r.failures[0]["t_ps"], 1'500'000u);
  EXPECT_EQ(r.failures[0]["cause"], "outage");
  EXPECT_EQ(r.failures[1]["op"], "b");
  EXPECT_EQ(r.failures[1]["t_ps"], 2 * us);
  EXPECT_EQ(r.stats["operations_failed"], 2);
  EXPECT_EQ(r.stats["operations_cancelled"], 2);
  EXPECT_EQ(r.stats["operations"]["c"]["outcome"], "failed");
  EXPECT_EQ(r.stats["operations"]["c"]["end_ps"], 1'500'000u);
  EXPECT_EQ(r.stats["operations"]["f"]["outcome"], "cancelled");
  EXPECT_FALSE(r.stats["operations"]["a"].contains("outcome"));
  // Only a and h have latencies; b and c failed.
  EXPECT_EQ(r.stats["operation_groups"]["a"]["count"], 1);
  EXPECT_EQ(r.stats["operation_groups"]["b"]["count"], 0);
  EXPECT_EQ(r.stats["operation_groups"]["b"]["failed"], 1);
  const json& outages = r.stats["elements"]["o.link"]["outages"];
  EXPECT_EQ(outages["stages_failed"], 2);
  EXPECT_EQ(outages["stages_waited"], 0);
  // The link was held [0,1) + [1.2,1.5) + [5,6) us.
  EXPECT_EQ(r.stats["elements"]["o.link"]["busy_ps"], 2'300'000u);
  EXPECT_EQ(r.stats["makespan_ps"], 6 * us);
}

// A failure on a later element of the route: g crosses `other` [0, 1) us,
// then `link`, which goes down at 1.5 us while g holds it [1, 1.5).
TEST(FailingOutages, AnOperationFailsAtTheElementOnItsRouteThatIsDown) {
  const OutageRun r = run_outage_platform(
      "fail_on_route",
      "platform: o\nelements:\n"
      "  - {name: other, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
      "  - {name: link, type: cnuas.pipe, set: {bandwidth: 1 GB/s, on_outage: fail}}\n"
      "connections: [other -> link]\n"
      "workload:\n  operations:\n"
      "    - {name: g, path: [other, link], dims: {bytes: 1000}}\n"
      "    - {name: cut, event: element_down, target: link, start: 1500 ns}\n"
      "    - {name: fix, event: element_up, target: link, start: 4 us}\n");
  EXPECT_EQ(r.holds.at("g"), Span(0, 1'500'000));
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0]["component"], "o.link");
  EXPECT_EQ(r.stats["operations"]["g"]["end_ps"], 1'500'000u);
}

// A Modbus master (1 MBd, 10 bits per character): a request + response is
// 8 + 7 bytes + 2 x 3.5 gap characters = 22 characters = 220 us on the bus;
// the shelf answers in 100 us. The master waits 1 ms for an answer and sends a
// request at most 3 times (2 retries).
std::string modbus_platform(const std::string& down_until) {
  return "platform: m\nelements:\n"
         "  - {name: bus, type: cnuas.mgmt_bus, set: {baud: 1 MHz, bits_per_char: 10, "
         "response_timeout: 1 ms, retries: 2}}\n"
         "  - {name: shelf, type: cnuas.orv3_shelf, set: {supplies: 2, supply_rating: 1 kW, "
         "register_read: 100 us, rack: r}}\n"
         "connections: [bus -> shelf]\n"
         "workload:\n  operations:\n"
         "    - {name: p1, path: [bus, shelf], dims: {requests: 1}}\n"
         "    - {name: p2, path: [bus, shelf], dims: {requests: 1}, start: 600 us}\n"
         "    - {name: p3, path: [bus, shelf], dims: {requests: 1}, start: 1 ms}\n"
         "    - {name: off, event: element_down, target: shelf, start: 500 us}\n"
         "    - {name: on, event: element_up, target: shelf, start: " +
         down_until + "}\n";
}

// Shelf down over [0.5, 2.7) ms. p1 at 0: answered, bus [0, 220), shelf
// [220, 320) us. p2 at 600 us: sent at 600, 1600 and 2600 us, the shelf
// down each time: fails after the third timeout, at 3600 us, having held
// the bus [600, 3600). p3 at 1 ms queues for the bus until 3600 us, finds the
// shelf up: bus [3600, 3820), shelf [3820, 3920) us.
TEST(FailingOutages, ModbusRequestsTimeOutAndFailAfterTheirRetries) {
  const OutageRun r = run_outage_platform("modbus_fails", modbus_platform("2700 us"));
  EXPECT_EQ(r.holds.at("p1"), Span(0, 320 * us));
  EXPECT_EQ(r.holds.at("p2"), Span(600 * us, 3600 * us));
  EXPECT_EQ(r.holds.at("p3"), Span(3600 * us, 3920 * us));
  ASSERT_EQ(r.failures.size(), 1u);
  EXPECT_EQ(r.failures[0]["op"], "p2");
  EXPECT_EQ(r.failures[0]["cause"], "timeout");
  EXPECT_EQ(r.failures[0]["t_ps"], 3600 * us);
  EXPECT_EQ(r.failures[0]["component"], "m.bus");
  const json& bus = r.stats["elements"]["m.bus"];
  EXPECT_FALSE(bus.contains("outages"));  // the bus itself never failed
  EXPECT_EQ(r.stats["operations"]["p2"]["outcome"], "failed");
  EXPECT_EQ(r.stats["operations_failed"], 1);
}

// Shelf down over [0.5, 1.7) ms: p2's third request, at 2600 us, is answered:
// bus [600, 2820) us (two timeouts, then 220 us), shelf [2820, 2920); p3
// then bus [2820, 3040), shelf [3040, 3140) us.
TEST(FailingOutages, ARetriedRequestIsServedOnceTheDeviceAnswers) {
  const OutageRun r = run_outage_platform("modbus_retries", modbus_platform("1700 us"));
  EXPECT_EQ(r.holds.at("p2"), Span(600 * us, 2920 * us));
  EXPECT_EQ(r.holds.at("p3"), Span(2820 * us, 3140 * us));
  EXPECT_TRUE(r.failures.empty());
  EXPECT_EQ(r.stats["operations"]["p2"]["end_ps"], 2920 * us);
  EXPECT_FALSE(r.stats.contains("operations_failed"));
}

// A ring allreduce of 4 MB over four 100 Gbit/s hops (1 us latency): each
// step moves 1 MB, 80 us on a hop, steps 81 us apart. hop[2] fails its
// operations and goes down at 100 us: step 1's transfer on it (held from
// 81 us) fails at 100 us, and the collective fails: what depended on it
// never runs, and `after` waits for the whole collective, so it is cancelled.
TEST(FailingOutages, ACollectiveThatLosesAParticipantFails) {
  const OutageRun r = run_outage_platform(
      "collective_fails",
      "platform: ring4\nelements:\n"
      "  - {name: gpu, type: cnuas.fixed_delay, count: 4, set: {delay: 0 ns}}\n"
      "  - {name: hop, type: cnuas.pipe, count: 4, set: {bandwidth: 100 Gbit/s, "
      "latency: 1 us, on_outage: fail}}\n"
      "connections:\n  - gpu[*] -> hop[*]\n"
      "  - hop[0] -> gpu[1]\n  - hop[1] -> gpu[2]\n  - hop[2] -> gpu[3]\n"
      "  - hop[3] -> gpu[0]\n"
      "workload:\n  operations:\n"
      "    - {name: ar, collective: ring_allreduce, participants: \"gpu[*]\", "
      "dims: {bytes: 4000000}}\n"
      "    - {name: after_ar, path: [\"gpu[0]\"], dims: {bytes: 1}, after: [ar]}\n"
      "    - {name: cut, event: element_down, target: \"hop[2]\", start: 100 us}\n"
      "    - {name: fix, event: element_up, target: \"hop[2]\", start: 1 ms}\n");
  ASSERT_FALSE(r.failures.empty());
  EXPECT_EQ(r.failures[0]["t_ps"], 100 * us);
  EXPECT_EQ(r.failures[0]["component"], "ring4.hop[2]");
  const json& ar = r.stats["collectives"]["ar"];
  EXPECT_EQ(ar["failed"], true);
  EXPECT_FALSE(ar.contains("algbw_GBps"));
  EXPECT_EQ(r.stats["operations"]["after_ar"]["outcome"], "cancelled");
  // 24 transfers + after_ar: each done, failed or cancelled.
  const std::uint64_t failed = r.stats["operations_failed"],
                      cancelled = r.stats["operations_cancelled"];
  EXPECT_EQ(ar["transfers_not_done"].get<std::uint64_t>() + 1, failed + cancelled);
  EXPECT_GE(cancelled, 2u);
}

// A switch port's failure (element_down with `port:`): the port of sw that
// faces y is down over [0, 5) us; the other ports go on. Pipes a, b, x, y and
// the switch's ports all run at 1 GB/s (1000 B hold one 1 us). t1 (a -> sw ->
// x) runs as on a healthy switch; t2 (b -> sw -> y) reaches sw at 1 us and
// waits there until the port is back at 5 us: its switch and y stages, and
// its end, come exactly 4 us later than in the run without the failure.
TEST(FailingOutages, AFailedSwitchPortStopsOnlyItsOwnTraffic) {
  const std::string platform =
      "platform: p\nelements:\n"
      "  - {name: a, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
      "  - {name: b, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
      "  - {name: x, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
      "  - {name: y, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
      "  - {name: sw, type: cnuas.switch, set: {ports: 3, port_rate: 1 GB/s}}\n"
      "connections: [a -> sw, b -> sw, sw -> x, sw -> y]\n"
      "workload:\n  operations:\n"
      "    - {name: t1, path: [a, sw, x], dims: {bytes: 1000}}\n"
      "    - {name: t2, path: [b, sw, y], dims: {bytes: 1000}}\n";
  const OutageRun healthy = run_outage_platform("port_healthy", platform);
  const OutageRun failed = run_outage_platform(
      "port_down", platform +
                       "    - {name: cut, event: element_down, target: sw, port: y, start: 0 ns}\n"
                       "    - {name: fix, event: element_up, target: sw, port: y, start: 5 us}\n");
  EXPECT_EQ(failed.holds.at("t1"), healthy.holds.at("t1"));
  EXPECT_EQ(healthy.stats["operations"]["t2"]["end_ps"].get<std::uint64_t>() + 4 * us,
            failed.stats["operations"]["t2"]["end_ps"].get<std::uint64_t>());
  EXPECT_EQ(failed.holds.at("t2").first, 0u);  // b is not behind the failed port
  for (const TraceRecord& rec : failed.trace.records)
    if (rec.op == "t2" && failed.trace.components[rec.component] == "p.sw") {
      EXPECT_EQ(rec.admitted, 5 * us);
    }
  ASSERT_FALSE(failed.trace.events.empty());
  const json& down = failed.trace.events[0];
  EXPECT_EQ(down["event"], "element_down");
  EXPECT_EQ(down["port"], "p.y");
  // The port facing y: its egress wire to y (sw's second out connection:
  // lane 1); y sends nothing to sw, so there is no ingress wire from it.
  EXPECT_EQ(down["lanes"], json::array({1}));
  EXPECT_EQ(failed.stats["elements"]["p.sw"]["outages"]["spans"], 1);
  EXPECT_EQ(failed.stats["elements"]["p.sw"]["outages"]["down_ps"], 5 * us);
  // With on_outage: fail, t2 fails where it meets the down port: it reaches sw
  // at 1 us (its ingress wire from b is up) and its egress wire to y is down:
  // it fails at 1 us, holding nothing; t1 is untouched.
  std::string failing = platform;
  failing.replace(failing.find("ports: 3,"), 9, "ports: 3, on_outage: fail,");
  const OutageRun lost = run_outage_platform(
      "port_fails", failing +
                        "    - {name: cut, event: element_down, target: sw, port: y, start: 0 ns}\n"
                        "    - {name: fix, event: element_up, target: sw, port: y, start: 5 us}\n");
  EXPECT_EQ(lost.holds.at("t1"), healthy.holds.at("t1"));
  ASSERT_EQ(lost.failures.size(), 1u);
  EXPECT_EQ(lost.failures[0]["op"], "t2");
  EXPECT_EQ(lost.failures[0]["t_ps"], 1 * us);
  EXPECT_EQ(lost.stats["operations"]["t2"]["outcome"], "failed");
  // An element without ports of its own cannot fail one.
  CommandResult r = run_cnuas(
      "run " + write_file("port_of_pipe.yaml",
                          platform + "    - {name: cut, event: element_down, target: a, port: sw, "
                                     "start: 0 ns}\n    - {name: fix, event: element_up, target: "
                                     "a, port: sw, start: 1 us}\n"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("has no port of its own facing"), std::string::npos) << r.err;
}

// Modbus defaults and bad values: a negative timeout is refused where it is written.
TEST(FailingOutages, BadOutageSettingsAreRefused) {
  CommandResult r = run_cnuas(
      "validate " +
      write_file("bad_on_outage.yaml",
                 "platform: o\nelements:\n"
                 "  - {name: link, type: cnuas.pipe, set: {bandwidth: 1 GB/s, on_outage: drop}}\n"
                 "workload:\n  operations:\n    - {name: a, path: [link], dims: {bytes: 1}}\n"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad_on_outage.yaml:3:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("wait, fail"), std::string::npos) << r.err;
  r = run_cnuas("describe cnuas.mgmt_bus");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("response_timeout"), std::string::npos);
  EXPECT_NE(r.out.find("500 ms"), std::string::npos);
}

}  // namespace cnuas
