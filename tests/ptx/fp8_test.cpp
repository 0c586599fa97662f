// 8-bit floats: cvt to and from .e4m3x2/.e5m2x2 and mma.sync with e4m3/e5m2
// operands, against references written here from the formats' definitions:
//   e4m3: sign, 4 exponent bits (bias 7), 3 mantissa bits; no infinities; the
//         NaN is S.1111.111; largest finite 1.75 x 2^8 = 448 (0x7e).
//   e5m2: sign, 5 exponent bits (bias 15), 2 mantissa bits; S.11111.00 is
//         infinity, S.11111.xx (xx != 0) NaN; largest finite 1.75 x 2^15 = 57344.
#include <cmath>
#include <limits>
#include <random>

#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// The value of an fp8 code: (-1)^s x 2^(e - bias) x (1 + m / 2^M), or
// (-1)^s x 2^(1 - bias) x (m / 2^M) when e = 0.
double fp8_value(std::uint8_t code, bool e5m2) {
  const int mbits = e5m2 ? 2 : 3, ebits = 7 - mbits, bias = e5m2 ? 15 : 7;
  const int e = (code >> mbits) & ((1 << ebits) - 1), m = code & ((1 << mbits) - 1);
  const double sign = (code & 0x80) ? -1.0 : 1.0;
  if (e5m2 && e == 31) return m == 0 ? sign * HUGE_VAL : std::nan("");
  if (!e5m2 && e == 15 && m == 7) return std::nan("");
  const double fraction = e == 0 ? m / double(1 << mbits) : 1.0 + m / double(1 << mbits);
  return sign * fraction * std::pow(2.0, (e == 0 ? 1 : e) - bias);
}

// cvt.rn.satfinite to fp8 by search: the finite code nearest |x|, the even
// code (mantissa LSB 0) on a tie, the largest finite code beyond it; NaN gives
// 0x7f; the sign is carried over (so tiny negatives give -0).
std::uint8_t fp8_encode(double x, bool e5m2) {
  if (std::isnan(x)) return 0x7f;
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0;
  const double a = std::fabs(x);
  const std::uint8_t largest = e5m2 ? 0x7b : 0x7e;
  if (a >= fp8_value(largest, e5m2)) return sign | largest;
  std::uint8_t best = 0;
  for (std::uint8_t c = 1; c <= largest; ++c) {
    const double d = std::fabs(fp8_value(c, e5m2) - a), db = std::fabs(fp8_value(best, e5m2) - a);
    if (d < db || (d == db && (c & 1) == 0)) best = c;
  }
  return sign | best;
}

// binary16 of a value: sign, 5 exponent bits (bias 15), 10 mantissa bits.
double f16_value(std::uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  const double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (e == 31) return m == 0 ? sign * HUGE_VAL : std::nan("");
  return sign *
         (e == 0 ? m / 1024.0 * std::pow(2.0, -14) : (1 + m / 1024.0) * std::pow(2.0, e - 15));
}
// The f16 bits of a value f16 holds exactly (normal or zero).
std::uint16_t f16_bits(double v) {
  if (v == 0) return std::signbit(v) ? 0x8000 : 0;
  int e;
  const double m = std::frexp(std::fabs(v), &e);
  return static_cast<std::uint16_t>((v < 0 ? 0x8000 : 0) | ((e - 1 + 15) << 10) |
                                    static_cast<int>((m * 2 - 1) * 1024));
}
// Round-to-nearest-even to f16 for values in f16's normal range.
std::uint16_t f16_round(double v) {
  int e;
  std::frexp(std::fabs(v), &e);
  const double quantum = std::ldexp(1.0, e - 11);
  return f16_bits(std::nearbyint(v / quantum) * quantum);
}

struct Pair {
  float x, y;  // x in the low byte/half, y in the high one
};

