// `cnuas sweep`: every combination of the varied values, one CSV row each.
#include <sstream>

#include <gtest/gtest.h>

#include "cli/cli_harness.h"
#include "cli/tiny_platform.h"

namespace cnuas {
using namespace testing_support;

TEST(Sweep, RunsTheCrossProductInOrderWithOneRowPerPoint) {
  const std::string dir = scratch_dir() + "/sweep_a";
  const CommandResult r = run_cnuas(
      "sweep " + tiny_platform() +
      " --vary 'wire.bandwidth=8,16 Gbit/s' --vary 'wire.latency=1,2 us' -j 2 --out " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::istringstream csv(read_file(dir + "/sweep.csv"));
  std::vector<std::string> lines;
  for (std::string line; std::getline(csv, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 5u) << read_file(dir + "/sweep.csv");
  EXPECT_EQ(lines[0].rfind("point,wire.bandwidth,wire.latency,exit_status,makespan_ps,", 0), 0u)
      << lines[0];
  // Two sends one after the other, each 1000 B / bandwidth + latency:
  // 8 Gbit/s = 1 B/ns: 1 us + 1 us -> 4 us; 1 us + 2 us -> 6 us;
  // 16 Gbit/s: 0.5 us + 1 us -> 3 us; 0.5 us + 2 us -> 5 us.
  EXPECT_EQ(lines[1].rfind("0,8 Gbit/s,1 us,0,4000000,", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2].rfind("1,8 Gbit/s,2 us,0,6000000,", 0), 0u) << lines[2];
  EXPECT_EQ(lines[3].rfind("2,16 Gbit/s,1 us,0,3000000,", 0), 0u) << lines[3];
  EXPECT_EQ(lines[4].rfind("3,16 Gbit/s,2 us,0,5000000,", 0), 0u) << lines[4];
  // The operation group's figures: send's mean latency is half the makespan;
  // its rate 2 sends / 4 us = 500000 per second.
  EXPECT_NE(lines[0].find("send.latency_mean_ps"), std::string::npos);
  EXPECT_NE(lines[1].find(",2000000.0,"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find(",500000"), std::string::npos) << lines[1];
  // Each point's outputs in its own directory.
  EXPECT_NE(read_file(dir + "/point-3/stats.json").find("\"makespan_ps\": 5000000"),
            std::string::npos);
  EXPECT_FALSE(read_file(dir + "/point-0/metadata.json").empty());
}

TEST(Sweep, SameCsvWhateverTheParallelism) {
  const std::string one = scratch_dir() + "/sweep_j1", four = scratch_dir() + "/sweep_j4";
  const std::string vary = " --vary 'wire.latency=1,2,3,4 us' --out ";
  ASSERT_EQ(run_cnuas("sweep " + tiny_platform() + vary + one + " -j 1").exit_code, 0);
  ASSERT_EQ(run_cnuas("sweep " + tiny_platform() + vary + four + " -j 4").exit_code, 0);
  EXPECT_EQ(read_file(one + "/sweep.csv"), read_file(four + "/sweep.csv"));
}

TEST(Sweep, BadValuesStopBeforeAnyRunWithTheirMessage) {
  const std::string dir = scratch_dir() + "/sweep_bad";
  CommandResult r =
      run_cnuas("sweep " + tiny_platform() + " --vary 'wire.bandwidth=8,fast Gbit/s' --out " + dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("fast"), std::string::npos) << r.err;
  EXPECT_FALSE(std::ifstream(dir + "/point-0/run.log").good());
  r = run_cnuas("sweep " + tiny_platform() + " --vary bandwidth");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("ELEMENT.FIELD=V1,V2"), std::string::npos) << r.err;
}

}  // namespace cnuas
