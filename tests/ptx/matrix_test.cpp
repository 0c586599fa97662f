// wmma against host matrix products. Inputs are small integers and halves, so
// every product and sum is exact and the expected values are too.
#include <cmath>

#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

// binary16 bits of a value binary16 represents exactly (normal or zero).
std::uint16_t f16_bits(float f) {
  if (f == 0) return std::signbit(f) ? 0x8000 : 0;
  int e;
  const double m = std::frexp(std::fabs(f), &e);  // f = m * 2^e, m in [0.5, 1)
  const auto mantissa = static_cast<std::uint16_t>((m * 2 - 1) * 1024);
  return static_cast<std::uint16_t>((f < 0 ? 0x8000 : 0) | ((e - 1 + 15) << 10) | mantissa);
}

std::uint16_t bf16_bits(float f) {  // exact: the values have few mantissa bits
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return static_cast<std::uint16_t>(b >> 16);
}

// Element (r, c) of an R x C matrix stored row- or column-major with leading dimension ld.
std::size_t at(int r, int c, bool row_major, int ld) {
  return row_major ? static_cast<std::size_t>(r * ld + c) : static_cast<std::size_t>(c * ld + r);
}

float value(int r, int c, int salt) {
  return static_cast<float>(((r * 7 + c * 3 + salt) % 9) - 4) * 0.5f;
}

TEST(PtxMatrix, WmmaF16RowColWithElementwiseEpilogue) {
  CNUAS_REQUIRE_NVCC();
  std::vector<std::uint16_t> a(256), b(256);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c) {
      a[at(r, c, true, 16)] = f16_bits(value(r, c, 1));
      b[at(r, c, false, 16)] = f16_bits(value(r, c, 2));  // B is K x N, column-major
    }
  Device dev("matrix.ptx");
  auto da = dev.upload(a), db = dev.upload(b), dc = dev.alloc<float>(256);
  dev.launch("wmma_f16", {1, 1, 1}, {32, 1, 1}, da, db, dc);
  auto h = dev.download<float>(dc, 256);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      double s = 0;
      for (int k = 0; k < 16; ++k) s += double{value(i, k, 1)} * value(k, j, 2);
      EXPECT_EQ(h[i * 16 + j], static_cast<float>(2 * s + 1)) << i << "," << j;
    }
}

TEST(PtxMatrix, WmmaBf16TallTileColumnMajorAccumulatingOntoLoadedC) {
  CNUAS_REQUIRE_NVCC();
  const int M = 32, N = 8, K = 16;
  std::vector<std::uint16_t> a(M * K), b(K * N);
  std::vector<float> c(M * N);
  for (int r = 0; r < M; ++r)
    for (int k = 0; k < K; ++k) a[at(r, k, false, M)] = bf16_bits(value(r, k, 3));
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) b[at(k, j, true, N)] = bf16_bits(value(k, j, 4));
  for (int r = 0; r < M; ++r)
    for (int j = 0; j < N; ++j) c[at(r, j, false, M)] = static_cast<float>(r - j);
  Device dev("matrix.ptx");
  auto da = dev.upload(a), db = dev.upload(b), dc = dev.upload(c);
  dev.launch("wmma_bf16", {1, 1, 1}, {32, 1, 1}, da, db, dc);
  auto h = dev.download<float>(dc, M * N);
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = i - j;
      for (int k = 0; k < K; ++k) s += double{value(i, k, 3)} * value(k, j, 4);
      EXPECT_EQ(h[at(i, j, false, M)], static_cast<float>(s)) << i << "," << j;
    }
}

