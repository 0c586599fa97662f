// sin/cos/ex2 .approx.f32 (ptx/src/approx_math.h): the 32-lane form (four
// lanes at a time with AVX2 where the host has it) gives the same bits as the
// one-lane form, and both stay within an ulp of a long double reference and
// inside the PTX ISA's error bounds.
#include "approx_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace approx = cnuas::ptx::approx;
using approx::Function;

namespace {

std::uint32_t bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}
float from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

float one(Function f, float x) {
  return f == Function::Sin ? approx::sin(x) : f == Function::Cos ? approx::cos(x) : approx::ex2(x);
}
long double reference(Function f, float x) {
  const long double v = x;
  return f == Function::Sin ? std::sin(v) : f == Function::Cos ? std::cos(v) : std::exp2(v);
}

// Distance in units in the last place of the float nearest `exact`.
double ulps(float got, long double exact) {
  const float nearest = static_cast<float>(exact);
  const float next = std::nextafter(nearest, std::numeric_limits<float>::infinity());
  const long double ulp = std::fabs(static_cast<long double>(next) - nearest);
  return static_cast<double>(std::fabs(static_cast<long double>(got) - exact) / ulp);
}

// Inputs: random values over the ranges kernels use, and the edges.
std::vector<float> inputs(Function f) {
  std::vector<float> v = {0.0f,
                          -0.0f,
                          1e-30f,
                          -1e-40f,
                          std::numeric_limits<float>::denorm_min(),
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(),
                          1048575.9f,
                          1048576.0f,
                          3e8f,
                          -200.0f,
                          200.0f,
                          200.5f,
                          128.0f,
                          -149.0f,
                          -126.5f,
                          0.5f,
                          -0.5f};
  std::mt19937 rng(7);
  const float span = f == Function::Ex2 ? 150.0f : 100.0f * 3.14159265f;
  std::uniform_real_distribution<float> wide(-span, span), narrow(-1.0f, 1.0f);
  for (int k = 0; k < 20000; ++k) v.push_back(k % 2 ? wide(rng) : narrow(rng));
  while (v.size() % 32) v.push_back(0.25f);
  return v;
}

void same_bits_in_lanes(Function f, bool ftz) {
  const std::vector<float> in = inputs(f);
  for (std::size_t base = 0; base < in.size(); base += 32) {
    std::uint64_t a[32], d[32];
    for (unsigned l = 0; l < 32; ++l) a[l] = bits(in[base + l]) | 0xdead'0000'0000'0000ull;
    approx::lanes(f, d, a, ftz);
    for (unsigned l = 0; l < 32; ++l) {
      float x = in[base + l];
      if (ftz && std::fpclassify(x) == FP_SUBNORMAL) x = std::copysign(0.0f, x);
      float expect = one(f, x);
      if (ftz && std::fpclassify(expect) == FP_SUBNORMAL) expect = std::copysign(0.0f, expect);
      ASSERT_EQ(d[l], bits(expect))
          << "input " << in[base + l] << " (bits 0x" << std::hex << bits(in[base + l]) << ")";
    }
  }
}

TEST(ApproxMath, ThirtyTwoLanesGiveTheBitsOfOneLane) {
  for (Function f : {Function::Sin, Function::Cos, Function::Ex2}) {
    same_bits_in_lanes(f, false);
    same_bits_in_lanes(f, true);
  }
}

TEST(ApproxMath, WithinAnUlpOfTheExactValue) {
  for (Function f : {Function::Sin, Function::Cos, Function::Ex2}) {
    double worst = 0;
    for (float x : inputs(f)) {
      if (!std::isfinite(x) || std::fabs(x) > (f == Function::Ex2 ? 127.0f : 315.0f)) continue;
      if (f == Function::Ex2 && x < -126.0f) continue;  // subnormal results: below
      const double e = ulps(one(f, x), reference(f, x));
      worst = std::max(worst, e);
      ASSERT_LE(e, 1.0) << "x = " << x;
      if (f != Function::Ex2) {  // PTX ISA: absolute error at most 2^-20.5 within 100 pi
        ASSERT_LE(std::fabs(static_cast<long double>(one(f, x)) - reference(f, x)),
                  std::exp2(-20.5L))
            << "x = " << x;
      }
    }
    EXPECT_LT(worst, 0.51) << "nearly always the correctly rounded value";
  }
}

TEST(ApproxMath, EdgesFollowTheFunctions) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(bits(approx::sin(-0.0f)), bits(-0.0f));
  EXPECT_EQ(bits(approx::sin(0.0f)), bits(0.0f));
  EXPECT_EQ(approx::cos(0.0f), 1.0f);
  EXPECT_EQ(approx::sin(1e-30f), 1e-30f);
  EXPECT_TRUE(std::isnan(approx::sin(inf)));
  EXPECT_TRUE(std::isnan(approx::cos(-inf)));
  EXPECT_TRUE(std::isnan(approx::sin(std::nanf(""))));
  EXPECT_EQ(approx::ex2(0.0f), 1.0f);
  EXPECT_EQ(approx::ex2(10.0f), 1024.0f);
  EXPECT_EQ(approx::ex2(-1.0f), 0.5f);
  EXPECT_EQ(approx::ex2(128.0f), inf);
  EXPECT_EQ(approx::ex2(inf), inf);
  EXPECT_EQ(bits(approx::ex2(-inf)), bits(0.0f));
  EXPECT_TRUE(std::isnan(approx::ex2(std::nanf(""))));
  EXPECT_EQ(approx::ex2(-149.0f), std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(approx::ex2(-127.0f), from_bits(0x00400000u));  // 2^-127: subnormal, exact
  // Beyond the reduced range the library answers, still accurately.
  EXPECT_LE(ulps(approx::sin(3e8f), reference(Function::Sin, 3e8f)), 1.0);
}

}  // namespace
