// Rack power roll-up against an ORV3 shelf: alarms, supply failure, battery.
#include <gtest/gtest.h>

#include <sstream>

#include "cli/cli_harness.h"

namespace cnuas {
using namespace testing_support;
using nlohmann::json;

// One 2-lane compute element (500 W idle, +1000 W per busy lane) in rack r0, fed
// by 3 x 1 kW supplies with N+1 redundancy (rated 2 kW). Operation a busies one
// lane over [0, 10) ms, b the other over [5, 15) ms: the rack draws 1500 W, then
// 2500 W over [5, 10) ms, then 1500 W. A supply fails at 6 ms.
static std::string rack_platform(const std::string& battery) {
  return "platform: rackp\n"
         "elements:\n"
         "  - {name: gpu, type: cnuas.compute, set: {lanes: 2, rate: 1 TFLOP/s, idle_power: 500 "
         "W,\n"
         "     active_power: 1000 W, rack: r0}}\n"
         "  - {name: shelf, type: cnuas.orv3_shelf, set: {supplies: 3, supply_rating: 1 kW, "
         "redundancy: 1,\n"
         "     efficiency: 100 %, battery_capacity: " +
         battery +
         ", switchover_time: 1 ms, rack: r0}}\n"
         "  - {name: bmc, type: cnuas.bmc, set: {sensor_read: 1 ms, redfish_get: 20 ms, "
         "ipmi_command: 2 ms}}\n"
         "  - {name: bus, type: cnuas.mgmt_bus, set: {baud: 19200 baud}}\n"
         "connections: [bmc -> bus, bus -> shelf]\n"
         "workload:\n"
         "  operations:\n"
         "    - {name: a, path: [gpu], dims: {flops: 10 GFLOP}}\n"
         "    - {name: b, path: [gpu], dims: {flops: 10 GFLOP}, start: 5 ms}\n"
         "    - {name: psu, event: supply_failure, target: shelf, start: 6 ms}\n"
         "    - {name: poll, path: [bmc, bus, shelf], request: sensor_read, dims: {requests: 1}}\n";
}

struct PowerRun {
  json stats;
  std::vector<json> events;  // power events from the trace, in trace order
};

static PowerRun run(const std::string& name, const std::string& battery) {
  const std::string stats = scratch_dir() + "/" + name + ".json",
                    trace = scratch_dir() + "/" + name + ".jsonl";
  CommandResult r = run_cnuas("run " + write_file(name + ".yaml", rack_platform(battery)) +
                              " --stats " + stats + " --trace " + trace);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  PowerRun out{json::parse(read_file(stats)), {}};
  for (const json& line : read_jsonl(trace))
    if (line.contains("event")) out.events.push_back(line);
  return out;
}

static std::vector<std::pair<std::string, std::uint64_t>> names_and_times(
    const std::vector<json>& events) {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for (const json& e : events) out.emplace_back(e["event"], e["t_ps"]);
  return out;
}

TEST(Power, AlarmFailureBatteryTakeoverAndDepletion) {
  // Over rated capacity at 5 ms. The failure at 6 ms leaves 2 kW for 2.5 kW: the
  // battery takes over after the 1 ms switchover, carries the 500 W deficit, and
  // its 0.5 J last exactly 1 ms. The rack's elements stop at 8 ms: a and b,
  // both running, fail (power never comes back: the two working supplies
  // cannot carry the 2.5 kW the rack drew), the load falls to the 500 W idle
  // draw the alarm sees, and the poll that reaches the unpowered shelf at
  // 1 ms (BMC) + 22 x 11 bits at 19200 baud = 13.604166667 ms fails too.
  PowerRun r = run("deplete", "0.5 J");
  const std::uint64_t ms = 1'000'000'000;
  const std::vector<std::pair<std::string, std::uint64_t>> expected = {
      {"over_capacity", 5 * ms},
      {"supply_failure", 6 * ms},
      {"redundancy_lost", 6 * ms},
      {"supply_shortfall", 6 * ms},
      {"battery_takeover", 7 * ms},
      {"operation_failed", 8 * ms},
      {"operation_failed", 8 * ms},
      {"battery_depleted", 8 * ms},
      {"power_loss", 8 * ms},
      {"over_capacity_cleared", 8 * ms},
      {"operation_failed", 13'604'166'667}};
  EXPECT_EQ(names_and_times(r.events), expected);
  // over_capacity names the rated capacity it exceeded: (3 - 1 in reserve) x 1 kW,
  // although all three supplies still work (3 kW) at 5 ms.
  EXPECT_EQ(r.events[0]["capacity_w"], 2000.0);
  EXPECT_EQ(r.events[0]["load_w"], 2500.0);
  EXPECT_EQ(r.events[1]["capacity_w"], 2000.0);  // what the two working supplies deliver
  EXPECT_EQ(r.events[4]["load_w"], 2500.0);
  EXPECT_EQ(r.events[1]["component"], "rackp.shelf");
  const json& rack = r.stats["power"]["racks"]["r0"];
  EXPECT_EQ(rack["peak_w"], 2500.0);
  EXPECT_EQ(rack["peak_at_ps"], 5 * ms);
  // No energy reaches the rack once power is lost at 8 ms:
  // 1.5 kW x 5 ms + 2.5 kW x 3 ms.
  EXPECT_EQ(rack["energy_j"], 15.0);
}

TEST(Power, BatteryCarriesTheDeficitUntilTheLoadDrops) {
  PowerRun r = run("carry", "10 J");
  const std::uint64_t ms = 1'000'000'000;
  auto events = names_and_times(r.events);
  ASSERT_EQ(events.size(), 8u);
  EXPECT_EQ(events[4], std::make_pair(std::string("battery_takeover"), 7 * ms));
  EXPECT_EQ(events[5], std::make_pair(std::string("over_capacity_cleared"), 10 * ms));
  EXPECT_EQ(events[6], std::make_pair(std::string("supply_shortfall_cleared"), 10 * ms));
  EXPECT_EQ(events[7], std::make_pair(std::string("battery_released"), 10 * ms));
  EXPECT_EQ(r.events[7]["battery_j"], 8.5);  // 10 J - 500 W x 3 ms
}

TEST(Power, ABatteryThatEmptiesAfterTheLastEventIsReported) {
  // a alone busies one lane over [0, 10) ms: 1.5 kW, then the 500 W idle draw.
  // All AC is lost at 2 ms: no supply works, the battery takes over at 3 ms and
  // carries 1.5 kW for 7 ms (10.5 J of its 20 J), then 500 W: the other 9.5 J
  // last 19 ms more. It empties at 29 ms, long after the run's last stage.
  std::string p = rack_platform("20 J");
  const auto line = [&](const std::string& start) {
    const std::size_t at = p.find(start);
    return std::make_pair(at, p.find('\n', at) + 1 - at);
  };
  for (const char* gone : {"    - {name: poll", "    - {name: b,"}) {
    const auto [at, length] = line(gone);
    p.erase(at, length);
  }
  const auto [psu, psu_length] = line("    - {name: psu");
  p.replace(psu, psu_length, "    - {name: psu, event: ac_loss, target: shelf, start: 2 ms}\n");
  const std::string stats = scratch_dir() + "/late.json";
  CommandResult r = run_cnuas("run " + write_file("late.yaml", p) + " --stats " + stats);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json s = json::parse(read_file(stats));
  const std::uint64_t ms = 1'000'000'000;
  EXPECT_EQ(s["makespan_ps"], 10 * ms);
  const json& events = s["power"]["events"];
  std::vector<std::pair<std::string, std::uint64_t>> got;
  for (const json& e : events) got.emplace_back(e["event"], e["t_ps"]);
  const std::vector<std::pair<std::string, std::uint64_t>> expected = {
      {"ac_loss", 2 * ms},          {"redundancy_lost", 2 * ms},   {"supply_shortfall", 2 * ms},
      {"battery_takeover", 3 * ms}, {"battery_depleted", 29 * ms}, {"power_loss", 29 * ms}};
  EXPECT_EQ(got, expected);
  EXPECT_EQ(events[4]["battery_j"], 0.0);
  EXPECT_EQ(events[4]["load_w"], 500.0);
  // Until the run ends the battery delivers all of it: 1.5 kW x 10 ms.
  EXPECT_EQ(s["power"]["racks"]["r0"]["energy_j"], 15.0);
}

TEST(Power, BmcPollReadsTheRackLoad) {
  // The poll completes after 1 ms at the BMC and one 12.604 ms Modbus transaction: the rack
  // draws 1.5 kW then.
  PowerRun r = run("poll", "10 J");
  const json& telemetry = r.stats["power"]["racks"]["r0"]["telemetry"];
  ASSERT_EQ(telemetry.size(), 1u);
  EXPECT_EQ(telemetry[0]["t_ps"], 1'000'000'000u + 12'604'166'667u);
  EXPECT_EQ(telemetry[0]["load_w"], 1500.0);
}

// The value a VCD variable holds after the last change at or before `t_ps`.
static std::uint64_t vcd_value(const std::string& vcd, const std::string& var, std::uint64_t t_ps) {
  const auto decl = vcd.find(var);
  const auto line_start = vcd.rfind("$var", decl);
  std::istringstream decl_line(vcd.substr(line_start, decl - line_start));
  std::string word, width, id;
  decl_line >> word >> word >> width >> id;
  std::istringstream in(vcd);
  std::string line;
  std::uint64_t now = 0, value = 0;
  while (std::getline(in, line)) {
    if (line.size() > 1 && line[0] == '#') now = std::stoull(line.substr(1));
    if (now > t_ps) break;
    if (line.size() > id.size() + 2 && line[0] == 'b' &&
        line.compare(line.size() - id.size(), id.size(), id) == 0 &&
        line[line.size() - id.size() - 1] == ' ')
      value = std::stoull(line.substr(1, line.size() - id.size() - 2), nullptr, 2);
  }
  return value;
}

TEST(Power, VcdCarriesRackPowerInMilliwatts) {
  const std::string vcd = scratch_dir() + "/power.vcd";
  CommandResult r =
      run_cnuas("run " + write_file("pv.yaml", rack_platform("1 J")) + " --vcd " + vcd);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_file(vcd);
  const std::uint64_t ms = 1'000'000'000;
  EXPECT_EQ(vcd_value(text, "r0_mW", 0), 1'500'000u);       // 500 W idle + one busy lane
  EXPECT_EQ(vcd_value(text, "r0_mW", 5 * ms), 2'500'000u);  // both lanes busy
  // 1 J carries the 500 W deficit from 7 ms for 2 ms: power is lost at 9 ms
  // for good (2 kW cannot carry the 2.5 kW drawn then): the rack draws nothing.
  EXPECT_EQ(vcd_value(text, "r0_mW", 8 * ms), 2'500'000u);
  EXPECT_EQ(vcd_value(text, "r0_mW", 12 * ms), 0u);
  EXPECT_EQ(vcd_value(text, "platform_mW", 16 * ms), 0u);
}

// Counter tracks in the Perfetto trace: one 1-lane element (500 W idle, +1000 W
// while busy) given three 10 ms operations at once (10 GFLOP at 1 TFLOP/s):
// they run back to back over [0, 30) ms. Power: 1500 W from 0, 500 W from 30 ms.
// Queue depth: 2 waiting at 0, 1 from 10 ms, 0 from 20 ms.
TEST(Power, PerfettoHasPowerAndQueueDepthCountersPerElement) {
  const std::string platform =
      "platform: counters\n"
      "elements:\n"
      "  - {name: gpu, type: cnuas.compute, set: {lanes: 1, rate: 1 TFLOP/s, idle_power: 500 W, "
      "active_power: 1000 W}}\n"
      "workload:\n"
      "  operations:\n"
      "    - {name: a, path: [gpu], dims: {flops: 10 GFLOP}}\n"
      "    - {name: b, path: [gpu], dims: {flops: 10 GFLOP}}\n"
      "    - {name: c, path: [gpu], dims: {flops: 10 GFLOP}}\n";
  const std::string out = scratch_dir() + "/counters.perfetto.json";
  CommandResult r =
      run_cnuas("run " + write_file("counters.yaml", platform) + " --perfetto " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json p = json::parse(read_file(out));
  int gpu_pid = -1;
  for (const json& e : p["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "process_name" && e["args"]["name"] == "counters.gpu")
      gpu_pid = e["pid"];
  ASSERT_NE(gpu_pid, -1) << p.dump();
  std::vector<std::pair<double, double>> power, queue;  // (us, value)
  for (const json& e : p["traceEvents"]) {
    if (e["ph"] != "C") continue;
    EXPECT_EQ(e["pid"], gpu_pid);
    if (e["name"] == "power") power.emplace_back(e["ts"], e["args"]["W"]);
    if (e["name"] == "queue depth") queue.emplace_back(e["ts"], e["args"]["stages"]);
  }
  EXPECT_EQ(power, (std::vector<std::pair<double, double>>{{0, 1500}, {30000, 500}}));
  EXPECT_EQ(queue, (std::vector<std::pair<double, double>>{{0, 2}, {10000, 1}, {20000, 0}}));
}

TEST(Power, SupplyEventsAreChecked) {
  std::string p = rack_platform("1 J");
  std::string bad = p;
  bad.replace(bad.find("target: shelf"), 13, "target: gpu");
  CommandResult r = run_cnuas("run " + write_file("bad_target.yaml", bad));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not a power shelf"), std::string::npos) << r.err;
  bad = p;
  bad.replace(bad.find("supply_failure"), 14, "supply_fail");
  r = run_cnuas("run " + write_file("bad_kind.yaml", bad));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean 'supply_failure'"), std::string::npos) << r.err;
}

}  // namespace cnuas

namespace cnuas {
using namespace testing_support;

// A GPU kernel timed by the detailed model carries its counted energy: the
// rack draws idle power plus that energy, not active_power over the kernel.
TEST(Power, GpuKernelsDrawTheirCountedEnergy) {
  auto energy = [](const std::string& dims) {
    const std::string platform =
        "platform: gpup\n"
        "elements:\n"
        "  - {name: gpu, type: cnuas.gpu, set: {peak_rate: 1 TFLOP/s, memory_bandwidth: 1 TB/s,\n"
        "     idle_power: 100 W, active_power: 500 W, rack: r0}}\n"
        "workload:\n"
        "  operations:\n"
        "    - {name: k, path: [gpu], dims: {" +
        dims + "}}\n";
    const std::string stats = scratch_dir() + "/gpu_energy.json";
    CommandResult r =
        run_cnuas("run " + write_file("gpu_energy.yaml", platform) + " --stats " + stats);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(read_file(stats))["power"]["racks"]["r0"]["energy_j"]
        .get<double>();
  };
  // 10 us: idle 100 W x 10 us = 1 mJ, plus 2 mJ counted, or plus 500 W x 10 us = 5 mJ.
  EXPECT_DOUBLE_EQ(energy("device_time: 10 us, device_energy: 2 mJ"), 0.003);
  EXPECT_DOUBLE_EQ(energy("device_time: 10 us"), 0.006);
}

// Supply events reach the shelf their target names, by its full instance
// name: `shelf` is the top-level one only (it used to hit every element whose
// short name is shelf), `inner.shelf` the nested one (it used to be dropped).
TEST(Power, SupplyEventsReachTheShelfTheirFullNameNames) {
  write_file("inner_rack.yaml",
             "platform: inner_rack\nelements:\n"
             "  - {name: shelf, type: cnuas.orv3_shelf, set: {supplies: 3, supply_rating: 1 kW, "
             "rack: r1}}\n"
             "  - {name: load, type: cnuas.compute, set: {rate: 1 TFLOP/s, idle_power: 100 W, "
             "rack: r1}}\n");
  const std::string platform = write_file(
      "two_racks.yaml",
      "platform: two_racks\nelements:\n"
      "  - {name: shelf, type: cnuas.orv3_shelf, set: {supplies: 3, supply_rating: 1 kW, rack: "
      "r0}}\n"
      "  - {name: gpu, type: cnuas.compute, set: {rate: 1 TFLOP/s, idle_power: 100 W, rack: r0}}\n"
      "  - {name: inner, platform: inner_rack.yaml}\n"
      "workload:\n  operations:\n"
      "    - {name: run, path: [gpu], dims: {flops: 10 GFLOP}}\n"
      "    - {name: nested, event: supply_failure, target: inner.shelf, start: 1 ms}\n"
      "    - {name: top, event: supply_failure, target: shelf, start: 2 ms, supplies: 2}\n");
  const std::string trace = scratch_dir() + "/two_racks.jsonl";
  CommandResult r = run_cnuas("run " + platform + " --trace " + trace);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::pair<std::string, std::uint64_t>> failures;
  for (const json& line : read_jsonl(trace))
    if (line.contains("event") && line["event"] == "supply_failure")
      failures.emplace_back(line["component"], line["t_ps"]);
  const std::uint64_t ms = 1'000'000'000;
  const std::vector<std::pair<std::string, std::uint64_t>> expected = {
      {"two_racks.inner.shelf", 1 * ms}, {"two_racks.shelf", 2 * ms}};
  EXPECT_EQ(failures, expected);
}

// An alarm clears only below the limit less the hysteresis. A rack of a GPU
// (10 W idle, +1000 W busy) and a fan drawing 980 W, fed by 2 x 1 kW supplies,
// N+1 (rated 1 kW): 1990 W during each 1 ms burst (at 0, 2 and 4 ms), 990 W
// between. 990 W is under the rated 1 kW but not under 980 W, the level a 2 %
// hysteresis clears at: with 0 % the alarm clears at every dip, with 2 % it
// is raised once and stays.
TEST(Power, AlarmsClearOnlyBelowTheHysteresis) {
  auto events_with = [](const std::string& hysteresis) {
    const std::string p = write_file(
        "hyst.yaml",
        "platform: hyst\nelements:\n"
        "  - {name: gpu, type: cnuas.compute, set: {rate: 1 TFLOP/s, idle_power: 10 W, "
        "active_power: 1000 W, rack: r0}}\n"
        "  - {name: fan, type: cnuas.compute, set: {rate: 1 TFLOP/s, idle_power: 980 W, rack: "
        "r0}}\n"
        "  - {name: shelf, type: cnuas.orv3_shelf, set: {supplies: 2, supply_rating: 1 kW, "
        "redundancy: 1, efficiency: 100 %, alarm_hysteresis: " +
            hysteresis +
            ", rack: r0}}\n"
            "workload:\n  operations:\n"
            "    - {name: burst, path: [gpu], dims: {flops: 1 GFLOP}, repeat: 3, interval: 2 "
            "ms}\n");
    const std::string stats = scratch_dir() + "/hyst.json";
    CommandResult r = run_cnuas("run " + p + " --stats " + stats);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const json s = json::parse(read_file(stats));
    std::vector<std::pair<std::string, std::uint64_t>> got;
    for (const json& e : s["power"]["events"]) got.emplace_back(e["event"], e["t_ps"]);
    return got;
  };
  const std::uint64_t ms = 1'000'000'000;
  using Events = std::vector<std::pair<std::string, std::uint64_t>>;
  EXPECT_EQ(events_with("0 %"), (Events{{"over_capacity", 0},
                                        {"over_capacity_cleared", 1 * ms},
                                        {"over_capacity", 2 * ms},
                                        {"over_capacity_cleared", 3 * ms},
                                        {"over_capacity", 4 * ms},
                                        {"over_capacity_cleared", 5 * ms}}));
  EXPECT_EQ(events_with("2 %"), (Events{{"over_capacity", 0}}));
}

}  // namespace cnuas
