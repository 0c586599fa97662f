// Memory spaces, atomics and barriers.
#include <algorithm>
#include <numeric>

#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

TEST(PtxMemory, StaticDynamicSharedAndConstantMemory) {
  CNUAS_REQUIRE_NVCC();
  std::vector<int> in(512);
  std::iota(in.begin(), in.end(), -100);
  Device dev("memory.ptx");
  auto din = dev.upload(in);
  auto out = dev.alloc<int>(512);
  dev.launch_shared("block_reverse", {2, 1, 1}, {256, 1, 1}, 256 * 4, din, out);
  auto h = dev.download<int>(out, 512);
  const int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  for (int b = 0; b < 2; ++b)
    for (int t = 0; t < 256; ++t)
      EXPECT_EQ(h[b * 256 + t],
                in[b * 256 + 255 - t] + 2 * in[b * 256 + (t + 1) % 256] + table[t & 7]);
}

TEST(PtxMemory, AtomicsOnGlobalAndSharedMemory) {
  CNUAS_REQUIRE_NVCC();
  Device dev("memory.ptx");
  std::vector<int> ints{5, -1, 0, -1, 0, 77, -1, 0, 0, 0};
  auto di = dev.upload(ints);
  auto du = dev.upload(std::vector<unsigned>{0, 0});
  auto df = dev.upload(std::vector<float>{1.0f});
  auto dd = dev.upload(std::vector<double>{2.0});
  auto dw = dev.upload(std::vector<unsigned long long>{3});
  dev.launch("atomics", {4, 1, 1}, {64, 1, 1}, di, du, df, dd, dw);
  auto hi = dev.download<int>(di, 10);
  auto hu = dev.download<unsigned>(du, 2);
  const int n = 256;
  int mx = -1, mn = 0, orv = 0, xr = 77;
  unsigned inc = 0, dec = 0;
  for (int t = 0; t < n; ++t) {
    mx = std::max(mx, t * 7 % 101);
    mn = std::min(mn, -(t * 13 % 97));
    orv |= 1 << (t % 29);
    xr ^= t;
    inc = inc >= 17 ? 0 : inc + 1;
    dec = (dec == 0 || dec > 9) ? 9 : dec - 1;
  }
  EXPECT_EQ(hi[0], 5 + n);
  EXPECT_EQ(hi[1], mx);
  EXPECT_EQ(hi[2], mn);
  EXPECT_EQ(hi[3], static_cast<int>(0x80000000u));  // bits 0..30 cleared from all ones
  EXPECT_EQ(hi[4], orv);
  EXPECT_EQ(hi[5], xr);
  EXPECT_EQ(hu[0], inc);
  EXPECT_EQ(hu[1], dec);
  EXPECT_GE(hi[6], 0);  // the CAS chain advanced
  EXPECT_EQ(hi[7], 42);
  EXPECT_EQ(hi[8], n * (n - 1) / 2);  // per-block shared sums, added up
  EXPECT_EQ(dev.download<float>(df, 1)[0], 1.0f + 0.25f * n);
  EXPECT_EQ(dev.download<double>(dd, 1)[0], 2.0 + 0.125 * n);
  EXPECT_EQ(dev.download<unsigned long long>(dw, 1)[0],
            3 + (static_cast<unsigned long long>(n) << 33));
  int counter = 0;
  dev.memory().read(dev.loaded().symbol_address("counter"), &counter, 4);
  EXPECT_EQ(counter, 1000 + n);  // a __device__ variable with an initializer
}

TEST(PtxMemory, VectorLoadsStoresAndGlobalVariables) {
  CNUAS_REQUIRE_NVCC();
  std::vector<float> in(128);
  std::vector<double> din(64);
  for (int k = 0; k < 128; ++k) in[k] = 0.5f * k - 3;
  for (int k = 0; k < 64; ++k) din[k] = k * 1.25;
  Device dev("memory.ptx");
  auto a = dev.upload(in), b = dev.alloc<float>(128), c = dev.upload(din),
       d = dev.alloc<double>(64);
  dev.launch("vectors", {1, 1, 1}, {32, 1, 1}, a, b, c, d);
  auto h = dev.download<float>(b, 128);
  auto hd = dev.download<double>(d, 64);
  const int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  for (int t = 0; t < 32; ++t) {
    EXPECT_EQ(h[t * 4 + 0], in[t * 4 + 3] * 0.5f);
    EXPECT_EQ(h[t * 4 + 1], in[t * 4 + 2]);
    EXPECT_EQ(h[t * 4 + 2], in[t * 4 + 1]);
    EXPECT_EQ(h[t * 4 + 3], in[t * 4 + 0] + table[t & 7]);
    EXPECT_EQ(hd[t * 2], din[t * 2 + 1]);
    EXPECT_EQ(hd[t * 2 + 1], din[t * 2]);
  }
}

TEST(PtxMemory, GenericPointersReachSharedLocalAndGlobalSpaces) {
  CNUAS_REQUIRE_NVCC();
  Device dev("memory.ptx");
  auto g = dev.alloc<int>(32), kinds = dev.alloc<int>(128);
  dev.launch("generic", {1, 1, 1}, {32, 1, 1}, g, kinds);
  auto h = dev.download<int>(kinds, 128);
  for (int t = 0; t < 32; ++t) {
    EXPECT_EQ(h[t * 4 + 0], 1) << "shared " << t;
    EXPECT_EQ(h[t * 4 + 1], 2) << "local " << t;
    EXPECT_EQ(h[t * 4 + 2], 4) << "global " << t;
    EXPECT_EQ(h[t * 4 + 3], (t + 1) + (100 * t + 2) + (10 * t + 3)) << t;
  }
}

