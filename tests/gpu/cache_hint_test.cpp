// Cache qualifiers of ld/st on the unit profile: one SM pair, a 4 KiB L1 (4 ways, 8 sets of
// 128-byte lines), one L2 slice of 64 KiB (16 ways, 32 sets), 32-byte sectors and bursts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu/cache_hint.h"
#include "gpu_harness.h"

namespace cnuas::gpu::testing {
namespace {

// Two reads of the same float4 by every thread of one warp (512 bytes: 4 lines, 16 sectors),
// the second after the first has returned, with qualifier `q` ("" for none).
std::string read_twice(const std::string& q) {
  const std::string ld = "ld.global" + q + ".v4.f32";
  return ptx_module(R"(
.visible .entry twice(.param .u64 a, .param .u64 out)
{
  .reg .u32 %r<2>;
  .reg .u64 %rd<5>;
  .reg .f32 %f<10>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 16;
  add.u64 %rd4, %rd1, %rd3;
  )" + ld + R"( {%f1, %f2, %f3, %f4}, [%rd4];
  add.f32 %f9, %f1, %f2;
  )" + ld + R"( {%f5, %f6, %f7, %f8}, [%rd4];
  add.f32 %f9, %f9, %f5;
  setp.lt.f32 %p1, %f9, 0f00000000;
  @%p1 st.global.f32 [%rd2], %f9;
  ret;
}
)");
}

KernelRun twice(const std::string& q) {
  PerfDevice d(read_twice(q));
  const std::uint64_t a = d.upload(std::vector<float>(32 * 4, 1.0f));
  return d.perf("twice", {1, 1, 1}, {32, 1, 1}, a, d.memory().allocate(4));
}

TEST(GpuCacheHints, QualifiersAreReadFromTheMnemonic) {
  auto hint = [](const std::string& stmt) {
    const auto m = ptx::Module::parse(
        ptx_module(".visible .entry k(.param .u64 a)\n{\n .reg .u64 %rd<3>;\n .reg .pred %p<2>;\n"
                   " ld.param.u64 %rd1, [a];\n " +
                   stmt + "\n ret;\n}\n"),
        "h.ptx");
    return cache_hint_of(m->functions.front().code[1]).bits;
  };
  using H = CacheHint;
  EXPECT_EQ(hint("ld.global.u64 %rd2, [%rd1];"), 0);
  EXPECT_EQ(hint("ld.global.ca.u64 %rd2, [%rd1];"), 0);
  EXPECT_EQ(hint("ld.global.cg.u64 %rd2, [%rd1];"), H::kBypassL1);
  EXPECT_EQ(hint("@%p1 ld.global.cv.u64 %rd2, [%rd1];"), H::kBypassL1 | H::kRefetch);
  EXPECT_EQ(hint("ld.global.cs.u64 %rd2, [%rd1];"), H::kL1Streaming | H::kL2Streaming);
  EXPECT_EQ(hint("ld.global.lu.u64 %rd2, [%rd1];"), H::kL1Streaming | H::kL2Streaming);
  EXPECT_EQ(hint("ld.global.L1::no_allocate.L2::evict_last.u64 %rd2, [%rd1];"),
            H::kL1NoAllocate | H::kL2Last);
  EXPECT_EQ(hint("ld.global.L2::evict_first.u64 %rd2, [%rd1];"), H::kL2Streaming);
  EXPECT_EQ(hint("st.global.cs.u64 [%rd1], %rd2;"), H::kL1Streaming | H::kL2Streaming);
  EXPECT_EQ(hint("add.u64 %rd2, %rd1, %rd1;"), 0);
}

TEST(GpuCacheHints, DefaultLoadsHitL1TheSecondTime) {
  // First read: 16 sectors miss L1 and L2 (cold); second: 16 L1 hits.
  const KernelRun r = twice("");
  EXPECT_EQ(r.total.l1_misses, 16u);
  EXPECT_EQ(r.total.l1_hits, 16u);
  EXPECT_EQ(r.total.l2_misses, 16u);
}

TEST(GpuCacheHints, CgLoadsBypassL1AndHitL2) {
  // .cg: both reads miss L1 (32 sectors); the first misses L2, the second hits it.
  const KernelRun r = twice(".cg");
  EXPECT_EQ(r.total.l1_hits, 0u);
  EXPECT_EQ(r.total.l1_misses, 32u);
  EXPECT_EQ(r.total.l2_misses, 16u);
  EXPECT_EQ(r.total.l2_hits, 16u);
  EXPECT_EQ(r.total.dram_reads, 16u);  // one 32-byte burst per sector, once
}

TEST(GpuCacheHints, CvLoadsFetchAgainFromMemory) {
  // .cv: neither L1 nor L2 keeps the sectors: both reads go to DRAM (2 x 16 bursts).
  const KernelRun r = twice(".cv");
  EXPECT_EQ(r.total.l1_hits, 0u);
  EXPECT_EQ(r.total.l2_hits, 0u);
  EXPECT_EQ(r.total.l2_misses, 32u);
  EXPECT_EQ(r.total.dram_reads, 32u);
}

TEST(GpuCacheHints, NoAllocateLoadsMissL1AgainButHitL2) {
  const KernelRun r = twice(".L1::no_allocate");
  EXPECT_EQ(r.total.l1_hits, 0u);
  EXPECT_EQ(r.total.l2_hits, 16u);
}

// Reads a buffer once, a float4 per thread, 256 threads per CTA, with qualifier `q`: the
// entry `name` (the PTX text without its module header).
std::string sweep(const std::string& name, const std::string& q) {
  std::string s = stream_kernel();
  s = s.substr(s.find(".visible"));
  const std::string plain = "ld.global.v4.f32", entry = ".entry stream(";
  s.replace(s.find(plain), plain.size(), "ld.global" + q + ".v4.f32");
  s.replace(s.find(entry), entry.size(), ".entry " + name + "(");
  return s;
}

constexpr std::uint64_t kHot = 16 << 10, kCold = 128 << 10;

// Reads 16 KiB hot (4 lines in every L2 set, each buffer 64 KiB aligned), then 128 KiB cold
// with `cold_q` (32 lines in every set, twice the ways: under plain LRU every hot line goes),
// then the hot buffer again past L1 (.cg); returns that read's L2 sector hits (of 512).
std::uint64_t hot_hits_after_cold(const std::string& hot_q, const std::string& cold_q,
                                  const L2AccessPolicy& policy = {}) {
  PerfDevice d(ptx_module(sweep("hot", hot_q) + sweep("cold", cold_q) + sweep("again", ".cg")));
  const std::uint64_t hot = d.upload(std::vector<float>(kHot / 4, 1.0f), 64 << 10);
  const std::uint64_t cold = d.upload(std::vector<float>(kCold / 4, 1.0f), 64 << 10);
  const std::uint64_t out = d.memory().allocate(4);
  auto read = [&](const char* k, std::uint64_t a, std::uint64_t bytes) {
    return d.perf_under(policy, k, {static_cast<std::uint32_t>(bytes / 16 / 256), 1, 1},
                        {256, 1, 1}, a, out, bytes / 16);
  };
  read("hot", hot, kHot);
  read("cold", cold, kCold);
  return read("again", hot, kHot).total.l2_hits;
}

constexpr std::uint64_t kHotLineSectors = kHot / 32;

TEST(GpuCacheHints, PlainColdLinesEvictTheHotOnes) {
  EXPECT_EQ(hot_hits_after_cold("", ""), 0u);
}

TEST(GpuCacheHints, EvictFirstLinesAreEvictedBeforeNormalOnes) {
  // The cold lines enter at the LRU end and displace one another, never the 4 hot lines of a
  // set (12 ways are left for them).
  EXPECT_EQ(hot_hits_after_cold("", ".L2::evict_first"), kHotLineSectors);
  EXPECT_EQ(hot_hits_after_cold("", ".cs"), kHotLineSectors);
  EXPECT_EQ(hot_hits_after_cold("", ".lu"), kHotLineSectors);
}

TEST(GpuCacheHints, EvictLastLinesStayWithinTheSetAside) {
  // evict_last lines persist within the persisting set-aside (16 KiB: 4 of 16 ways per set,
  // the hot buffer's 4 lines); without a set-aside they are normal lines.
  L2AccessPolicy set_aside;
  set_aside.set_aside_bytes = kHot;
  EXPECT_EQ(hot_hits_after_cold(".L2::evict_last", "", set_aside), kHotLineSectors);
  EXPECT_EQ(hot_hits_after_cold(".L2::evict_last", ""), 0u);
}

}  // namespace
}  // namespace cnuas::gpu::testing
