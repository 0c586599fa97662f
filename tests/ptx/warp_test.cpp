// Warp-level primitives against their CUDA definitions.
#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

TEST(PtxWarp, ShufflesVotesAndMatches) {
  CNUAS_REQUIRE_NVCC();
  std::vector<int> v(32);
  for (int t = 0; t < 32; ++t) v[t] = (t * 13 + 5) % 71 - 3;
  Device dev("warp.ptx");
  auto in = dev.upload(v), out = dev.alloc<int>(320);
  dev.launch("shuffles", {1, 1, 1}, {32, 1, 1}, in, out);
  auto h = dev.download<int>(out, 320);
  unsigned ballot = 0;
  bool all = true, any = false;
  for (int t = 0; t < 32; ++t) {
    ballot |= static_cast<unsigned>(v[t] & 1) << t;
    all = all && v[t] > -5;
    any = any || v[t] > 60;
  }
  for (int t = 0; t < 32; ++t) {
    const int* o = &h[t * 10];
    EXPECT_EQ(o[0], v[(t * 7) & 31]) << t;
    EXPECT_EQ(o[1], t >= 3 ? v[t - 3] : v[t]) << t;
    EXPECT_EQ(o[2], t + 5 <= 31 ? v[t + 5] : v[t]) << t;
    EXPECT_EQ(o[3], v[t ^ 6]) << t;
    EXPECT_EQ(o[4], v[(t & ~7) + ((t + 1) & 7)]) << t;
    EXPECT_EQ(o[5], (t % 16) + 2 < 16 ? v[t + 2] : v[t]) << t;
    EXPECT_EQ(static_cast<unsigned>(o[6]), ballot) << t;
    EXPECT_EQ(o[7], static_cast<int>(all) | static_cast<int>(any) << 1) << t;
    unsigned same = 0;
    for (int k = 0; k < 32; ++k) same |= static_cast<unsigned>(v[k] % 4 == v[t] % 4) << k;
    EXPECT_EQ(static_cast<unsigned>(o[8]), same) << t;
    EXPECT_EQ(o[9], static_cast<int>(0xffffffffu ^ (1u << 5))) << t;  // v/1000 is 0 everywhere
  }
}

TEST(PtxWarp, ReductionsOverAPartialWarp) {
  CNUAS_REQUIRE_NVCC();
  std::vector<unsigned> v(32);
  for (int t = 0; t < 32; ++t)
    v[t] = static_cast<unsigned>((t * 2654435761u) >> 7) ^ (t % 3 ? 0x80000000u : 0);
  Device dev("warp.ptx");
  auto in = dev.upload(v), out = dev.alloc<unsigned>(160);
  dev.launch("reductions", {1, 1, 1}, {32, 1, 1}, in, out);
  auto h = dev.download<unsigned>(out, 160);
  unsigned sum = 0, mn = ~0u, x = 0;
  int mx = INT32_MIN;
  for (int t = 0; t < 24; ++t) {
    sum += v[t];
    mn = std::min(mn, v[t]);
    mx = std::max(mx, static_cast<int>(v[t]));
    x ^= v[t];
  }
  for (int t = 0; t < 24; ++t) {
    EXPECT_EQ(h[t * 5 + 0], sum);
    EXPECT_EQ(h[t * 5 + 1], mn);
    EXPECT_EQ(static_cast<int>(h[t * 5 + 2]), mx);
    EXPECT_EQ(h[t * 5 + 3], x);
    EXPECT_EQ(h[t * 5 + 4], 0x00ffffffu);
  }
}

}  // namespace
}  // namespace cnuas::ptx::testing
