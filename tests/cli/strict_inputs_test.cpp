// Mistakes in a platform that used to slip through or read poorly: each is
// refused by `cnuas validate` (not only `run`) with exit code 2, the place as
// file:line:col, and what would be accepted.
#include <gtest/gtest.h>

#include "cli/cli_harness.h"

namespace cnuas {
using namespace testing_support;

static CommandResult validate_text(const std::string& name, const std::string& text) {
  return run_cnuas("validate " + write_file("strict/" + name, text));
}

static const char* kWorkload =
    "workload:\n  operations:\n    - {name: x, path: [mem, pcie], dims: {bytes: 10}}\n";

TEST(StrictInputs, UpstreamNamingNoNeighbourIsRefusedWithTheCloseName) {
  // Line 4 is the pcie root; its value 'hostt' starts at column 74.
  CommandResult r = validate_text(
      "up.yaml",
      std::string(
          "platform: p\nelements:\n  - {name: host, type: cnuas.host_cpu}\n"
          "  - {name: pcie, type: cnuas.pcie_root, set: {generation: '4', upstream: hostt}}\n"
          "  - {name: mem, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
          "connections:\n  - host <-> pcie\n  - pcie <-> mem\n") +
          kWorkload);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("up.yaml:4:74: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("upstream 'hostt'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean 'host'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("neighbours: host, mem"), std::string::npos) << r.err;
}

TEST(StrictInputs, UpstreamNamingACountBlockIsAmbiguous) {
  // host is two elements, host[0] and host[1]: "upstream: host" names neither.
  CommandResult r = validate_text(
      "amb.yaml",
      "platform: p\nelements:\n  - {name: host, count: 2, type: cnuas.host_cpu}\n"
      "  - {name: pcie, count: 2, type: cnuas.pcie_root, set: {generation: '4', upstream: host}}\n"
      "connections:\n  - host[*] <-> pcie[*]\n"
      "workload:\n  operations:\n    - {name: x, path: ['pcie[0]'], dims: {bytes: 10}}\n");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("amb.yaml:4:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("upstream 'host' is ambiguous"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("host[0]"), std::string::npos) << r.err;
}

TEST(StrictInputs, TwoElementsOfTheSameNameAreRefusedNotMerged) {
  CommandResult r = validate_text(
      "dup.yaml",
      "platform: p\nelements:\n  - {name: a, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
      "  - {name: a, type: cnuas.pipe, set: {bandwidth: 2 GB/s}}\n"
      "workload:\n  operations:\n    - {name: x, path: [a], dims: {bytes: 10}}\n");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  // The second entry's mapping starts at column 5 of line 4; the first at 3:5.
  EXPECT_NE(r.err.find("dup.yaml:4:5: element 'a' is declared twice"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("dup.yaml:3:5"), std::string::npos) << r.err;
}

TEST(StrictInputs, AnIncludingPlatformStillRefinesAnIncludedElement) {
  write_file("strict/common.yaml",
             "platform: common\nelements:\n  - {name: a, type: cnuas.pipe, set: {bandwidth: 1 "
             "GB/s}}\n");
  CommandResult r =
      validate_text("refine.yaml",
                    "platform: p\ninclude: [common.yaml]\nelements:\n"
                    "  - {name: a, type: cnuas.pipe, set: {bandwidth: 2 GB/s}}\n"
                    "workload:\n  operations:\n    - {name: x, path: [a], dims: {bytes: 10}}\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(StrictInputs, SwitchWithFewerPortsThanConnectionsFailsValidate) {
  // Three outgoing connections on a two-port switch.
  CommandResult r = validate_text(
      "sw.yaml",
      "platform: p\nelements:\n"
      "  - {name: sw, type: cnuas.switch, set: {ports: 2, port_rate: 100 Gbit/s}}\n"
      "  - {name: a, count: 3, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
      "connections:\n  - sw -> a[*]\n"
      "workload:\n  operations:\n    - {name: x, path: [sw, 'a[0]'], dims: {bytes: 10}}\n");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("sw.yaml:3:5: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("3 outgoing connections but only 2 ports"), std::string::npos) << r.err;
}

TEST(StrictInputs, PlatformWithoutWorkloadSaysWhereAndHintsAtW) {
  CommandResult r = validate_text(
      "nowork.yaml",
      "platform: p\nelements:\n  - {name: a, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("nowork.yaml:1:1: platform has no workload"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("-w WORKLOAD.yaml"), std::string::npos) << r.err;
  // An empty `workload:` key is pointed at too (yaml-cpp places its null value
  // on the line after the key).
  r = validate_text("emptywork.yaml",
                    "platform: p\nelements:\n  - {name: a, type: cnuas.pipe, set: {bandwidth: 1 "
                    "GB/s}}\nworkload:\n");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("emptywork.yaml:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("platform has no workload"), std::string::npos) << r.err;
}

TEST(StrictInputs, UnquotedBracketsInAFlowListSuggestQuotes) {
  CommandResult r =
      validate_text("flow.yaml", "platform: p\nelements: [{name: server[0], type: cnuas.pipe}]\n");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("flow.yaml:2:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("quote the value, \"server[0]\""), std::string::npos) << r.err;
  // The same inside a flow sequence, after a comma.
  r = validate_text("path.yaml",
                    "platform: p\nelements:\n  - {name: a, count: 2, type: cnuas.pipe}\n"
                    "workload:\n  operations:\n    - {name: x, path: [a[0], a[1]]}\n");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("quote the value, \"a[0]\""), std::string::npos) << r.err;
}

}  // namespace cnuas
