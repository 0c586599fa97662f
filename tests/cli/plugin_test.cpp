// A third-party TLM-2.0 model (no Cnuas base class) on a path: it runs, its
// times come from its own b_transport, and the run keeps one ordered trace.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "cli/cli_harness.h"

namespace cnuas {
using namespace testing_support;
using nlohmann::json;

TEST(Plugin, ForeignModelOnAPathJoinsTheOrderedTrace) {
  std::string platform =
      write_file("plug.yaml", std::string("platform: plug\nplugins: [") + CNUAS_EXAMPLE_PLUGIN +
                                  "]\n"
                                  "elements:\n"
                                  "  - {name: dma, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
                                  "  - {name: vendor, type: example.lt_memory}\n"
                                  "  - {name: after, type: cnuas.fixed_delay, set: {delay: 5 ns}}\n"
                                  "connections: [dma -> vendor, vendor -> after]\n"
                                  "workload:\n  operations:\n"
                                  "    - {name: w, path: [dma, vendor, after], dims: {bytes: 100}, "
                                  "repeat: 2}\n");
  std::string trace = scratch_dir() + "/plug.jsonl";
  CommandResult r = run_cnuas("run " + platform + " --trace " + trace);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto lines = read_jsonl(trace);
  ASSERT_EQ(lines.size(), 6u);
  // The plugin annotates 20 ns + ceil(100 / 16) ns = 27 ns; dma 100 ns; after 5 ns.
  std::vector<std::uint64_t> ends;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i]["component"] == "plug.vendor") {
      EXPECT_EQ(lines[i]["end_ps"].get<std::uint64_t>() - lines[i]["start_ps"].get<std::uint64_t>(),
                27'000u);
    }
    if (i > 0) {
      EXPECT_GE(lines[i]["t_ps"].get<std::uint64_t>(), lines[i - 1]["t_ps"].get<std::uint64_t>());
    }
    ends.push_back(lines[i]["end_ps"]);
  }
  // w#0: dma 0..100, vendor 100..127, after 127..132; w#1 starts when w#0 completes.
  EXPECT_EQ(lines[2]["end_ps"].get<std::uint64_t>(), 132'000u);
  EXPECT_EQ(lines[3]["op"], "w#1");
  EXPECT_EQ(lines[3]["start_ps"].get<std::uint64_t>(), 132'000u);
  EXPECT_EQ(lines.back()["end_ps"].get<std::uint64_t>(), 264'000u);
}

// Runs `command` with /bin/sh and returns its peak resident set in KiB
// (wait4 reports the rusage of that one child), or -1 when it failed.
long peak_rss_kib(const std::string& command) {
  const pid_t pid = fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (pid < 0 || wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    return -1;
  return usage.ru_maxrss;
}

// The request's data buffer is real but lazily mapped: a 3 GiB write to the
// example model (which touches at most its own 1 MiB) must not cost 3 GB of
// host memory (it did: 2 GiB gave 2.1 GB RSS). The model's time is its own:
// 20 ns + ceil(3 GiB / 16) ns.
TEST(Plugin, LargeRequestsCostHostMemoryOnlyForWhatTheModelTouches) {
  const std::string platform = write_file(
      "plug_big.yaml", std::string("platform: plug_big\nplugins: [") + CNUAS_EXAMPLE_PLUGIN +
                           "]\nelements:\n  - {name: vendor, type: example.lt_memory}\n"
                           "workload:\n  operations:\n"
                           "    - {name: w, path: [vendor], dims: {bytes: 3 GiB}}\n");
  const std::string stats = scratch_dir() + "/plug_big.json";
  const long kib =
      peak_rss_kib(std::string(CNUAS_BINARY) + " run " + platform + " --stats " + stats);
  ASSERT_GT(kib, 0) << "the run failed";
  EXPECT_LT(kib, 200 * 1024) << kib << " KiB resident";
  std::ifstream in(stats);
  const json s = json::parse(in);
  EXPECT_EQ(s["makespan_ps"].get<std::uint64_t>(), 20'000u + ((3ull << 30) + 15) / 16 * 1000u);
}

TEST(Plugin, ListedWithItsOrigin) {
  CommandResult r = run_cnuas(std::string("list-models --plugin ") + CNUAS_EXAMPLE_PLUGIN);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("example.lt_memory"), std::string::npos);
  EXPECT_NE(r.out.find("libcnuas_example_plugin.so"), std::string::npos);
}

}  // namespace cnuas