TEST(PtxMatrix, WmmaHalfAccumulatorTf32Int8AndF64) {
  CNUAS_REQUIRE_NVCC();
  Device dev("matrix.ptx");
  {  // f16 accumulate
    std::vector<std::uint16_t> a(256), b(256);
    for (int r = 0; r < 16; ++r)
      for (int c = 0; c < 16; ++c) {
        a[at(r, c, true, 16)] = f16_bits(value(r, c, 5));
        b[at(r, c, true, 16)] = f16_bits(value(r, c, 6));
      }
    auto da = dev.upload(a), db = dev.upload(b), dc = dev.alloc<std::uint16_t>(256);
    dev.launch("wmma_half_acc", {1, 1, 1}, {32, 1, 1}, da, db, dc);
    auto h = dev.download<std::uint16_t>(dc, 256);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        double s = 0.5;
        for (int k = 0; k < 16; ++k) s += double{value(i, k, 5)} * value(k, j, 6);
        EXPECT_EQ(h[i * 16 + j], f16_bits(static_cast<float>(s))) << "f16 acc " << i << "," << j;
      }
  }
  {  // tf32: inputs with more mantissa than tf32 keeps are rounded by __float_to_tf32
    std::vector<float> a(16 * 8), b(8 * 16);
    for (int r = 0; r < 16; ++r)
      for (int k = 0; k < 8; ++k)
        a[at(r, k, true, 8)] = value(r, k, 7) + (r == 3 ? 1.0f / 4096 : 0.0f);
    for (int k = 0; k < 8; ++k)
      for (int j = 0; j < 16; ++j) b[at(k, j, true, 16)] = value(k, j, 8);
    auto da = dev.upload(a), db = dev.upload(b), dc = dev.alloc<float>(256);
    dev.launch("wmma_tf32", {1, 1, 1}, {32, 1, 1}, da, db, dc);
    auto h = dev.download<float>(dc, 256);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        double s = 0;
        // 1/4096 is below tf32's precision next to values >= 0.5 (10 mantissa bits): it vanishes
        for (int k = 0; k < 8; ++k) {
          const float av = value(i, k, 7);
          const float kept = (i == 3 && std::fabs(av) < 0.25f) ? av + 1.0f / 4096 : av;
          s += double{kept} * value(k, j, 8);
        }
        EXPECT_EQ(h[i * 16 + j], static_cast<float>(s)) << "tf32 " << i << "," << j;
      }
  }
  {  // int8 with an s32 accumulator
    std::vector<signed char> a(256), b(256);
    for (int r = 0; r < 16; ++r)
      for (int c = 0; c < 16; ++c) {
        a[at(r, c, true, 16)] = static_cast<signed char>((r * 37 + c * 11) % 255 - 127);
        b[at(r, c, false, 16)] = static_cast<signed char>((r * 13 + c * 29) % 255 - 127);
      }
    auto da = dev.upload(a), db = dev.upload(b), dc = dev.alloc<int>(256);
    dev.launch("wmma_s8", {1, 1, 1}, {32, 1, 1}, da, db, dc);
    auto h = dev.download<int>(dc, 256);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        int s = 7;
        for (int k = 0; k < 16; ++k) s += a[at(i, k, true, 16)] * b[at(k, j, false, 16)];
        EXPECT_EQ(h[i * 16 + j], s) << "s8 " << i << "," << j;
      }
  }
  {  // f64 8x8x4
    std::vector<double> a(32), b(32);
    for (int r = 0; r < 8; ++r)
      for (int k = 0; k < 4; ++k) a[at(r, k, true, 4)] = 0.1 * (r + 1) - k;
    for (int k = 0; k < 4; ++k)
      for (int j = 0; j < 8; ++j) b[at(k, j, true, 8)] = 1.5 * k - 0.3 * j;
    auto da = dev.upload(a), db = dev.upload(b), dc = dev.alloc<double>(64);
    dev.launch("wmma_f64", {1, 1, 1}, {32, 1, 1}, da, db, dc);
    auto h = dev.download<double>(dc, 64);
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) {
        double s = 0.25;
        for (int k = 0; k < 4; ++k) s += a[at(i, k, true, 4)] * b[at(k, j, true, 8)];
        EXPECT_NEAR(h[i * 8 + j], s, 1e-13) << "f64 " << i << "," << j;
      }
  }
}

}  // namespace
}  // namespace cnuas::ptx::testing

