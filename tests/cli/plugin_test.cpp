// A third-party TLM-2.0 model (no Cnuas base class) on a path: it runs, its
// times come from its own b_transport, and the run keeps one ordered trace.
#include <gtest/gtest.h>

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
  ASSERT_EQ(lines.size(), 1u + 6u);
  // The plugin annotates 20 ns + ceil(100 / 16) ns = 27 ns; dma 100 ns; after 5 ns.
  std::vector<std::uint64_t> ends;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i]["component"] == "plug.vendor") {
      EXPECT_EQ(lines[i]["end_ps"].get<std::uint64_t>() - lines[i]["start_ps"].get<std::uint64_t>(),
                27'000u);
    }
    if (i > 1) {
      EXPECT_GE(lines[i]["t_ps"].get<std::uint64_t>(), lines[i - 1]["t_ps"].get<std::uint64_t>());
    }
    ends.push_back(lines[i]["end_ps"]);
  }
  // w#0: dma 0..100, vendor 100..127, after 127..132; w#1 starts when w#0 completes.
  EXPECT_EQ(lines[3]["end_ps"].get<std::uint64_t>(), 132'000u);
  EXPECT_EQ(lines[4]["op"], "w#1");
  EXPECT_EQ(lines[4]["start_ps"].get<std::uint64_t>(), 132'000u);
  EXPECT_EQ(lines.back()["end_ps"].get<std::uint64_t>(), 264'000u);
}

TEST(Plugin, ListedWithItsOrigin) {
  CommandResult r = run_cnuas(std::string("list-models --plugin ") + CNUAS_EXAMPLE_PLUGIN);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("example.lt_memory"), std::string::npos);
  EXPECT_NE(r.out.find("libcnuas_example_plugin.so"), std::string::npos);
}

}  // namespace cnuas
