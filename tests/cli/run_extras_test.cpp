// Smaller things users of other simulators expect: collective results in the
// summary and table, a progress line on terminals only, `describe` listing
// the shipped profiles, bash completion.
#include <cstdio>
#include <filesystem>
#include <regex>

#include <gtest/gtest.h>

#include "cli/cli_harness.h"

namespace cnuas {
using namespace testing_support;
using nlohmann::json;

// gpu[i] -> hop[i] -> gpu[i+1], each hop 1 us + bytes / 100 Gbit/s (as in collective_test.cpp).
static std::string ring(const std::string& collective) {
  return write_file(collective + "_ring.yaml",
                    "platform: ring4\n"
                    "elements:\n"
                    "  - {name: gpu, type: cnuas.fixed_delay, count: 4, set: {delay: 0 ns}}\n"
                    "  - {name: hop, type: cnuas.pipe, count: 4, set: {bandwidth: 100 Gbit/s, "
                    "latency: 1 us}}\n"
                    "connections:\n"
                    "  - gpu[*] -> hop[*]\n"
                    "  - hop[0] -> gpu[1]\n  - hop[1] -> gpu[2]\n  - hop[2] -> gpu[3]\n"
                    "  - hop[3] -> gpu[0]\n"
                    "workload:\n  operations:\n"
                    "    - {name: c, collective: " +
                        collective + ", participants: \"gpu[*]\", dims: {bytes: 4000000}}\n");
}

TEST(CollectiveResults, SummaryAndTableGiveTimeAlgbwAndBusbw) {
  // Allreduce of 4 MB on 4 ranks: 2(n-1)/n x 320 us + 6 x 1 us = 486 us;
  // algbw = 4e6 B / 486 us = 8.2304... GB/s; busbw = algbw x 2 x 3 / 4 = 12.3456... GB/s,
  // cut (not rounded) to 3 decimals.
  const std::string dir = scratch_dir() + "/ring_ar";
  CommandResult r = run_cnuas("run " + ring("ring_allreduce") + " --out " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("collective c: ring_allreduce of 4 ranks, 4000000 B in 486 us: "
                       "algbw 8.230 GB/s, busbw 12.345 GB/s"),
            std::string::npos)
      << r.out;
  const std::string csv = read_file(dir + "/stats.csv");
  EXPECT_NE(csv.find(",4,4000000,486000000,8.23,12.345\n"), std::string::npos) << csv;
  // Allgather: (n-1)/n x 320 us + 3 us = 243 us; algbw 16.4609... GB/s;
  // busbw = algbw x 3 / 4 = 12.3456... GB/s.
  r = run_cnuas("run " + ring("ring_allgather") + " --stats " + scratch_dir() + "/ag.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ring_allgather of 4 ranks, 4000000 B in 243 us: algbw 16.460 GB/s, "
                       "busbw 12.345 GB/s"),
            std::string::npos)
      << r.out;
}

// A run of a second or so: four million sends over three pipes (the progress
// line starts at once with CNUAS_PROGRESS_AFTER_MS=0).
static std::string long_platform() {
  return write_file("long.yaml",
                    "platform: long\n"
                    "elements:\n"
                    "  - {name: wire, type: cnuas.pipe, count: 3, set: {bandwidth: 8 Gbit/s}}\n"
                    "connections:\n  - wire[0] -> wire[1]\n  - wire[1] -> wire[2]\n"
                    "workload:\n  operations:\n"
                    "    - {name: send, path: [\"wire[0]\", \"wire[1]\", \"wire[2]\"], dims: "
                    "{bytes: 1000}, repeat: 4000000}\n");
}

TEST(Progress, ALineOnATerminalNothingOtherwise) {
  // `script` gives the run a terminal; its output is the terminal's.
  const std::string typescript = scratch_dir() + "/progress.txt";
  const std::string command = "CNUAS_PROGRESS_AFTER_MS=0 script -qec '" +
                              std::string(CNUAS_BINARY) + " run " + long_platform() +
                              "' /dev/null > " + typescript + " 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << read_file(typescript);
  const std::string seen = read_file(typescript);
  // The time shown has moved past 0 (each send crosses the three pipes one
  // after the other, 3 x 1 us, so the run ends at 12 s), though with
  // lookahead SystemC's own time stays at 0.
  EXPECT_TRUE(std::regex_search(seen, std::regex("cnuas: simulated [1-9][0-9.]* (ns|us|ms|s) ")))
      << seen;
  EXPECT_NE(seen.find("/s of host time"), std::string::npos) << seen;
  // Not a terminal (CI, a pipe): stderr stays empty.
  const CommandResult r = run_cnuas("run " + long_platform());  // default quiet period
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
}

TEST(Describe, ListsTheShippedProfilesOfTheType) {
  const CommandResult r = run_cnuas("describe cnuas.pcie_root");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("shipped profiles"), std::string::npos) << r.out;
  // profiles/pcie/gen4-x16.yaml says `type: cnuas.pcie_root`; the -pipe
  // variant is a cnuas.pipe and belongs to that type's list.
  EXPECT_NE(r.out.find("profiles/pcie/gen4-x16.yaml"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("gen4-x16-pipe.yaml"), std::string::npos) << r.out;
  const CommandResult pipe = run_cnuas("describe cnuas.pipe");
  EXPECT_NE(pipe.out.find("profiles/pcie/gen4-x16-pipe.yaml"), std::string::npos) << pipe.out;
}

static std::string complete(const std::string& words, int index) {
  const std::string script = scratch_dir() + "/completion.bash";
  EXPECT_EQ(std::system((std::string(CNUAS_BINARY) + " completion bash > " + script).c_str()), 0);
  const std::string out = scratch_dir() + "/completion.out";
  const std::string command = "bash -c 'source " + script + "; COMP_WORDS=(" + words +
                              "); COMP_CWORD=" + std::to_string(index) +
                              "; _cnuas; echo \"${COMPREPLY[*]}\"' > " + out;
  EXPECT_EQ(std::system(command.c_str()), 0);
  return read_file(out);
}

TEST(Completion, BashCompletesCommandsOptionsAndTypes) {
  EXPECT_EQ(complete("cnuas sw", 1), "sweep\n");
  EXPECT_EQ(complete("cnuas co", 1), "compare completion\n");
  EXPECT_EQ(complete("cnuas run --sta", 2), "--stats\n");
  EXPECT_EQ(complete("cnuas sweep --va", 2), "--vary\n");
  EXPECT_EQ(complete("cnuas describe cnuas.pci", 2), "cnuas.pcie_root\n");
  EXPECT_EQ(complete("cnuas calibrate f", 2), "fit\n");
}

}  // namespace cnuas
