// Inputs that fuzzing found, through `cnuas validate` as a user meets them:
// each is refused with exit code 2 and a message naming what and where,
// never a crash, a hang or a message of kilobytes.
#include <gtest/gtest.h>

#include "cli/cli_harness.h"

namespace cnuas {
using namespace testing_support;

// Platforms including each other. Spelled the same way, the include chain
// meets the first file's name again. Spelled differently ("../inc/b.yaml" and
// "./a.yaml"), the names grew by a few characters per round until the system
// refused a path of 4 KB; the chain compares files, not spellings, now.
TEST(FuzzFindings, MutualIncludesAreALoopHoweverTheyAreSpelled) {
  const std::string a = write_file("inc/a.yaml", "platform: a\ninclude: [b.yaml]\n");
  write_file("inc/b.yaml", "platform: b\ninclude: [a.yaml]\n");
  CommandResult r = run_cnuas("validate " + a);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // "include: [" is 10 characters: the entry starts at column 11.
  EXPECT_NE(r.err.find("inc/b.yaml:2:11: include loops back to"), std::string::npos) << r.err;

  const std::string a2 = write_file("inc/a2.yaml", "platform: a\ninclude: [../inc/b2.yaml]\n");
  write_file("inc/b2.yaml", "platform: b\ninclude: [./a2.yaml]\n");
  r = run_cnuas("validate " + a2);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("b2.yaml:2:11: include loops back to"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("inc/./a2.yaml'"), std::string::npos) << r.err;  // the name as written
  EXPECT_LT(r.err.size(), 400u) << r.err;
}

// The same for a profile's base chain and for a platform placed inside itself.
TEST(FuzzFindings, BaseChainsAndNestedPlatformsLoopingThroughOtherSpellingsAreRefused) {
  const std::string p1 =
      write_file("prof/p1.yaml", "type: cnuas.pipe\nbase: ./p2.yaml\nbandwidth: 1 GB/s\n");
  write_file("prof/p2.yaml", "type: cnuas.pipe\nbase: ../prof/p1.yaml\n");
  CommandResult r = run_cnuas("validate --profile " + p1);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("profile base chain loops back to"), std::string::npos) << r.err;
  EXPECT_LT(r.err.size(), 600u) << r.err;

  const std::string n = write_file(
      "nest/n.yaml", "platform: n\nelements:\n  - {name: inner, platform: ../nest/./n.yaml}\n");
  r = run_cnuas("validate " + n);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // The element's map starts at column 5 of line 3; the platform places itself directly.
  EXPECT_NE(r.err.find("n.yaml:3:5: platform '"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("../nest/./n.yaml' contains itself"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("through"), std::string::npos) << r.err;
}

// A key given twice and bytes that are not UTF-8 (unit-tested in
// platform_test.cpp) reach the user as exit code 2 at their line and column.
TEST(FuzzFindings, DuplicateKeysAndInvalidUtf8AreInputErrors) {
  CommandResult r = run_cnuas("validate " + write_file("dup.yaml", "platform: d\nplatform: e\n"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("dup.yaml:2:1: key 'platform' is given twice (first at line 1)"),
            std::string::npos)
      << r.err;
  // "platform: caf" is 13 characters: the byte 0xff is column 14.
  r = run_cnuas("validate " + write_file("u8.yaml", "platform: caf\xFF\n"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("u8.yaml:1:14: byte 0xff is not UTF-8"), std::string::npos) << r.err;
}

// A 10 TW power and a 2^64 ns latency (schema_test.cpp has the ceilings) are
// refused where they are written, in a platform and in a profile.
TEST(FuzzFindings, AbsurdPowerAndLatencyAreRefusedWhereWritten) {
  CommandResult r = run_cnuas(
      "validate " +
      write_file("watts.yaml",
                 "platform: w\nelements:\n"
                 "  - {name: a, type: cnuas.pipe, set: {bandwidth: 1 GB/s, active_power: 1e13 W}}\n"
                 "workload:\n  operations:\n    - {name: x, path: [a], dims: {bytes: 10}}\n"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("watts.yaml:3:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("at most 10 MW"), std::string::npos) << r.err;
  // "latency: " is 9 characters: the value is column 10 of line 3.
  r = run_cnuas(
      "validate --profile " +
      write_file("late.yaml",
                 "type: cnuas.pipe\nbandwidth: 1 GB/s\nlatency: 18446744073709551616 ns\n"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("late.yaml:3:10"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("at most 1 day"), std::string::npos) << r.err;
}

// A megabyte-long value quoted in a message is cut to a readable size.
TEST(FuzzFindings, HugeValuesAreNotEchoedWhole) {
  const std::string huge(1 << 20, 'z');
  const CommandResult r =
      run_cnuas("validate " + write_file("huge.yaml", "platform: " + huge + "!\n"));
  EXPECT_EQ(r.exit_code, 2) << r.err.substr(0, 300);
  EXPECT_NE(r.err.find("huge.yaml:1:11"), std::string::npos) << r.err.substr(0, 300);
  EXPECT_LT(r.err.size(), 4200u);
  EXPECT_NE(r.err.find("more bytes of the message left out"), std::string::npos);
}

}  // namespace cnuas
