// What the summaries print reads as a person would write it: counts agree with
// their nouns, paths carry no doubled separator, units are spelled as users do.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/cli_harness.h"

namespace cnuas {
using namespace testing_support;

static const char* kOnePipe =
    "platform: p\nelements:\n  - {name: a, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
    "workload:\n  operations:\n    - {name: x, path: [a], dims: {bytes: 10}}\n";

TEST(SummaryWording, OneElementOneOperationOneStageAreSingular) {
  CommandResult r = run_cnuas("run " + write_file("one.yaml", kOnePipe));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(1 element)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(1 operation)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(1 stage booked"), std::string::npos) << r.out;
}

TEST(SummaryWording, OutDirectoryWithTrailingSlashGivesSinglePaths) {
  const std::string dir = scratch_dir() + "/slash";
  CommandResult r = run_cnuas("run " + write_file("one.yaml", kOnePipe) + " --out " + dir + "/");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("//"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(dir + "/trace.jsonl"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir + "/stats.json"));
}

TEST(SummaryWording, BitRateSpelledGbPerSecondRunsLikeGbit) {
  // 1000 B at 1 Gb/s = 8000 bit / 1e9 bit/s = 8 us (printed without trailing
  // zeros); at 1 Gbit/s the same.
  const auto platform = [](const std::string& rate) {
    return "platform: p\nelements:\n  - {name: a, type: cnuas.pipe, set: {bandwidth: " + rate +
           "}}\nworkload:\n  operations:\n    - {name: x, path: [a], dims: {bytes: 1000}}\n";
  };
  for (const char* rate : {"1 Gb/s", "1 Gbps", "1 Gbit/s", "0.125 GB/s", "0.125 GBps"}) {
    CommandResult r = run_cnuas("run " + write_file("rate.yaml", platform(rate)));
    ASSERT_EQ(r.exit_code, 0) << rate << ": " << r.err;
    EXPECT_NE(r.out.find("simulated time: 8 us"), std::string::npos) << rate << ": " << r.out;
  }
}

}  // namespace cnuas