TEST(PtxMemory, AsyncCopyIntoSharedMemory) {
  CNUAS_REQUIRE_NVCC();
  std::vector<int> in(256);
  std::iota(in.begin(), in.end(), 7);
  Device dev("memory.ptx");
  auto a = dev.upload(in), b = dev.alloc<int>(256);
  dev.launch("async_copy", {1, 1, 1}, {64, 1, 1}, a, b);
  auto h = dev.download<int>(b, 256);
  for (int t = 0; t < 64; ++t)
    for (int k = 0; k < 4; ++k) EXPECT_EQ(h[t * 4 + k], in[(63 - t) * 4 + k]);
}

TEST(PtxMemory, BarrierReductions) {
  CNUAS_REQUIRE_NVCC();
  std::vector<int> in(96);
  for (int k = 0; k < 96; ++k) in[k] = (k * 29) % 95 + 1;
  Device dev("memory.ptx");
  auto a = dev.upload(in), out = dev.alloc<int>(3);
  dev.launch("votes", {1, 1, 1}, {96, 1, 1}, a, out);
  auto h = dev.download<int>(out, 3);
  EXPECT_EQ(h[0],
            static_cast<int>(std::count_if(in.begin(), in.end(), [](int v) { return v > 10; })));
  EXPECT_EQ(h[1], std::all_of(in.begin(), in.end(), [](int v) { return v > 0; }) ? 1 : 0);
  EXPECT_EQ(h[2], std::any_of(in.begin(), in.end(), [](int v) { return v > 90; }) ? 1 : 0);
}

}  // namespace
}  // namespace cnuas::ptx::testing

namespace cnuas::ptx::testing {
namespace {

TEST(PtxMemory, MbarrierPhasesWithAsyncCopies) {
  CNUAS_REQUIRE_NVCC();
  std::vector<int> in(256);
  for (int k = 0; k < 256; ++k) in[k] = k * 3 - 100;
  Device dev("memory.ptx");
  auto a = dev.upload(in), out = dev.alloc<int>(256);
  const int rounds = 3;
  dev.launch("split_barrier", {1, 1, 1}, {256, 1, 1}, a, out, rounds);
  auto h = dev.download<int>(out, 256);
  std::vector<int> acc(256);
  for (int t = 0; t < 256; ++t) acc[t] = in[255 - t];
  for (int r = 0; r < rounds; ++r) {
    std::vector<int> s(256);
    for (int t = 0; t < 256; ++t) s[t] = acc[t] + r;
    for (int t = 0; t < 256; ++t) acc[t] = s[(t + 32) % 256];
  }
  for (int t = 0; t < 256; ++t) EXPECT_EQ(h[t], acc[t]) << t;
}

TEST(PtxMemory, AnMbarrierThatCanNeverCompleteIsReported) {
  const char* text = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry stuck()
{
  .reg .pred %p;
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  .shared .align 8 .b64 bar;
  mov.u32 %r1, bar;
  mov.u32 %r2, 64;
  mbarrier.init.shared.b64 [%r1], %r2;
  mbarrier.arrive.shared.b64 %rd1, [%r1];
$Lwait:
  mbarrier.try_wait.shared.b64 %p, [%r1], %rd1;
  @!%p bra $Lwait;
  ret;
})";
  DeviceMemory mem;
  std::ostringstream out;
  Executor exec(mem, out);
  LoadedModule lm(Module::parse(text, "stuck.ptx"), mem);
  LaunchConfig cfg;
  cfg.block = {32, 1, 1};  // 32 threads arrive on a barrier that expects 64
  try {
    exec.launch(lm, "stuck", cfg);
    FAIL() << "expected an error";
  } catch (const ExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("can never complete"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cnuas::ptx::testing

namespace cnuas::ptx::testing {
namespace {

TEST(PtxMemory, ClustersOfOneCtaSyncAndMapSharedMemory) {
  CNUAS_REQUIRE_NVCC();
  Device dev("memory.ptx");
  auto out = dev.alloc<int>(64 * 3);
  dev.launch("cluster_one", {3, 1, 1}, {64, 1, 1}, out);
  auto h = dev.download<int>(out, 64);
  for (int t = 0; t < 64; ++t)
    EXPECT_EQ(h[t], 3 * ((t + 1) % 64) + 0 * 1000 + 1 * 100000 + 1 * 10) << t;
}

TEST(PtxMemory, ClustersOfFourCtasShareMemoryAndBarriers) {
  CNUAS_REQUIRE_NVCC();
  Device dev("memory.ptx");
  auto out = dev.alloc<int>(8 * 32);
  dev.launch("cluster_ring", {8, 1, 1}, {32, 1, 1}, out);  // two clusters of four
  auto h = dev.download<int>(out, 8 * 32);
  for (int b = 0; b < 8; ++b)
    for (int t = 0; t < 32; ++t) {
      const int rank = b % 4, next = (rank + 1) % 4;
      const int expect =
          next * 100 + (t + 1) % 32 + (rank == 0 ? 4 * 32 * 10000 : 0) + next * 1000000;
      EXPECT_EQ(h[b * 32 + t], expect) << "CTA " << b << " thread " << t;
    }
}

TEST(PtxMemory, ClusterShapesMustDivideTheGrid) {
  CNUAS_REQUIRE_NVCC();
  Device dev("memory.ptx");
  auto out = dev.alloc<int>(6 * 32);
  try {
    dev.launch("cluster_ring", {6, 1, 1}, {32, 1, 1}, out);
    FAIL() << "expected a refusal";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "cluster 4x1x1 must hold 1 to 16 CTAs and divide the grid 6x1x1"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cnuas::ptx::testing
