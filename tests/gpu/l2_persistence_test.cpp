// Persisting L2 lines (an access policy window with a set-aside): a hot
// buffer read again after a larger buffer has streamed through the L2 still
// hits when its lines persist, and misses when they do not.
//
// The unit profile's L2 is one 64 KiB slice of 16 ways and 128-byte lines:
// 32 sets. The hot buffer (16 KiB, 128 lines) puts 4 lines in every set; the
// cold buffer (128 KiB, 1024 lines) puts 32 in every set, twice the ways, so
// under plain LRU it evicts every hot line. A read of the hot buffer is 128
// lines of 4 sectors: 512 sectors.
#include <gtest/gtest.h>

#include <vector>

#include "gpu_harness.h"

namespace cnuas::gpu::testing {
namespace {

constexpr std::uint64_t kHotBytes = 16 << 10, kColdBytes = 128 << 10;
constexpr std::uint64_t kHotSectors = kHotBytes / 32;

struct Buffers {
  std::uint64_t hot, cold, out;
};

Buffers make_buffers(PerfDevice& d) {
  // Each buffer starts on a 64 KiB boundary, so its lines spread evenly over the sets.
  return {d.upload(std::vector<float>(kHotBytes / 4, 1.0f), 64 << 10),
          d.upload(std::vector<float>(kColdBytes / 4, 1.0f), 64 << 10), d.memory().allocate(4)};
}

// Reads a buffer once (a float4 per thread, 256 threads per CTA).
KernelRun read(PerfDevice& d, const Buffers& b, std::uint64_t base, std::uint64_t bytes,
               const L2AccessPolicy& policy) {
  const std::uint64_t n = bytes / 16;
  return d.perf_under(policy, "stream", {static_cast<std::uint32_t>(n / 256), 1, 1}, {256, 1, 1},
                      base, b.out, n);
}

// Hot, then cold, then hot again under `policy`; the last read's L2 sectors.
KernelRun hot_after_cold(const L2AccessPolicy& policy) {
  PerfDevice d(stream_kernel());
  const Buffers b = make_buffers(d);
  L2AccessPolicy p = policy;
  if (p.bytes) p.base = b.hot;
  read(d, b, b.hot, kHotBytes, p);
  read(d, b, b.cold, kColdBytes, p);
  return read(d, b, b.hot, kHotBytes, p);
}

L2AccessPolicy persisting_hot(std::uint64_t set_aside) {
  L2AccessPolicy p;
  p.bytes = kHotBytes;
  p.hit_ratio = 1.0;
  p.hit = Retention::Persisting;
  p.miss = Retention::Streaming;
  p.set_aside_bytes = set_aside;
  return p;
}

TEST(GpuL2Persistence, WithoutAWindowTheColdBufferEvictsTheHotOne) {
  const KernelRun r = hot_after_cold({});
  EXPECT_EQ(r.total.l2_hits, 0u);
  EXPECT_EQ(r.total.l2_misses, kHotSectors);
}

TEST(GpuL2Persistence, PersistingLinesSurviveTheColdBuffer) {
  // 16 KiB of the 64 KiB set aside: 4 of 16 ways per set, the hot buffer's 4 lines.
  const KernelRun r = hot_after_cold(persisting_hot(kHotBytes));
  EXPECT_EQ(r.total.l2_hits, kHotSectors);
  EXPECT_EQ(r.total.l2_misses, 0u);
}

TEST(GpuL2Persistence, NoSetAsideMeansNothingPersists) {
  const KernelRun r = hot_after_cold(persisting_hot(0));
  EXPECT_EQ(r.total.l2_hits, 0u);
}

TEST(GpuL2Persistence, ASetAsideSmallerThanTheHotBufferKeepsOnlyItsShare) {
  // 8 KiB: 2 ways per set, so 2 of each set's 4 hot lines persist (the two
  // filled last; the two before become normal and go with the cold buffer):
  // half the sectors hit.
  const KernelRun r = hot_after_cold(persisting_hot(8 << 10));
  EXPECT_EQ(r.total.l2_hits, kHotSectors / 2);
  EXPECT_EQ(r.total.l2_misses, kHotSectors / 2);
}

TEST(GpuL2Persistence, HitRatioZeroGivesEveryLineTheMissProperty) {
  L2AccessPolicy p = persisting_hot(kHotBytes);
  p.hit_ratio = 0.0;
  p.miss = Retention::Normal;
  EXPECT_EQ(hot_after_cold(p).total.l2_hits, 0u);
}

TEST(GpuL2Persistence, StreamingLinesAreEvictedFirst) {
  // The window covers the cold buffer, all streaming: its lines enter at the
  // LRU end and displace one another, never the 4 hot lines of a set.
  PerfDevice d(stream_kernel());
  const Buffers b = make_buffers(d);
  L2AccessPolicy p;
  p.base = b.cold;
  p.bytes = kColdBytes;
  p.hit_ratio = 0.0;
  p.miss = Retention::Streaming;
  read(d, b, b.hot, kHotBytes, p);
  read(d, b, b.cold, kColdBytes, p);
  EXPECT_EQ(read(d, b, b.hot, kHotBytes, p).total.l2_hits, kHotSectors);
}

TEST(GpuL2Persistence, AHitUnderTheWindowMakesTheLinePersist) {
  // The hot lines come in as normal lines; a second read under the window
  // hits them and makes them persist, so the cold buffer leaves them. (In
  // between, 16 KiB of the cold buffer pushes the hot lines out of the 4 KiB
  // L1s, so that the second read reaches the L2; with the hot buffer's they
  // fill 8 of each set's 16 ways.)
  PerfDevice d(stream_kernel());
  const Buffers b = make_buffers(d);
  L2AccessPolicy p = persisting_hot(kHotBytes);
  p.base = b.hot;
  read(d, b, b.hot, kHotBytes, {});
  read(d, b, b.cold, kHotBytes, {});
  EXPECT_EQ(read(d, b, b.hot, kHotBytes, p).total.l2_hits, kHotSectors);
  read(d, b, b.cold, kColdBytes, {});
  EXPECT_EQ(read(d, b, b.hot, kHotBytes, {}).total.l2_hits, kHotSectors);
}

TEST(GpuL2Persistence, ResetMakesPersistingLinesNormalAgain) {
  PerfDevice d(stream_kernel());
  const Buffers b = make_buffers(d);
  L2AccessPolicy p = persisting_hot(kHotBytes);
  p.base = b.hot;
  read(d, b, b.hot, kHotBytes, p);
  d.gpu().reset_persisting_l2();
  read(d, b, b.cold, kColdBytes, {});
  EXPECT_EQ(read(d, b, b.hot, kHotBytes, {}).total.l2_hits, 0u);
}

}  // namespace
}  // namespace cnuas::gpu::testing
