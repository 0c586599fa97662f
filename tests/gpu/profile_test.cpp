// GPU architecture profiles: the shipped ones load, and bad ones are refused
// with file:line:col, the key and what is accepted.
#include <gtest/gtest.h>

#include <fstream>

#include "core/kernel/errors.h"
#include "gpu/arch_config.h"
#include "gpu_harness.h"

namespace cnuas::gpu::testing {
namespace {

TEST(GpuArchProfile, ShippedProfilesLoadWithTheirPublishedFigures) {
  const ArchConfig h100 = load_arch("h100-sxm");
  EXPECT_EQ(h100.sm.count, 132u);
  EXPECT_EQ(h100.l2.size_bytes, 50u << 20);
  // 80 channels x 41.875 GB/s = 3.35 TB/s, the datasheet figure.
  EXPECT_EQ(h100.dram.channel_bytes_per_s * Rational(h100.dram.channels),
            Rational(3'350'000'000'000ULL));
  const ArchConfig h200 = load_arch("h200-sxm");
  EXPECT_EQ(h200.dram.channel_bytes_per_s * Rational(h200.dram.channels),
            Rational(4'800'000'000'000ULL));
  const ArchConfig pascal = load_arch("gtx-1080-ti");
  EXPECT_EQ(pascal.sm.count, 28u);
  EXPECT_EQ(pascal.dram.channel_bytes_per_s * Rational(pascal.dram.channels),
            Rational(484'000'000'000ULL));
  // The files under profiles/ are what is embedded.
  EXPECT_EQ(
      load_arch(std::string(CNUAS_SOURCE_DIR) + "/profiles/gpu-arch/h100-sxm.yaml").dram.tRCD_ps,
      h100.dram.tRCD_ps);
}

std::string error_of(const std::string& from, const std::string& to) {
  std::ifstream f(std::string(CNUAS_GPU_TEST_DIR) + "/unit-arch.yaml");
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  try {
    load_arch_text(text, "bad.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(GpuArchProfile, BadProfilesNameTheFileLineKeyAndWhatIsAccepted) {
  EXPECT_EQ(error_of("  ways: 4\n", "  wayz: 4\n"),
            "bad.yaml:29:3: unknown key 'wayz' in gpu architecture.l1; did you mean 'ways'?");
  EXPECT_EQ(error_of("  tRCD: 20 ns", "  tRCD: 20"),
            "bad.yaml:61:9: gpu architecture.dram.tRCD: '20' has no unit; a time needs one of: "
            "ps, ns, us, ms, s");
  EXPECT_EQ(error_of("  scheduler_policy: gto", "  scheduler_policy: fifo"),
            "bad.yaml:9:21: gpu architecture.sm.scheduler_policy is 'fifo'; accepted: gto, lrr");
  EXPECT_EQ(
      error_of("  count: 2\n", "  count: -2\n"),
      "bad.yaml:6:10: gpu architecture.sm.count is '-2'; accepted: an integer from 1 to 4096");
  const std::string extra = error_of("  ways: 4\n", "  ways: 4\n  bogus: 1\n");
  EXPECT_EQ(extra.rfind("bad.yaml:30:3: unknown key 'bogus'", 0), 0u) << extra;
  EXPECT_NE(error_of("  line: 128 B\n  sector", "  line: 96 B\n  sector").find("powers of two"),
            std::string::npos);
  EXPECT_NE(error_of("  channels: 1\n", "  channels: 2\n").find("multiple of dram.channels"),
            std::string::npos);
  EXPECT_NE(error_of("  mshrs: 64\n  hit_latency: 20", "  hit_latency: 20")
                .find("gpu architecture.l1 is missing 'mshrs'"),
            std::string::npos);
}

TEST(GpuArchProfile, UnknownBuiltInNamesListTheBuiltIns) {
  try {
    load_arch("h100");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "no GPU architecture named 'h100'; built-in: gtx-1080-ti, h100-sxm, h200-sxm, or a "
              "path to a profiles/gpu-arch/*.yaml file");
  }
}

}  // namespace
}  // namespace cnuas::gpu::testing
