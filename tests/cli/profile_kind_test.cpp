// The GPU architecture profile kind on the command line: listed apart from
// the element types, described field by field, validated and dumped.
#include <gtest/gtest.h>

#include <yaml-cpp/yaml.h>

#include "cli/cli_harness.h"

namespace cnuas {
using namespace testing_support;

namespace {

// The dotted names of every scalar in a YAML map: what the file writes,
// independent of the schema that reads it.
void leaf_names(const YAML::Node& map, const std::string& prefix, std::vector<std::string>& out) {
  for (const auto& kv : map) {
    const std::string name = prefix + kv.first.as<std::string>();
    if (kv.second.IsMap())
      leaf_names(kv.second, name + ".", out);
    else
      out.push_back(name);
  }
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(ProfileKind, ListedApartFromTheElements) {
  CommandResult r = run_cnuas("list-models");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::size_t heading = r.out.find("\nprofile kinds (not elements");
  const std::size_t arch = r.out.find("cnuas.gpu_arch ");
  ASSERT_NE(heading, std::string::npos) << r.out;
  ASSERT_NE(arch, std::string::npos) << r.out;
  EXPECT_GT(arch, heading);  // after the heading, never among the elements
  EXPECT_EQ(r.out.find("[built-in]", arch), std::string::npos);
  // Not placeable: a platform that names it as an element type is refused.
  std::string p = write_file("arch-element.yaml",
                             "platform: p\nelements:\n  - name: a\n    type: cnuas.gpu_arch\n");
  r = run_cnuas("validate " + p);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown element type 'cnuas.gpu_arch'"), std::string::npos) << r.err;
}

TEST(ProfileKind, DescribeNamesEveryKeyTheShippedProfilesWrite) {
  CommandResult md = run_cnuas("describe --markdown cnuas.gpu_arch");
  CommandResult text = run_cnuas("describe cnuas.gpu_arch");
  ASSERT_EQ(md.exit_code, 0) << md.err;
  ASSERT_EQ(text.exit_code, 0) << text.err;
  // h100-sxm.yaml writes every field (description included): 2 top-level, 13 sm
  // scalars + 8 pipes x 2 + 4 wgmma rates + 7 mma (5 rates, overhead, stages) + 2 dsmem +
  // 3 tma, 12 l1, 4 noc, 14 l2 (10 + partitions, far_latency, far_bytes_per_cycle,
  // fetch_granularity), 20 dram (14 + bank_groups, tCCD_L, tRRD, tWTR, tRTW, refresh_per_bank),
  // 8 + 9 energy (tensor_flop included), 4 power = 118.
  std::vector<std::string> leaves;
  leaf_names(YAML::LoadFile(source_path("profiles/gpu-arch/h100-sxm.yaml")), "", leaves);
  ASSERT_EQ(leaves.size(), 118u);
  for (const std::string& name : leaves) {
    EXPECT_NE(md.out.find("| `" + name + "` |"), std::string::npos) << name;
    EXPECT_NE(text.out.find("    " + name + " "), std::string::npos) << name;
  }
  EXPECT_EQ(count_of(md.out, "\n| `"), leaves.size());  // one table row per field, no more
  EXPECT_NE(md.out.find("| `sm.count` | integer 1..4096 | required |"), std::string::npos);
  EXPECT_NE(md.out.find("| `dram.tRCD` | time (ps, ns, us, ms, s) | required |"),
            std::string::npos);
  // None of the element fields.
  EXPECT_EQ(md.out.find("idle_power"), std::string::npos);
}

TEST(ProfileKind, DescribeRefusesUnknownNamesWithTheNearest) {
  CommandResult r = run_cnuas("describe cnuas.gpu_arhc");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown type 'cnuas.gpu_arhc' (did you mean 'cnuas.gpu_arch'?)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("profile kinds: cnuas.gpu_arch"), std::string::npos) << r.err;
}

TEST(ProfileKind, ValidateChecksAndDumpsAnArchitectureProfile) {
  const std::string h100 = source_path("profiles/gpu-arch/h100-sxm.yaml");
  CommandResult r = run_cnuas("validate --profile " + h100);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, h100 +
                       ": valid GPU architecture profile 'h100-sxm' (132 SMs, 80 L2 slices, 80 "
                       "DRAM channels)\n");
  r = run_cnuas("validate --profile " + h100 + " --dump");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Nested as the file writes it; h100-sxm.yaml line 13 is `  count: 132`,
  // line 28 `    tensor: {latency: 24, interval: 6}` (latency's value at column 23).
  EXPECT_NE(r.out.find("\nsm:\n  count: 132   # streaming multiprocessors [integer 1..4096; "
                       "from " +
                       h100 + ":13:10]\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n  pipes:\n    int:\n      latency: 4   #"), std::string::npos);
  EXPECT_NE(r.out.find("\n    tensor:\n      latency: 24   # cycles from issue until a "
                       "dependent instruction may issue [integer 1..100000; from " +
                       h100 + ":28:23]\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nenergy:\n  instruction:\n    int: 30 pJ   #"), std::string::npos);

  // A bad one: out of range, at the value.
  std::string text = read_file(h100);
  text.replace(text.find("count: 132"), 10, "count: 9999");
  const std::string bad = write_file("bad-arch.yaml", text);
  r = run_cnuas("validate --profile " + bad);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(
      r.err.find(bad + ":13:10: GPU architecture profile: field 'sm.count': 9999 is out of range; "
                       "expected integer 1..4096"),
      std::string::npos)
      << r.err;
}

TEST(ProfileKind, ValidateDumpsAnElementProfileToo) {
  std::string prof = write_file("pipe-prof.yaml", "type: cnuas.pipe\nbandwidth: 25 GB/s\n");
  CommandResult r = run_cnuas("validate --profile " + prof + " --dump");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("bandwidth: 25 GB/s   # "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[data rate"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("from " + prof + ":2:12]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("latency: 0 ns   # "), std::string::npos) << r.out;  // a default
  EXPECT_NE(r.out.find("from default]"), std::string::npos) << r.out;
}

}  // namespace cnuas
