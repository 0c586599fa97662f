// The fields every element has besides power: `trace` (its stages in the trace
// files or not) and `log` (its message level, or the run's).
#include <gtest/gtest.h>

#include "cli/cli_harness.h"

namespace cnuas {
using namespace testing_support;
using nlohmann::json;

// x crosses a (1 GB/s) then b (2 GB/s), serially, twice; 1000 B each time:
// a takes 1000 ns, b 500 ns, so x#0 runs 0..1.5 us and x#1 1.5..3 us.
static std::string two_pipes(const std::string& a_fields, const std::string& b_fields) {
  return "platform: p\nelements:\n"
         "  - {name: a, type: cnuas.pipe, set: {bandwidth: 1 GB/s" +
         a_fields +
         "}}\n"
         "  - {name: b, type: cnuas.pipe, set: {bandwidth: 2 GB/s" +
         b_fields +
         "}}\n"
         "connections: [a -> b]\n"
         "workload:\n  operations:\n"
         "    - {name: x, path: [a, b], dims: {bytes: 1000}, repeat: 2}\n";
}

static std::vector<json> stages_of(const std::vector<json>& trace, const std::string& component) {
  std::vector<json> out;
  for (const json& line : trace)
    if (line["component"] == component) out.push_back(line);
  return out;
}

TEST(ElementSwitches, TraceFalseKeepsStagesOutOfTheTraceButInTheStats) {
  const std::string on = scratch_dir() + "/trace_on", off = scratch_dir() + "/trace_off";
  CommandResult r = run_cnuas("run " + write_file("on.yaml", two_pipes("", "")) + " --out " + on);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_cnuas("run " + write_file("off.yaml", two_pipes("", ", trace: false")) + " --out " + off);
  ASSERT_EQ(r.exit_code, 0) << r.err;

  // Control: with the default, b's two stages are in the trace (500 ns each).
  const auto traced = read_jsonl(on + "/trace.jsonl");
  ASSERT_EQ(stages_of(traced, "p.b").size(), 2u);
  EXPECT_EQ(stages_of(traced, "p.b")[0]["end_ps"].get<std::uint64_t>(), 1'500'000u);

  // trace: false: b's stages are gone, a's are all there, the header (in metadata.json)
  // counts what is listed.
  const auto trace = read_jsonl(off + "/trace.jsonl");
  EXPECT_TRUE(stages_of(trace, "p.b").empty());
  const auto a = stages_of(trace, "p.a");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0]["end_ps"].get<std::uint64_t>(), 1'000'000u);
  EXPECT_EQ(a[1]["start_ps"].get<std::uint64_t>(), 1'500'000u);  // after x#0 left b
  EXPECT_EQ(json::parse(read_file(off + "/metadata.json"))["trace_header"]["events"], trace.size());
  const std::string perfetto = read_file(off + "/trace.perfetto.json");
  EXPECT_EQ(perfetto.find("\"stage\":1"), std::string::npos) << "b's stages in Perfetto";

  // Stats still count b: 2 stages, 2 x 500 ns busy, and the timing is unchanged,
  // so the stats are byte for byte those of the traced run.
  const json stats = json::parse(read_file(off + "/stats.json"));
  EXPECT_EQ(stats["elements"]["p.b"]["stages"], 2);
  EXPECT_EQ(stats["elements"]["p.b"]["busy_ps"], 1'000'000);
  EXPECT_EQ(stats["makespan_ps"], 3'000'000);
  EXPECT_EQ(read_file(off + "/stats.json"), read_file(on + "/stats.json"));
}

TEST(ElementSwitches, LogLevelFiltersPerElement) {
  // a asks for debug, b inherits the run's level (warning): only a's bookings are written.
  CommandResult r = run_cnuas("run " + write_file("log1.yaml", two_pipes(", log: debug", "")) +
                              " --stats " + scratch_dir() + "/log1.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("cnuas: debug: p.a (cnuas.pipe): booked 'x#0' stage 0 on lane 0: ready 0 "
                       "ps, start 0 ps, free 1000000 ps, end 1000000 ps\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("p.a (cnuas.pipe): booked 'x#1' stage 0"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("p.b ("), std::string::npos) << r.err;

  // The run at debug, a quiet: now only b's bookings (x#0 reaches b at 1 us, leaves at 1.5 us).
  r = run_cnuas("run " + write_file("log2.yaml", two_pipes(", log: quiet", "")) +
                " --log debug --stats " + scratch_dir() + "/log2.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("cnuas: debug: p.b (cnuas.pipe): booked 'x#0' stage 1 on lane 0: ready "
                       "1000000 ps, start 1000000 ps, free 1500000 ps, end 1500000 ps\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("p.a ("), std::string::npos) << r.err;

  // Default everywhere: nothing on stderr.
  r = run_cnuas("run " + write_file("log3.yaml", two_pipes("", "")) + " --stats " + scratch_dir() +
                "/log3.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST(ElementSwitches, BadLevelsAreInputErrors) {
  CommandResult r = run_cnuas("run " + write_file("log4.yaml", two_pipes(", log: loud", "")));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("log4.yaml:3:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("inherit, quiet, warning, info, debug"), std::string::npos) << r.err;
  r = run_cnuas("run " + write_file("log5.yaml", two_pipes("", "")) + " --log verbose");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("quiet, warning, info, debug"), std::string::npos) << r.err;
}

}  // namespace cnuas