TEST(PtxFp8, HandCheckedBoundaryValues) {
  CNUAS_REQUIRE_NVCC();
  // value, e4m3 code, e5m2 code (derivations in the comments)
  struct Case {
    float v;
    int e4m3, e5m2;
  } cases[] = {
      {0.0f, 0x00, 0x00},           {-0.0f, 0x80, 0x80},
      {1.0f, 0x38, 0x3c},            // exponent fields 7 and 15
      {-2.0f, 0xc0, 0xc0},           // 8 << 3 and 16 << 2, signed
      {448.0f, 0x7e, 0x5f},          // 1.75 x 2^8: e4m3 1111.110; e5m2 10111.11
      {464.0f, 0x7e, 0x5f},          // e4m3 tie 448 / (480 not finite): even 448; e5m2 7.25 q
      {1000.0f, 0x7e, 0x64},         // e4m3 saturates; e5m2 1000/128 = 7.8 -> 8 -> 2^10
      {57344.0f, 0x7e, 0x7b},        // e5m2 largest finite 11110.11
      {61440.0f, 0x7e, 0x7b},        // e5m2 tie 57344 / 65536: even is 2^16, beyond: saturates
      {1e30f, 0x7e, 0x7b},           // .satfinite: the largest finite
      {-1e30f, 0xfe, 0xfb},          //
      {kInf, 0x7e, 0x7b},            // infinity saturates too
      {-kInf, 0xfe, 0xfb},           //
      {kNaN, 0x7f, 0x7f},            // NaN stays NaN
      {0.001953125f, 0x01, 0x18},    // 2^-9: e4m3 smallest subnormal; e5m2 exponent 6
      {0.0009765625f, 0x00, 0x14},   // 2^-10: e4m3 tie 0 / 2^-9 -> even 0
      {0.00146484375f, 0x01, 0x16},  // 1.5 x 2^-10: e4m3 0.75 of a step -> 1; e5m2 1.5 x 2^-10
      {0.013671875f, 0x07, 0x23},    // 7 x 2^-9: largest e4m3 subnormal; e5m2 1.75 x 2^-7
      {0.015625f, 0x08, 0x24},       // 2^-6: smallest e4m3 normal
      {1.0625f, 0x38, 0x3c},         // e4m3 tie 1 / 1.125 -> 1; e5m2 4.25 quarters -> 1
      {1.1875f, 0x3a, 0x3d},         // e4m3 tie 1.125 / 1.25 -> 1.25 (m=2); e5m2 4.75 -> 1.25
      {0x1p-16f, 0x00, 0x01},        // e5m2 smallest subnormal
      {0x1p-17f, 0x00, 0x00},        // e5m2 tie 0 / 2^-16 -> 0
      {0x3p-17f, 0x00, 0x02},        // e5m2 1.5 steps -> 2 (even)
      {-0.0001f, 0x80, 0x87},        // e4m3 -0; e5m2 0.0001 x 2^16 = 6.55 -> 7
  };
  std::vector<Pair> in;
  for (const Case& c : cases) in.push_back({c.v, -c.v});
  const int n = static_cast<int>(in.size());
  std::vector<std::uint16_t> halves(2 * in.size());
  for (std::size_t k = 0; k < in.size(); ++k) {
    halves[2 * k] = 0x3c00;      // 1.0
    halves[2 * k + 1] = 0xfc00;  // -inf
  }
  Device dev("fp8.ptx");
  auto din = dev.upload(in), dh = dev.upload(halves);
  auto o4 = dev.alloc<std::uint16_t>(n), o5 = dev.alloc<std::uint16_t>(n);
  auto b4 = dev.alloc<std::uint32_t>(n), b5 = dev.alloc<std::uint32_t>(n);
  auto h4 = dev.alloc<std::uint16_t>(n), h5 = dev.alloc<std::uint16_t>(n);
  dev.launch("fp8_convert", {1, 1, 1}, {static_cast<unsigned>(n), 1, 1}, din, dh, n, o4, o5, b4, b5,
             h4, h5);
  auto e4 = dev.download<std::uint16_t>(o4, n), e5 = dev.download<std::uint16_t>(o5, n);
  auto back4 = dev.download<std::uint32_t>(b4, n);
  auto fromh4 = dev.download<std::uint16_t>(h4, n), fromh5 = dev.download<std::uint16_t>(h5, n);
  for (int k = 0; k < n; ++k) {
    const Case& c = cases[k];
    const int neg4 = std::isnan(c.v) ? 0x7f : c.e4m3 ^ 0x80,
              neg5 = std::isnan(c.v) ? 0x7f : c.e5m2 ^ 0x80;
    EXPECT_EQ(e4[k], c.e4m3 | (neg4 << 8)) << "e4m3 of " << c.v;
    EXPECT_EQ(e5[k], c.e5m2 | (neg5 << 8)) << "e5m2 of " << c.v;
    // The reference encoder agrees with the hand derivations.
    EXPECT_EQ(fp8_encode(c.v, false), c.e4m3) << c.v;
    EXPECT_EQ(fp8_encode(c.v, true), c.e5m2) << c.v;
    // f16 from 1.0 (low) and -inf (high): 0x38 / 0x3c, and the largest finite, negative.
    EXPECT_EQ(fromh4[k], 0xfe38);
    EXPECT_EQ(fromh5[k], 0xfb3c);
  }
  // e4m3 back to f16: 448 is 1.75 x 2^8 = 0x5f00; 2^-9 is 0x1800; NaN the canonical 0x7fff.
  EXPECT_EQ(back4[4] & 0xffff, 0x5f00u);
  EXPECT_EQ(back4[14] & 0xffff, 0x1800u);
  EXPECT_EQ(back4[13] & 0xffff, 0x7fffu);
}

