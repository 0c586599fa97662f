// A ring allreduce on a ring of links matches its closed form exactly.
#include <gtest/gtest.h>

#include "cli/cli_harness.h"

namespace cnuas {
using namespace testing_support;
using nlohmann::json;

static std::string ring_platform(const std::string& collective, const std::string& bytes) {
  // gpu[i] -> hop[i] -> gpu[i+1]: every rank sends to its successor over its own link.
  // Each hop: 1 us + bytes / 100 Gbit/s.
  return "platform: ring4\n"
         "elements:\n"
         "  - {name: gpu, type: cnuas.fixed_delay, count: 4, set: {delay: 0 ns}}\n"
         "  - {name: hop, type: cnuas.pipe, count: 4, set: {bandwidth: 100 Gbit/s, latency: 1 "
         "us}}\n"
         "connections:\n"
         "  - gpu[*] -> hop[*]\n"
         "  - hop[0] -> gpu[1]\n  - hop[1] -> gpu[2]\n  - hop[2] -> gpu[3]\n  - hop[3] -> gpu[0]\n"
         "workload:\n"
         "  operations:\n"
         "    - {name: ar, collective: " +
         collective + ", participants: \"gpu[*]\", dims: {bytes: " + bytes + "}}\n";
}

static json run_stats(const std::string& name, const std::string& platform) {
  std::string stats = scratch_dir() + "/" + name + ".json";
  CommandResult r = run_cnuas("run " + write_file(name + ".yaml", platform) + " --stats " + stats);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(read_file(stats));
}

TEST(Collective, RingAllreduceMatchesTheClosedForm) {
  // n = 4, B = 4 MB, R = 100 Gbit/s, alpha = 1 us:
  // 2(n-1)/n x B/R + 2(n-1) alpha = 1.5 x 320 us + 6 us = 486 us.
  json s = run_stats("ring_ar", ring_platform("ring_allreduce", "4000000"));
  EXPECT_EQ(s["makespan_ps"].get<std::uint64_t>(), 486'000'000u);
  EXPECT_EQ(s["operations_count"].get<std::uint64_t>(), 24u);
  // Every link carried 2(n-1) chunks of B/n, each holding it for 80 us (its
  // 1 us latency holds nothing): busy 6 x 80 us.
  EXPECT_EQ(s["elements"]["ring4.hop[2]"]["busy_ps"].get<std::uint64_t>(), 480'000'000u);
}

TEST(Collective, AllgatherAndReduceScatterTakeHalfTheSteps) {
  // (n-1)/n x B/R + (n-1) alpha = 0.75 x 320 us + 3 us = 243 us.
  EXPECT_EQ(run_stats("ring_ag", ring_platform("ring_allgather", "4000000"))["makespan_ps"]
                .get<std::uint64_t>(),
            243'000'000u);
  EXPECT_EQ(run_stats("ring_rs", ring_platform("ring_reduce_scatter", "4000000"))["makespan_ps"]
                .get<std::uint64_t>(),
            243'000'000u);
}

TEST(Collective, BadCollectivesAreRefused) {
  std::string p = ring_platform("ring_allredcue", "4000000");
  CommandResult r = run_cnuas("run " + write_file("bad_c.yaml", p));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean 'ring_allreduce'"), std::string::npos) << r.err;
  // all_to_all routes gpu[0] -> gpu[2] the long way round this one-way ring.
  r = run_cnuas("run " + write_file("a2a.yaml", ring_platform("all_to_all", "4000")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace cnuas