namespace cnuas::ptx::testing {
namespace {

// The layouts follow the PTX ISA's fragment figures; the kernels feed them the
// way code that runs on hardware does (ldmatrix from shared memory), so a
// layout disagreement between ldmatrix and mma shows up as a wrong product.
TEST(PtxMatrix, MmaSyncFedByLdmatrixComputesTheProduct) {
  CNUAS_REQUIRE_NVCC();
  std::vector<std::uint16_t> a(256), b(128);
  for (int r = 0; r < 16; ++r)
    for (int k = 0; k < 16; ++k) a[r * 16 + k] = f16_bits(value(r, k, 9));
  for (int k = 0; k < 16; ++k)
    for (int j = 0; j < 8; ++j) b[k * 8 + j] = f16_bits(value(k, j, 10));  // row-major K x N
  Device dev("matrix.ptx");
  auto da = dev.upload(a), db = dev.upload(b), dc = dev.alloc<float>(128);
  dev.launch("mma_ldmatrix_f16", {1, 1, 1}, {32, 1, 1}, da, db, dc);
  auto h = dev.download<float>(dc, 128);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      double s = 0;
      for (int k = 0; k < 16; ++k) s += double{value(i, k, 9)} * value(k, j, 10);
      EXPECT_EQ(h[i * 8 + j], static_cast<float>(s)) << i << "," << j;
    }
}

TEST(PtxMatrix, MmaSyncTf32AndInt8AndMovmatrix) {
  CNUAS_REQUIRE_NVCC();
  std::vector<float> a(16 * 8), b(8 * 8);
  for (int r = 0; r < 16; ++r)
    for (int k = 0; k < 8; ++k) a[r * 8 + k] = value(r, k, 11);
  for (int k = 0; k < 8; ++k)
    for (int j = 0; j < 8; ++j) b[k * 8 + j] = value(k, j, 12);
  std::vector<signed char> ia(16 * 32), ib(32 * 8);
  for (int k = 0; k < 16 * 32; ++k) ia[k] = static_cast<signed char>((k * 53) % 255 - 127);
  for (int k = 0; k < 32 * 8; ++k) ib[k] = static_cast<signed char>((k * 31) % 255 - 127);
  Device dev("matrix.ptx");
  auto da = dev.upload(a), db = dev.upload(b), dc = dev.alloc<float>(128);
  auto dia = dev.upload(ia), dib = dev.upload(ib), dic = dev.alloc<int>(128);
  dev.launch("mma_tf32_s8", {1, 1, 1}, {32, 1, 1}, da, db, dc, dia, dib, dic);
  auto hc = dev.download<float>(dc, 128);
  auto hi = dev.download<int>(dic, 128);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      double s = 1;
      for (int k = 0; k < 8; ++k) s += double{a[i * 8 + k]} * b[k * 8 + j];
      EXPECT_EQ(hc[i * 8 + j], static_cast<float>(s)) << "tf32 " << i << "," << j;
      int q = -3;
      for (int k = 0; k < 32; ++k) q += ia[i * 32 + k] * ib[k * 8 + j];
      EXPECT_EQ(hi[i * 8 + j], q) << "s8 " << i << "," << j;
    }
  std::vector<std::uint16_t> m(64);
  for (int k = 0; k < 64; ++k) m[k] = static_cast<std::uint16_t>(k * 977);
  auto dm = dev.upload(m), dt = dev.alloc<std::uint16_t>(64);
  dev.launch("transpose8", {1, 1, 1}, {32, 1, 1}, dm, dt);
  auto ht = dev.download<std::uint16_t>(dt, 64);
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) EXPECT_EQ(ht[r * 8 + c], m[c * 8 + r]) << r << "," << c;
}

// m16n8k4 tf32: D = A (16 x 4) x B (4 x 8) + 2, values of few bits so every sum is exact.
TEST(PtxMatrix, MmaSyncTf32K4) {
  CNUAS_REQUIRE_NVCC();
  std::vector<float> a(16 * 4), b(4 * 8);
  for (int r = 0; r < 16; ++r)
    for (int k = 0; k < 4; ++k) a[r * 4 + k] = value(r, k, 13);
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 8; ++j) b[k * 8 + j] = value(k, j, 14);
  Device dev("matrix.ptx");
  auto da = dev.upload(a), db = dev.upload(b), dc = dev.alloc<float>(128);
  dev.launch("mma_tf32_k4", {1, 1, 1}, {32, 1, 1}, da, db, dc);
  auto h = dev.download<float>(dc, 128);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      double s = 2;
      for (int k = 0; k < 4; ++k) s += double{a[i * 4 + k]} * b[k * 8 + j];
      EXPECT_EQ(h[i * 8 + j], static_cast<float>(s)) << i << "," << j;
    }
}

}  // namespace
}  // namespace cnuas::ptx::testing