// Every f16 bit pattern through cvt.rn.satfinite.{e4m3x2,e5m2x2}.f16x2, a sweep
// of f32 values through the .f32 form, and each result back to f16x2.
TEST(PtxFp8, ConversionsMatchTheReferenceEverywhere) {
  CNUAS_REQUIRE_NVCC();
  constexpr int n = 32768;
  std::vector<std::uint16_t> halves(2 * n);
  for (int k = 0; k < 2 * n; ++k) halves[k] = static_cast<std::uint16_t>(k);
  std::vector<Pair> in(n);
  std::mt19937 rng(8);
  for (int k = 0; k < n; ++k) {
    // Exponents across both formats' ranges and beyond, random mantissas.
    const float mant = 1.0f + static_cast<float>(rng() % 4096) / 4096.0f;
    const int exp = static_cast<int>(rng() % 44) - 22;
    const float v = std::ldexp(mant, exp) * ((rng() & 1) ? -1.0f : 1.0f);
    in[k] = {v,
             std::ldexp(static_cast<float>(rng() % 64) / 8.0f, static_cast<int>(rng() % 30) - 18)};
  }
  Device dev("fp8.ptx");
  auto din = dev.upload(in), dh = dev.upload(halves);
  auto o4 = dev.alloc<std::uint16_t>(n), o5 = dev.alloc<std::uint16_t>(n);
  auto b4 = dev.alloc<std::uint32_t>(n), b5 = dev.alloc<std::uint32_t>(n);
  auto h4 = dev.alloc<std::uint16_t>(n), h5 = dev.alloc<std::uint16_t>(n);
  dev.launch("fp8_convert", {n / 256, 1, 1}, {256, 1, 1}, din, dh, n, o4, o5, b4, b5, h4, h5);
  auto e4 = dev.download<std::uint16_t>(o4, n), e5 = dev.download<std::uint16_t>(o5, n);
  auto back4 = dev.download<std::uint32_t>(b4, n), back5 = dev.download<std::uint32_t>(b5, n);
  auto fromh4 = dev.download<std::uint16_t>(h4, n), fromh5 = dev.download<std::uint16_t>(h5, n);
  int failures = 0;
  for (int k = 0; k < n && failures < 20; ++k) {
    const int want4 = fp8_encode(in[k].x, false) | (fp8_encode(in[k].y, false) << 8);
    const int want5 = fp8_encode(in[k].x, true) | (fp8_encode(in[k].y, true) << 8);
    EXPECT_EQ(e4[k], want4) << "e4m3x2 of " << in[k].x << ", " << in[k].y;
    EXPECT_EQ(e5[k], want5) << "e5m2x2 of " << in[k].x << ", " << in[k].y;
    failures += (e4[k] != want4) + (e5[k] != want5);
    for (int half = 0; half < 2; ++half) {
      const std::uint8_t c4 = static_cast<std::uint8_t>(e4[k] >> (8 * half));
      const std::uint8_t c5 = static_cast<std::uint8_t>(e5[k] >> (8 * half));
      const double v4 = fp8_value(c4, false);
      // e4m3 values are f16 normals (2^-9 and up) or zero; NaN is 0x7fff.
      const std::uint16_t f4 = std::isnan(v4) ? 0x7fff : f16_bits(v4);
      // e5m2 is f16 with the low 8 mantissa bits dropped.
      const std::uint16_t f5 = static_cast<std::uint16_t>(c5 << 8);
      EXPECT_EQ((back4[k] >> (16 * half)) & 0xffff, f4) << "f16 of e4m3 " << int(c4);
      EXPECT_EQ((back5[k] >> (16 * half)) & 0xffff, f5) << "f16 of e5m2 " << int(c5);
      failures += ((back4[k] >> (16 * half)) & 0xffff) != f4;
      failures += ((back5[k] >> (16 * half)) & 0xffff) != f5;
    }
    const double lo = f16_value(halves[2 * k]), hi = f16_value(halves[2 * k + 1]);
    const int want_h4 = fp8_encode(lo, false) | (fp8_encode(hi, false) << 8);
    const int want_h5 = fp8_encode(lo, true) | (fp8_encode(hi, true) << 8);
    EXPECT_EQ(fromh4[k], want_h4) << "e4m3x2 of f16 " << halves[2 * k] << ", " << halves[2 * k + 1];
    EXPECT_EQ(fromh5[k], want_h5) << "e5m2x2 of f16 " << halves[2 * k] << ", " << halves[2 * k + 1];
    failures += (fromh4[k] != want_h4) + (fromh5[k] != want_h5);
  }
}

