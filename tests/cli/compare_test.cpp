// `cnuas compare RUN_A RUN_B`: what changed, per element and operation group.
#include <regex>

#include <gtest/gtest.h>

#include "cli/cli_harness.h"
#include "cli/tiny_platform.h"

namespace cnuas {
using namespace testing_support;

static std::string run_into(const std::string& name, const std::string& extra) {
  const std::string dir = scratch_dir() + "/" + name;
  const CommandResult r = run_cnuas("run " + tiny_platform() + " --out " + dir + " " + extra);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return dir;
}

TEST(Compare, ListsWhatChangedWithDeltaAndPercent) {
  const std::string a = run_into("cmp_a", "");
  // Twice the bandwidth: each message holds the wire 500 ns, a send takes
  // 1.5 us, the run 3 us, the wire is busy 1 us.
  const std::string b = run_into("cmp_b", "--set 'wire.bandwidth=16 Gbit/s'");
  const std::string csv = scratch_dir() + "/cmp.csv";
  const CommandResult r = run_cnuas("compare " + a + " " + b + "/stats.json --csv " + csv);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // makespan 4 us -> 3 us: -1 us, -25 %; wire busy 2 us -> 1 us: -50 %.
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(run +tiny +makespan_ps +4000000 +3000000 +-1000000 +-25.00%)")))
      << r.out;
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex(R"(element +tiny.wire +busy_ps +2000000 +1000000 +-1000000 +-50.00%)")))
      << r.out;
  const std::string table = read_file(csv);
  EXPECT_NE(table.find("kind,name,metric,a,b,delta,change_percent\n"), std::string::npos);
  EXPECT_NE(table.find("run,tiny,makespan_ps,4000000,3000000,-1000000,-25.00\n"), std::string::npos)
      << table;
  EXPECT_NE(table.find("operation_group,send,latency_max_ps,2000000,1500000,-500000,-25.00\n"),
            std::string::npos)
      << table;
  // The source element did not change: it is not listed.
  EXPECT_EQ(table.find("tiny.src"), std::string::npos) << table;
}

TEST(Compare, SameRunHasNoDifferences) {
  const std::string a = run_into("cmp_same", "");
  const CommandResult r = run_cnuas("compare " + a + " " + a);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 statistic(s) differ"), std::string::npos) << r.out;
}

TEST(Compare, BadInputExitsTwoNamingTheRun) {
  const std::string a = run_into("cmp_bad", "");
  CommandResult r = run_cnuas("compare " + a + " " + scratch_dir() + "/no-such-run");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("RUN_B '" + scratch_dir() + "/no-such-run'"), std::string::npos) << r.err;
  const std::string not_stats = write_file("not_stats.json", "{\"format\": \"other\"}");
  r = run_cnuas("compare " + not_stats + " " + a);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(not_stats), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cnuas-stats"), std::string::npos) << r.err;
  r = run_cnuas("compare " + a);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("needs two runs"), std::string::npos) << r.err;
}

}  // namespace cnuas
