// GPU architecture profiles: the shipped ones load, and bad ones are refused
// with file:line:col, the key and what is accepted.
#include <gtest/gtest.h>

#include <algorithm>
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

// Hand values read off the YAML files, converted by hand to the model's units
// (bytes, picoseconds, picojoules, hertz), through the schema-driven reader.
TEST(GpuArchProfile, ShippedProfilesLoadTheValuesTheirFilesWrite) {
  const ArchConfig h100 = load_arch("h100-sxm");
  EXPECT_EQ(h100.name, "h100-sxm");
  EXPECT_EQ(h100.sm.clock_hz, Rational(1'980'000'000ULL));     // 1.98 GHz
  EXPECT_EQ(h100.sm.policy, WarpScheduler::GreedyThenOldest);  // gto
  EXPECT_EQ(h100.sm.shared_bytes, 228u * 1024);                // 228 KiB
  EXPECT_EQ(h100.sm.pipes[static_cast<std::size_t>(Unit::Tensor)].latency, 24u);
  EXPECT_EQ(h100.sm.pipes[static_cast<std::size_t>(Unit::Tensor)].interval, 6u);
  EXPECT_EQ(h100.sm.mma.rates.f16, 4096u);
  EXPECT_EQ(h100.sm.mma.rates.f64, 342u);
  EXPECT_EQ(h100.sm.mma.overhead, 2u);
  EXPECT_EQ(h100.sm.mma.stages, 4u);
  EXPECT_EQ(h100.sm.pipes[static_cast<std::size_t>(Unit::Int)].interval, 2u);
  EXPECT_EQ(h100.l1.size_bytes, 128u * 1024);  // 128 KiB
  EXPECT_EQ(h100.l1.hit_latency, 33u);
  EXPECT_FALSE(h100.l1.write_allocate);
  EXPECT_EQ(h100.l1.shared_bank_bytes, 4u);
  EXPECT_EQ(h100.noc.latency, 62u);
  EXPECT_EQ(h100.l2.slices, 80u);
  EXPECT_EQ(h100.l2.mshrs, 512u);
  EXPECT_EQ(h100.dram.row_bytes, 1024u);                                  // 1 KiB
  EXPECT_EQ(h100.dram.channel_bytes_per_s, Rational(41'875'000'000ULL));  // 41.875 GB/s
  EXPECT_EQ(h100.dram.tRCD_ps, 14'000u);                                  // 14 ns
  EXPECT_EQ(h100.dram.tREFI_ps, 3'900'000u);                              // 3.9 us
  EXPECT_EQ(h100.dram.controller_ps, 90'000u);                            // 90 ns
  EXPECT_EQ(h100.dram.tRFC_ps, 200'000u);                                 // 200 ns per bank
  EXPECT_TRUE(h100.dram.refresh_per_bank);
  EXPECT_EQ(h100.dram.bank_groups, 4u);
  EXPECT_EQ(h100.dram.tCCD_L_ps, 2'500u);  // 2.5 ns
  EXPECT_EQ(h100.dram.tRTW_ps, 8'000u);    // 8 ns
  EXPECT_EQ(h100.energy.instruction_pj[static_cast<std::size_t>(Unit::Tensor)], Rational(400));
  EXPECT_EQ(h100.energy.dram_burst_pj, Rational(1000));
  EXPECT_EQ(h100.energy.static_w, Rational(140));
  EXPECT_EQ(h100.energy.sm_active_w, Rational(3, 2));  // 1.5 W

  const ArchConfig h200 = load_arch("h200-sxm");  // the H100 with six HBM3e stacks
  EXPECT_EQ(h200.l2.slices, 96u);
  EXPECT_EQ(h200.dram.channels, 96u);
  EXPECT_EQ(h200.dram.channel_bytes_per_s, Rational(50'000'000'000ULL));  // 50 GB/s
  EXPECT_EQ(h200.energy.static_w, Rational(150));
  EXPECT_EQ(h200.sm.count, h100.sm.count);

  const ArchConfig pascal = load_arch("gtx-1080-ti");
  EXPECT_EQ(pascal.sm.clock_hz, Rational(1'582'000'000ULL));  // 1.582 GHz
  EXPECT_EQ(pascal.sm.shared_bytes, 96u * 1024);              // 96 KiB
  EXPECT_EQ(pascal.sm.pipes[static_cast<std::size_t>(Unit::Fp64)].interval, 32u);
  EXPECT_EQ(pascal.l1.hit_latency, 82u);
  EXPECT_EQ(pascal.l2.size_bytes, 2816u * 1024);  // 2816 KiB
  EXPECT_EQ(pascal.l2.slices, 22u);
  EXPECT_EQ(pascal.dram.channels, 11u);
  EXPECT_EQ(pascal.dram.row_bytes, 2048u);         // 2 KiB
  EXPECT_EQ(pascal.dram.tCL_ps, 12'000u);          // 12 ns
  EXPECT_EQ(pascal.dram.tREFI_ps, 1'900'000u);     // 1.9 us
  EXPECT_EQ(pascal.dram.controller_ps, 120'000u);  // 120 ns
  EXPECT_FALSE(pascal.dram.refresh_per_bank);      // GDDR5X: all banks at once
  EXPECT_EQ(pascal.dram.tRRD_ps, 5'500u);          // 5.5 ns
  EXPECT_EQ(pascal.energy.dram_activate_pj, Rational(1500));
  EXPECT_EQ(pascal.energy.sm_active_w, Rational(3));
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
  // unit-arch.yaml line 29 is `  ways: 4` inside `l1:`; the nearest key of
  // that section, and the section's keys, are named.
  EXPECT_EQ(error_of("  ways: 4\n", "  wayz: 4\n"),
            "bad.yaml:29:3: unknown key 'wayz' in section 'l1' of GPU architecture profile "
            "(type cnuas.gpu_arch) (did you mean 'ways'?); accepted keys: size, line, sector, "
            "ways, mshrs, hit_latency, write_allocate, shared_latency, shared_banks, "
            "shared_bank_width, constant_latency, lines_per_cycle");
  // Two levels down: `int:` under `sm.pipes` (line 17) takes latency and interval.
  EXPECT_EQ(error_of("int: {latency: 4,", "int: {latncy: 4,"),
            "bad.yaml:17:11: unknown key 'latncy' in section 'sm.pipes.int' of GPU architecture "
            "profile (type cnuas.gpu_arch) (did you mean 'latency'?); accepted keys: latency, "
            "interval");
  // A section name misspelled at the top.
  EXPECT_EQ(error_of("\nl2:\n", "\nl2x:\n")
                .rfind("bad.yaml:43:1: unknown key 'l2x' in GPU "
                       "architecture profile (type cnuas.gpu_arch) "
                       "(did you mean 'l2'?)",
                       0),
            0u);
  // `tRCD: 20 ns` is line 61, the value at column 9.
  EXPECT_EQ(error_of("  tRCD: 20 ns", "  tRCD: 20"),
            "bad.yaml:61:9: GPU architecture profile: field 'dram.tRCD': '20' has no unit; a time "
            "needs one of: ps, ns, us, ms, s");
  EXPECT_EQ(error_of("  tRCD: 20 ns", "  tRCD: 20 GB"),
            "bad.yaml:61:9: GPU architecture profile: field 'dram.tRCD': '20 GB' is a data size, "
            "but a time is expected (ps, ns, us, ms, s)");
  EXPECT_EQ(error_of("  scheduler_policy: gto", "  scheduler_policy: fifo"),
            "bad.yaml:9:21: GPU architecture profile: field 'sm.scheduler_policy': 'fifo' is not "
            "accepted; expected one of: gto, lrr");
  // sm.count is declared 1..4096 (line 6, value at column 10).
  EXPECT_EQ(error_of("  count: 2\n", "  count: 5000\n"),
            "bad.yaml:6:10: GPU architecture profile: field 'sm.count': 5000 is out of range; "
            "expected integer 1..4096");
  EXPECT_EQ(error_of("  count: 2\n", "  count: -2\n"),
            "bad.yaml:6:10: GPU architecture profile: field 'sm.count': negative value '-2' is "
            "not allowed; expected integer 1..4096");
  EXPECT_EQ(error_of("  count: 2\n", "  count: 2.5\n"),
            "bad.yaml:6:10: GPU architecture profile: field 'sm.count': '2.5' is not a whole "
            "number; expected integer 1..4096");
  const std::string extra = error_of("  ways: 4\n", "  ways: 4\n  bogus: 1\n");
  EXPECT_EQ(extra.rfind("bad.yaml:30:3: unknown key 'bogus' in section 'l1'", 0), 0u) << extra;
  // A section given as a scalar, a field given as a map.
  EXPECT_EQ(error_of("noc:\n  clock: 1 GHz\n  latency: 10\n  flit: 32 B\n  request_header: 8 B\n",
                     "noc: 5\n"),
            "bad.yaml:38:6: section 'noc' of GPU architecture profile (type cnuas.gpu_arch) must "
            "be a mapping of keys to values");
  EXPECT_EQ(error_of("  ways: 4\n", "  ways: {a: 1}\n"),
            "bad.yaml:29:9: field 'l1.ways' must be a single value (a scalar)");
  // 96 B lines: not a power of two (line 27).
  EXPECT_EQ(error_of("  line: 128 B\n  sector", "  line: 96 B\n  sector"),
            "bad.yaml:27:9: unit-1ghz: l1.line and l1.sector must be powers of two, the line at "
            "most 32 sectors");
  EXPECT_NE(error_of("  channels: 1\n", "  channels: 2\n").find("multiple of dram.channels"),
            std::string::npos);
  EXPECT_NE(error_of("  mshrs: 64\n  hit_latency: 20", "  hit_latency: 20")
                .find("required field 'l1.mshrs' is missing (integer 1..65536"),
            std::string::npos);
  EXPECT_EQ(error_of("  size: 4 KiB\n", "  size: 4.5 B\n"),
            "bad.yaml:26:9: GPU architecture profile: l1.size must be a whole number of bytes");
  // l2.size is 64-bit: 8 GiB is accepted; l1.size is 32-bit: 4 GiB is named as too large.
  EXPECT_EQ(error_of("  size: 64 KiB\n", "  size: 8 GiB\n"), "no error");
  EXPECT_EQ(error_of("  size: 4 KiB\n", "  size: 4 GiB\n"),
            "bad.yaml:26:9: GPU architecture profile: l1.size is 4294967296 bytes; accepted: at "
            "most 4294967295 bytes (4 GiB - 1)");
}

TEST(GpuArchProfile, L2PartitionKeysAreCheckedWithTheFieldAndWhatIsAccepted) {
  const std::string l2 = "  bytes_per_cycle: 64 B\n";
  const std::string three = error_of(l2, l2 + "  partitions: 3\n");
  // Line 53, the value at column 15.
  EXPECT_NE(three.find("bad.yaml:53:15: GPU architecture profile: field 'l2.partitions': 3 is out "
                       "of range; expected integer 1..2"),
            std::string::npos)
      << three;
  // The unit profile has one DRAM channel and one GPC: no halves to split.
  const std::string odd = error_of(l2, l2 + "  partitions: 2\n  far_bytes_per_cycle: 32 B\n");
  EXPECT_NE(odd.find("l2.partitions 2 needs an even dram.channels"), std::string::npos) << odd;
  const std::string unit = error_of(l2, l2 + "  far_bytes_per_cycle: 32\n");
  EXPECT_NE(unit.find("field 'l2.far_bytes_per_cycle': '32' has no unit"), std::string::npos)
      << unit;
  const ArchConfig h100 = load_arch("h100-sxm");
  EXPECT_EQ(h100.l2.partitions, 2u);
  EXPECT_EQ(h100.l2.far_latency, 57u);
  EXPECT_EQ(h100.l2.far_bytes_per_cycle, 128u);
  EXPECT_EQ(h100.l2.bytes_per_cycle, 64u);
  EXPECT_EQ(load_arch("gtx-1080-ti").l2.partitions, 1u);
}

// Two partitions need two L2 MSHRs per slice: fetches from the other
// partition never take a slice's last entry (the deadlock guard), so with one
// entry they could never be made.
TEST(GpuArchProfile, TwoPartitionsNeedTwoL2Mshrs) {
  std::ifstream f(std::string(CNUAS_SOURCE_DIR) + "/profiles/gpu-arch/h100-sxm.yaml");
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::size_t at = text.find("  mshrs: 512", text.find("\nl2:"));
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 12, "  mshrs: 1  ");
  const std::string where = "h100-one-mshr.yaml:" +
                            std::to_string(std::count(text.begin(), text.begin() + at, '\n') + 1) +
                            ":";
  try {
    load_arch_text(text, "h100-one-mshr.yaml");
    FAIL() << "one L2 MSHR per slice with two partitions was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << where << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find("l2.mshrs must be at least 2 with two partitions"),
              std::string::npos)
        << e.what();
  }
  text.replace(at, 12, "  mshrs: 2  ");
  EXPECT_EQ(load_arch_text(text, "h100-two-mshrs.yaml").l2.mshrs, 2u);
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