TEST(PtxFp8, ReluClampsNegativesToZero) {
  CNUAS_REQUIRE_NVCC();
  // (x low, y high): (-1, 2) -> (0, 0x40); (NaN, -0.5) -> (0x7f, 0); (448, -inf) -> (0x7e, 0)
  std::vector<Pair> in{{-1.0f, 2.0f}, {kNaN, -0.5f}, {448.0f, -kInf}};
  Device dev("fp8.ptx");
  auto din = dev.upload(in);
  auto out = dev.alloc<std::uint16_t>(3);
  auto back = dev.alloc<std::uint32_t>(3);
  dev.launch("fp8_relu", {1, 1, 1}, {32, 1, 1}, din, 3, out, back);
  auto h = dev.download<std::uint16_t>(out, 3);
  auto b = dev.download<std::uint32_t>(back, 3);
  EXPECT_EQ(h[0], 0x4000);
  EXPECT_EQ(h[1], 0x007f);
  EXPECT_EQ(h[2], 0x007e);
  // The kernel flips both sign bits and converts back to f16x2 with .relu.
  EXPECT_EQ(b[0], 0x00000000u);  // low 0x80 (-0) -> +0; high 0xc0 (-2) -> +0
  EXPECT_EQ(b[1], 0x00007fffu);  // low 0xff (NaN) -> the canonical 0x7fff; high 0x80 (-0) -> +0
  EXPECT_EQ(b[2], 0x00000000u);  // low 0xfe (-448) -> +0; high 0x80 (-0) -> +0
}

