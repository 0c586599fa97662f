// The benchmark kernels compute the right answers (the benchmark only times them).
#include <cmath>

#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

TEST(PtxWorkloads, TiledSgemmMatchesTheHost) {
  CNUAS_REQUIRE_NVCC();
  const int M = 37, N = 45, K = 50;  // not multiples of the tile: edges are exercised
  std::vector<float> A(M * K), B(K * N), C(M * N);
  for (int k = 0; k < M * K; ++k) A[k] = static_cast<float>((k * 7) % 13) - 6;
  for (int k = 0; k < K * N; ++k) B[k] = static_cast<float>((k * 5) % 11) * 0.25f;
  for (int k = 0; k < M * N; ++k) C[k] = static_cast<float>(k % 3);
  Device dev("workloads.ptx");
  auto a = dev.upload(A), b = dev.upload(B), c = dev.upload(C);
  dev.launch("sgemm", {(N + 15) / 16, (M + 15) / 16, 1}, {16, 16, 1}, a, b, c, M, N, K, 2.0f, 0.5f);
  auto h = dev.download<float>(c, M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double acc = 0;
      for (int k = 0; k < K; ++k) acc += double{A[i * K + k]} * B[k * N + j];
      // Small integers and quarters: every partial sum is exact in float.
      EXPECT_EQ(h[i * N + j], static_cast<float>(2 * acc + 0.5 * C[i * N + j])) << i << "," << j;
    }
}

TEST(PtxWorkloads, StreamTriadMatchesTheHost) {
  CNUAS_REQUIRE_NVCC();
  const int n = 10000;
  std::vector<float> a(n), b(n);
  for (int k = 0; k < n; ++k) a[k] = 0.5f * k, b[k] = 3.0f - k;
  Device dev("workloads.ptx");
  auto da = dev.upload(a), db = dev.upload(b), dc = dev.alloc<float>(n);
  dev.launch("triad", {8, 1, 1}, {256, 1, 1}, da, db, dc, 3.0f, n);
  auto h = dev.download<float>(dc, n);
  for (int k = 0; k < n; ++k) EXPECT_EQ(h[k], std::fma(3.0f, b[k], a[k])) << k;  // nvcc fuses
}

}  // namespace
}  // namespace cnuas::ptx::testing
