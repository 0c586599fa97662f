// End to end: the shipped platforms run, the trace is totally ordered, lanes
// never overlap, stats agree with the trace, and output is deterministic.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "cli/cli_harness.h"
#include "cli/trace_check.h"

namespace cnuas {
using namespace testing_support;
using nlohmann::json;

static std::vector<std::string> shipped_platforms() {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(source_path("platforms")))
    if (entry.path().extension() == ".yaml") out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

static std::string run_to(const std::string& platform, const std::string& dir,
                          const std::string& extra = "") {
  std::string plugin = std::string(" --plugin ") + CNUAS_EXAMPLE_PLUGIN;
  CommandResult r = run_cnuas("run " + platform + " --out " + dir + plugin + " " + extra);
  EXPECT_EQ(r.exit_code, 0) << platform << "\n" << r.err;
  return dir;
}

static void check_trace(const std::string& path, const std::string& platform_name) {
  const TraceFacts facts = check_trace_rules(path);
  EXPECT_EQ(facts.header["platform"], platform_name);
  EXPECT_EQ(facts.header["class"], "analytic");
  EXPECT_FALSE(facts.records.empty());
}

// One test per shipped platform, so each has its own time budget.
class ShippedPlatform : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedPlatform, RunsWithOrderedNonOverlappingTrace) {
  const std::string platform = source_path("platforms/" + GetParam() + ".yaml");
  std::string dir = run_to(platform, scratch_dir() + "/shipped_" + GetParam());
  check_trace(dir + "/trace.jsonl", json::parse(read_file(dir + "/stats.json"))["platform"]);
}

static std::vector<std::string> shipped_platform_names() {
  std::vector<std::string> names;
  for (const auto& p : shipped_platforms())
    names.push_back(std::filesystem::path(p).stem().string());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Run, ShippedPlatform, ::testing::ValuesIn(shipped_platform_names()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

TEST(Run, AtLeastTheFourReferencePlatformsShip) {
  auto names = shipped_platform_names();
  for (const char* expected : {"default", "hgx-h100-server", "rack-4x-hgx", "cluster-1024"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
}

TEST(Run, EveryShippedProfileValidates) {
  int count = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(source_path("profiles"))) {
    if (entry.path().extension() != ".yaml") continue;
    CommandResult r = run_cnuas("validate --profile " + entry.path().string());
    EXPECT_EQ(r.exit_code, 0) << entry.path() << "\n" << r.err;
    ++count;
  }
  EXPECT_GE(count, 6);
}

TEST(Run, DefaultRunWritesSummaryAndAllOutputs) {
  std::string dir = scratch_dir() + "/default";
  std::filesystem::create_directories(dir);
  CommandResult r = run_cnuas("run --out " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("simulated time"), std::string::npos);
  EXPECT_NE(r.out.find("[analytic]"), std::string::npos);
  for (const char* f : {"trace.jsonl", "trace.perfetto.json", "waves.vcd", "stats.json"})
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + f)) << f;
  check_trace(dir + "/trace.jsonl", "default");
}

TEST(Run, SameInputsGiveByteIdenticalOutputs) {
  std::string a = run_to(source_path("platforms/default.yaml"), scratch_dir() + "/det_a");
  std::string b = run_to(source_path("platforms/default.yaml"), scratch_dir() + "/det_b");
  for (const char* f : {"trace.jsonl", "trace.perfetto.json", "waves.vcd", "stats.json"}) {
    std::string x = read_file(a + "/" + f), y = read_file(b + "/" + f);
    EXPECT_FALSE(x.empty()) << f;
    EXPECT_EQ(x, y) << f << " differs between identical runs";
  }
}

TEST(Run, LookaheadChangesNothingButSpeed) {
  for (const char* platform : {"platforms/default.yaml", "platforms/with-plugin.yaml"}) {
    std::string a = run_to(source_path(platform), scratch_dir() + "/look_a");
    std::string b = run_to(source_path(platform), scratch_dir() + "/look_b", "--no-lookahead");
    for (const char* f : {"trace.jsonl", "stats.json", "waves.vcd"})
      EXPECT_EQ(read_file(a + "/" + f), read_file(b + "/" + f)) << platform << " " << f;
  }
}

TEST(Run, StatsAgreeWithTheTrace) {
  std::string dir = run_to(source_path("platforms/default.yaml"), scratch_dir() + "/stats");
  auto lines = read_jsonl(dir + "/trace.jsonl");
  json stats = json::parse(read_file(dir + "/stats.json"));
  EXPECT_EQ(stats["class"], "analytic");
  // Busy time is every lane's held time (free - start); a stage's wait is the
  // sum over the lanes it took (an engine's record comes just before its main one).
  std::map<std::string, std::uint64_t> busy, count, max_wait;
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> op_span;  // min ready, max end
  std::uint64_t makespan = 0, engine_wait = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const json& e = lines[i];
    std::string c = e["component"];
    std::uint64_t start = e["start_ps"], free = e["free_ps"], end = e["end_ps"],
                  ready = e["ready_ps"];
    busy[c] += free - start;
    if (e.contains("part")) {
      engine_wait = start - ready;
      continue;
    }
    ++count[c];
    max_wait[c] = std::max(max_wait[c], engine_wait + start - ready);
    engine_wait = 0;
    makespan = std::max(makespan, end);
    auto& span = op_span.try_emplace(e["op"], ready, end).first->second;
    span.first = std::min(span.first, ready);
    span.second = std::max(span.second, end);
  }
  EXPECT_EQ(stats["makespan_ps"].get<std::uint64_t>(), makespan);
  for (auto& [c, b] : busy) {
    EXPECT_EQ(stats["elements"][c]["busy_ps"].get<std::uint64_t>(), b) << c;
    EXPECT_EQ(stats["elements"][c]["stages"].get<std::uint64_t>(), count[c]) << c;
    EXPECT_EQ(stats["elements"][c]["queue_wait_ps"]["max"].get<std::uint64_t>(), max_wait[c]) << c;
  }
  for (auto& [op, span] : op_span)
    EXPECT_EQ(stats["operations"][op]["latency_ps"].get<std::uint64_t>(), span.second - span.first)
        << op;
}

