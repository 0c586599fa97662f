// The L2's fetch granularity (l2.fetch_granularity): a read miss fetches the
// aligned group around each sector it misses, so the next sector of the group
// hits, and a lone sector costs the group's DRAM bursts. Hand counts on the
// unit profile (32-byte sectors and bursts), with the granularity against
// without it; loads are ld.global.cg, past the L1.
#include <gtest/gtest.h>

#include "gpu_harness.h"

namespace cnuas::gpu::testing {
namespace {

// Reads the word at p, then (dependent: after it arrived; independent: at
// once) the word at p + 32, the next sector of the same line, and stores the
// last word read.
std::string two_sector_kernel(bool second, bool dependent) {
  std::string s =
      ".visible .entry two(.param .u64 p, .param .u64 out)\n{\n"
      "  .reg .u64 %rd<6>;\n"
      "  ld.param.u64 %rd1, [p];\n  ld.param.u64 %rd2, [out];\n"
      "  ld.global.cg.u64 %rd3, [%rd1];\n";
  if (second)
    s += dependent ? "  ld.global.cg.u64 %rd4, [%rd3];\n" : "  ld.global.cg.u64 %rd4, [%rd1+32];\n";
  else
    s += "  mov.u64 %rd4, %rd3;\n";
  s += "  st.global.u64 [%rd2], %rd4;\n  ret;\n}\n";
  return ptx_module(s);
}

struct Traffic {
  std::uint64_t l2_hits, l2_misses, dram_reads, stored;
};

// `asked`: the program's cudaLimitMaxL2FetchGranularity (L2AccessPolicy::fetch_bytes), 0: none.
Traffic run(std::uint32_t fetch_bytes, bool second, bool dependent, std::uint32_t asked = 0) {
  ArchConfig arch = unit_arch();
  arch.l2.fetch_bytes = fetch_bytes;
  L2AccessPolicy policy;
  policy.fetch_bytes = asked;
  PerfDevice d(two_sector_kernel(second, dependent), arch);
  const std::uint64_t line = d.memory().allocate(128, 128);
  const std::uint64_t next = line + 32, value = 7;
  d.memory().write(line, &next, sizeof next);  // the first word points at the second sector
  d.memory().write(next, &value, sizeof value);
  const std::uint64_t out = d.memory().allocate(8, 128);
  const KernelRun r = d.perf_under(policy, "two", {1, 1, 1}, {1, 1, 1}, line, out);
  return {r.total.l2_hits, r.total.l2_misses, r.total.dram_reads,
          d.download<std::uint64_t>(out, 1)[0]};
}

TEST(GpuL2Fetch, TheNextSectorOfAFetchedGroupHits) {
  const Traffic sector = run(0, true, true), group = run(64, true, true);
  EXPECT_EQ(sector.stored, 7u);
  EXPECT_EQ(group.stored, 7u);
  // Without: two misses, two single-sector fetches. With 64 B: the first miss fetches both
  // sectors in one request, the second load hits.
  EXPECT_EQ(group.l2_hits, sector.l2_hits + 1);
  EXPECT_EQ(group.l2_misses, sector.l2_misses - 1);
  EXPECT_EQ(group.dram_reads, sector.dram_reads);
  EXPECT_EQ(sector.dram_reads, 2u);
}

TEST(GpuL2Fetch, ALoneSectorCostsItsWholeGroup) {
  EXPECT_EQ(run(0, false, false).dram_reads, 1u);
  EXPECT_EQ(run(64, false, false).dram_reads, 2u);
  EXPECT_EQ(run(128, false, false).dram_reads, 4u);
}

TEST(GpuL2Fetch, TheProgramsLimitReplacesTheProfilesGranularity) {
  // cudaLimitMaxL2FetchGranularity 128 on a profile without one, 32 (and 1, what the runtime
  // passes for a limit of 0) on a profile of 64.
  EXPECT_EQ(run(0, false, false, 128).dram_reads, 4u);
  EXPECT_EQ(run(64, false, false, 32).dram_reads, 1u);
  EXPECT_EQ(run(64, false, false, 1).dram_reads, 1u);
  EXPECT_EQ(run(64, false, false, 0).dram_reads, 2u);
}

TEST(GpuL2Fetch, AMissForASectorOnItsWayWaitsInsteadOfFetchingAgain) {
  // Both loads leave at once: the second finds its sector pending in the first's fetch and
  // merges (a miss, no second DRAM request).
  const Traffic sector = run(0, true, false), group = run(64, true, false);
  EXPECT_EQ(group.l2_misses, sector.l2_misses);
  EXPECT_EQ(sector.dram_reads, 2u);
  EXPECT_EQ(group.dram_reads, 2u);
  EXPECT_EQ(sector.stored, 7u);
  EXPECT_EQ(group.stored, 7u);
}

}  // namespace
}  // namespace cnuas::gpu::testing