// D = A x B + C with values of a few significant bits in [2^-3, 8], so every
// product and the f32 sum are exact: the expected results are exact too.
TEST(PtxFp8, MmaSyncE4m3E5m2MatchesTheExactProduct) {
  CNUAS_REQUIRE_NVCC();
  std::mt19937 rng(89);
  auto code = [&](bool e5m2) {
    // exponent 2^-3 .. 2^2, any mantissa and sign; every tenth element zero
    if (rng() % 10 == 0) return std::uint8_t{0};
    const int mbits = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
    const int e = bias - 3 + static_cast<int>(rng() % 6);
    return static_cast<std::uint8_t>(((rng() & 1) << 7) | (e << mbits) | (rng() % (1u << mbits)));
  };
  std::vector<std::uint8_t> a4(16 * 32), a5(16 * 32), b4(8 * 32), b5(8 * 32);
  for (auto& v : a4) v = code(false);
  for (auto& v : a5) v = code(true);
  for (auto& v : b4) v = code(false);
  for (auto& v : b5) v = code(true);
  Device dev("fp8.ptx");
  auto da4 = dev.upload(a4), da5 = dev.upload(a5), db4 = dev.upload(b4), db5 = dev.upload(b5);
  auto c44 = dev.alloc<float>(128), c54 = dev.alloc<float>(128), c45 = dev.alloc<float>(128);
  auto c16 = dev.alloc<std::uint16_t>(128);
  dev.launch("fp8_mma", {1, 1, 1}, {32, 1, 1}, da4, da5, db4, db5, c44, c54, c45, c16);
  auto r44 = dev.download<float>(c44, 128), r54 = dev.download<float>(c54, 128);
  auto r45 = dev.download<float>(c45, 128);
  auto r16 = dev.download<std::uint16_t>(c16, 128);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      double s44 = 0.25, s54 = 0.25, s45 = 0.25;
      for (int k = 0; k < 32; ++k) {
        // B is stored K-major: column j at b[j * 32 + k]
        s44 += fp8_value(a4[i * 32 + k], false) * fp8_value(b4[j * 32 + k], false);
        s54 += fp8_value(a5[i * 32 + k], true) * fp8_value(b4[j * 32 + k], false);
        if (k < 16) s45 += fp8_value(a4[i * 32 + k], false) * fp8_value(b5[j * 32 + k], true);
      }
      EXPECT_EQ(r44[i * 8 + j], static_cast<float>(s44)) << "e4m3 x e4m3 " << i << "," << j;
      EXPECT_EQ(r54[i * 8 + j], static_cast<float>(s54)) << "e5m2 x e4m3 " << i << "," << j;
      EXPECT_EQ(r45[i * 8 + j], static_cast<float>(s45)) << "k16 e4m3 x e5m2 " << i << "," << j;
      // f16 accumulators: the exact sum rounded once to f16.
      EXPECT_EQ(r16[i * 8 + j], f16_round(s44)) << "f16 accumulate " << i << "," << j;
    }
}

// Forms the PTX ISA does not define, or that the engine does not run, are
// named when the module loads and stop the kernel if executed.
TEST(PtxFp8, UndefinedFormsAreNamed) {
  const std::string header = ".version 9.0\n.target sm_90\n.address_size 64\n";
  auto reason = [&](const std::string& inst) {
    auto m = Module::parse(header +
                               ".visible .entry k()\n{\n\t.reg .b16 %rs<3>;\n\t.reg .b32 %r<9>;\n"
                               "\t.reg .f32 %f<9>;\n\t" +
                               inst + "\n\tret;\n}\n",
                           "k.ptx");
    const auto u = m->unsupported();
    return u.empty() ? std::string() : u[0].reason;
  };
  EXPECT_NE(reason("cvt.rn.e4m3x2.f32 %rs1, %f1, %f2;").find("without .satfinite"),
            std::string::npos);
  EXPECT_NE(reason("cvt.rz.satfinite.e5m2x2.f32 %rs1, %f1, %f2;").find("without .rn"),
            std::string::npos);
  EXPECT_NE(reason("cvt.rn.satfinite.e4m3x2.f64 %rs1, %f1, %f2;").find("sources are"),
            std::string::npos);
  EXPECT_NE(reason("cvt.rn.f32.e4m3 %f1, %rs1;").find("scalar"), std::string::npos);
  EXPECT_NE(reason("add.relu.f32 %f1, %f2, %f3;").find(".relu of add"), std::string::npos);
  EXPECT_NE(reason("mma.sync.aligned.m16n8k8.row.col.f32.e4m3.e4m3.f32 {%f1, %f2, %f3, %f4}, "
                   "{%r1, %r2}, {%r3}, {%f5, %f6, %f7, %f8};")
                .find("m16n8k8.f32.e4m3.e4m3.f32"),
            std::string::npos);
  EXPECT_EQ(reason("cvt.rn.satfinite.e4m3x2.f32 %rs1, %f1, %f2;"), "");
  EXPECT_EQ(reason("cvt.rn.f16x2.e5m2x2 %r1, %rs1;"), "");
}

}  // namespace
}  // namespace cnuas::ptx::testing