TEST(Run, PerfettoExportHasOneTrackPerComponentLane) {
  std::string dir = run_to(source_path("platforms/default.yaml"), scratch_dir() + "/perfetto");
  json p = json::parse(read_file(dir + "/trace.perfetto.json"));
  size_t slices = 0, threads = 0;
  for (const json& e : p["traceEvents"]) {
    if (e["ph"] == "X") ++slices;
    if (e["ph"] == "M" && e["name"] == "thread_name") ++threads;
  }
  EXPECT_EQ(slices, read_jsonl(dir + "/trace.jsonl").size());
  // host: 8 lanes; pcie: two ports (host, gpu), each 1 DMA engine and its link; gpu: 2 lanes.
  EXPECT_EQ(threads, 8u + 2u * (1u + 1u) + 2u);
}

TEST(Run, VcdConvertsWithGtkwaveTools) {
  std::string dir = run_to(source_path("platforms/default.yaml"), scratch_dir() + "/vcd");
  std::string vcd = read_file(dir + "/waves.vcd");
  EXPECT_NE(vcd.find("$timescale"), std::string::npos);
  EXPECT_NE(vcd.find("1 ps"), std::string::npos);
  EXPECT_NE(vcd.find("lane0_busy"), std::string::npos);
  EXPECT_NE(vcd.find("queue_depth"), std::string::npos);
  std::string command =
      "vcd2fst " + dir + "/waves.vcd " + dir + "/waves.fst >" + dir + "/vcd2fst.log 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << read_file(dir + "/vcd2fst.log");
  EXPECT_GT(std::filesystem::file_size(dir + "/waves.fst"), 0u);
}

TEST(Run, CommandLineSetChangesTheModel) {
  std::string x16 = run_to(source_path("platforms/default.yaml"), scratch_dir() + "/set_a");
  std::string x8 =
      run_to(source_path("platforms/default.yaml"), scratch_dir() + "/set_b", "--set pcie.width=8");
  auto first_pcie = [](const std::string& dir) {
    for (const json& e : read_jsonl(dir + "/trace.jsonl"))
      if (e.contains("component") && e["component"] == "default.pcie")
        return e["end_ps"].get<std::uint64_t>() - e["start_ps"].get<std::uint64_t>();
    return std::uint64_t{0};
  };
  // 64 MiB in 256 B TLPs: 262144 x 26 B overhead, 73924608 B = 591396864 bit at
  // 16 GT/s x 128/130 per lane: 591396864 x 130 / (16e9 x 128 x 16) s = 2346.24 us on x16.
  EXPECT_EQ(first_pcie(x16), 2'346'240'000u);
  EXPECT_EQ(first_pcie(x8), 4'692'480'000u);
}

}  // namespace cnuas
