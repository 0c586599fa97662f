// Control flow, calls and printf against host executions of the same logic.
#include <cmath>

#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

TEST(PtxControl, DivergentLoopsBreaksContinuesAndEarlyExitReconverge) {
  CNUAS_REQUIRE_NVCC();
  std::vector<int> in;
  for (int k = 0; k < 200; ++k) in.push_back((k * 37 + 11) % 97 - (k % 7 == 0 ? 150 : 0));
  const int n = static_cast<int>(in.size());
  Device dev("control.ptx");
  auto din = dev.upload(in);
  auto out = dev.alloc<int>(n);
  dev.launch("diverge", {2, 1, 1}, {128, 1, 1}, din, out, n);
  auto h = dev.download<int>(out, n);
  for (int i = 0; i < n; ++i) {
    const int v = in[i];
    int acc = 0;
    for (int k = 0; k < 64; ++k) {
      if (k > (v & 31)) break;
      if ((k + v) % 3 == 0) continue;
      if (k & 1) {
        acc += k * 2;
        if (acc > 500) break;
      } else {
        acc -= k;
      }
    }
    if (v < 0) {
      EXPECT_EQ(h[i], -acc) << i;
      continue;
    }
    // Lanes of this warp still running after the early exits.
    int live = 0;
    for (int j = i / 32 * 32; j < std::min(n, i / 32 * 32 + 32); ++j) live += in[j] >= 0;
    EXPECT_EQ(h[i], acc + live) << i;
  }
}

int fib(int n) {
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

TEST(PtxControl, RecursiveCallsAndLocalMemory) {
  CNUAS_REQUIRE_NVCC();
  const std::vector<float> v{1.5f, -2.0f, 0.25f, 8.0f, 3.0f};
  Device dev("control.ptx");
  auto dv = dev.upload(v);
  auto fibs = dev.alloc<int>(64);
  auto weights = dev.alloc<float>(64);
  dev.launch("calls", {1, 1, 1}, {64, 1, 1}, dv, fibs, weights);
  auto hf = dev.download<int>(fibs, 64);
  auto hw = dev.download<float>(weights, 64);
  for (int i = 0; i < 64; ++i) {
    EXPECT_EQ(hf[i], fib(i % 16)) << i;
    const int n = 1 + i % 5;
    const float scale = 0.5f * static_cast<float>(i);
    float local[16];
    for (int k = 0; k < 16; ++k) local[k] = v[k % n] * scale + static_cast<float>(k);
    float s = 0;
    for (int k = 15; k >= 0; k -= 3) s += local[(k * 7) & 15];
    EXPECT_NEAR(hw[i], s, 1e-4f * (1 + std::fabs(s))) << i;  // nvcc may fuse into fma
  }
}

TEST(PtxControl, SwitchDispatch) {
  CNUAS_REQUIRE_NVCC();
  std::vector<int> in;
  for (int k = 0; k < 64; ++k) in.push_back(k * 5 + 3);
  Device dev("control.ptx");
  auto din = dev.upload(in);
  auto out = dev.alloc<int>(64);
  dev.launch("dispatch", {1, 1, 1}, {64, 1, 1}, din, out);
  auto h = dev.download<int>(out, 64);
  for (int i = 0; i < 64; ++i) {
    int r;
    switch (in[i] & 15) {
      case 0:
        r = 11;
        break;
      case 1:
        r = 7 * i;
        break;
      case 2:
        r = i ^ 5;
        break;
      case 3:
        r = -i;
        break;
      case 4:
        r = 100;
        break;
      case 5:
        r = i * i;
        break;
      case 6:
        r = 3;
        break;
      case 7:
        r = i + 17;
        break;
      case 8:
        r = 1234;
        break;
      case 9:
        r = i >> 1;
        break;
      default:
        r = -1;
    }
    EXPECT_EQ(h[i], r) << i;
  }
}

TEST(PtxControl, DevicePrintfFormatsLikeTheHost) {
  CNUAS_REQUIRE_NVCC();
  Device dev("control.ptx");
  dev.launch("say", {1, 1, 1}, {32, 1, 1}, 7);
  std::string expect;
  char line[256];
  for (int t : {0, 16}) {
    std::snprintf(line, sizeof line, "thread %d of %d: %d %.3f %s %lld|%5d|%-4x|\n", t, 32, 7 + t,
                  1.5 * t, "ok", -1234567890123ll, 42, 255);
    expect += line;
  }
  EXPECT_EQ(dev.printed(), expect);
}

TEST(PtxControl, ThreeDimensionalGridsAndBlocks) {
  CNUAS_REQUIRE_NVCC();
  const int nx = 19, ny = 7, nz = 5;
  Device dev("control.ptx");
  auto out = dev.alloc<int>(nx * ny * nz);
  dev.launch("grid3d", {3, 2, 3}, {8, 4, 2}, out, nx, ny, nz);
  auto h = dev.download<int>(out, nx * ny * nz);
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) EXPECT_EQ(h[(z * ny + y) * nx + x], x + 100 * y + 10000 * z);
}

}  // namespace
}  // namespace cnuas::ptx::testing
