#include "approx_math.h"

#include <cmath>
#include <cstring>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace cnuas::ptx::approx {
namespace {

using u64 = std::uint64_t;

// pi/2 in two parts (the second is what the first lacks), 2/pi.
constexpr double kHalfPi1 = 0x1.921fb54442d18p+0;
constexpr double kHalfPi2 = 0x1.1a62633145c07p-54;
constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
// Beyond these the reduction (or 2^n as a double) is not exact enough: the library.
constexpr double kTrigLimit = 0x1p20;
constexpr double kEx2Limit = 200.0;

// Taylor coefficients: sin r = r + r z (S3 + z (S5 + ...)), cos r = 1 + z (C2 + z (C4 + ...)),
// z = r^2, |r| <= pi/4 (next terms below 2^-37); 2^f = sum (f ln 2)^k / k!, |f| <= 1/2
// (next term below 2^-47).
constexpr double kS[] = {-0x1.5555555555555p-3, 0x1.1111111111111p-7, -0x1.a01a01a01a01ap-13,
                         0x1.71de3a556c734p-19, -0x1.ae64567f544e4p-26};
constexpr double kC[] = {-0x1.0000000000000p-1, 0x1.5555555555555p-5,   -0x1.6c16c16c16c17p-10,
                         0x1.a01a01a01a01ap-16, -0x1.27e4fb7789f5cp-22, 0x1.1eed8eff8d898p-29};
constexpr double kE[] = {0x1.0000000000000p+0,  0x1.62e42fefa39efp-1,  0x1.ebfbdff82c58fp-3,
                         0x1.c6b08d704a0c0p-5,  0x1.3b2ab6fba4e77p-7,  0x1.5d87fe78a6731p-10,
                         0x1.430912f86c787p-13, 0x1.ffcbfc588b0c7p-17, 0x1.62c0223a5c824p-20,
                         0x1.b5253d395e7c4p-24, 0x1.e4cf5158b8ecap-28, 0x1.e8cac7351bb25p-32};
constexpr int kSTerms = sizeof kS / sizeof kS[0];
constexpr int kCTerms = sizeof kC / sizeof kC[0];
constexpr int kETerms = sizeof kE / sizeof kE[0];

float bits_float(u64 b) {
  const auto v = static_cast<std::uint32_t>(b);
  float f;
  std::memcpy(&f, &v, sizeof f);
  return f;
}
u64 float_bits(float f) {
  std::uint32_t v;
  std::memcpy(&v, &f, sizeof v);
  return v;
}
float flush(float f) {
  const auto b = static_cast<std::uint32_t>(float_bits(f));
  return (b & 0x7f800000u) == 0 ? bits_float(b & 0x80000000u) : f;
}

// Outside the reduced range: the host library (NaN, infinities, huge arguments).
float library(Function f, float x) {
  switch (f) {
    case Function::Sin:
      return std::sin(x);
    case Function::Cos:
      return std::cos(x);
    default:
      return std::exp2(x);
  }
}
bool reduced(Function f, float x) {
  const double a = std::fabs(static_cast<double>(x));
  return f == Function::Ex2 ? a <= kEx2Limit : a < kTrigLimit;
}

// One lane, in range: the operations of the vector path below, in its order.
double trig(double x, bool cosine) {
  const double q = std::nearbyint(x * kTwoOverPi) + 0.0;  // -0 -> +0: r keeps the sign of x = -0
  double r = std::fma(-q, kHalfPi1, x);
  r = std::fma(-q, kHalfPi2, r);
  const double z = r * r;
  double ps = kS[kSTerms - 1];
  for (int k = kSTerms - 2; k >= 0; --k) ps = std::fma(ps, z, kS[k]);
  double pc = kC[kCTerms - 1];
  for (int k = kCTerms - 2; k >= 0; --k) pc = std::fma(pc, z, kC[k]);
  // sin r has the sign of r on [-pi/4, pi/4]; copysign keeps it for r = -0 too.
  const double s = std::copysign(std::fma(r * z, ps, r), r);
  const double c = std::fma(z, pc, 1.0);
  const auto n = static_cast<std::int64_t>(q) + (cosine ? 1 : 0);
  const double v = (n & 1) ? c : s;
  return (n & 2) ? -v : v;
}
double ex2_reduced(double x) {
  const double n = std::nearbyint(x);
  const double f = x - n;  // exact
  double p = kE[kETerms - 1];
  for (int k = kETerms - 2; k >= 0; --k) p = std::fma(p, f, kE[k]);
  const u64 scale_bits = static_cast<u64>(static_cast<std::int64_t>(n) + 1023) << 52;
  double scale;
  std::memcpy(&scale, &scale_bits, sizeof scale);
  return p * scale;
}
float one(Function f, float x) {
  if (!reduced(f, x)) return library(f, x);
  const double v = f == Function::Ex2 ? ex2_reduced(x) : trig(x, f == Function::Cos);
  return static_cast<float>(v);
}

void lanes_plain(Function f, const float* in, float* out) {
  for (unsigned l = 0; l < 32; ++l) out[l] = one(f, in[l]);
}

#if defined(__x86_64__) && defined(__GNUC__)
#define CNUAS_AVX2 __attribute__((target("avx2,fma")))
CNUAS_AVX2 inline __m256d horner(const double* k, int terms, __m256d x) {
  __m256d p = _mm256_set1_pd(k[terms - 1]);
  for (int i = terms - 2; i >= 0; --i) p = _mm256_fmadd_pd(p, x, _mm256_set1_pd(k[i]));
  return p;
}
CNUAS_AVX2 __m256d trig4(__m256d x, bool cosine) {
  const __m256d q = _mm256_add_pd(
      _mm256_round_pd(_mm256_mul_pd(x, _mm256_set1_pd(kTwoOverPi)), _MM_FROUND_CUR_DIRECTION),
      _mm256_setzero_pd());
  __m256d r = _mm256_fnmadd_pd(q, _mm256_set1_pd(kHalfPi1), x);
  r = _mm256_fnmadd_pd(q, _mm256_set1_pd(kHalfPi2), r);
  const __m256d z = _mm256_mul_pd(r, r);
  const __m256d sign_bit = _mm256_set1_pd(-0.0);
  const __m256d s = _mm256_or_pd(
      _mm256_andnot_pd(sign_bit, _mm256_fmadd_pd(_mm256_mul_pd(r, z), horner(kS, kSTerms, z), r)),
      _mm256_and_pd(sign_bit, r));
  const __m256d c = _mm256_fmadd_pd(z, horner(kC, kCTerms, z), _mm256_set1_pd(1.0));
  __m256i n = _mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(q));
  if (cosine) n = _mm256_add_epi64(n, _mm256_set1_epi64x(1));
  const __m256i odd =
      _mm256_cmpeq_epi64(_mm256_and_si256(n, _mm256_set1_epi64x(1)), _mm256_set1_epi64x(1));
  const __m256d v = _mm256_blendv_pd(s, c, _mm256_castsi256_pd(odd));
  const __m256i sign = _mm256_slli_epi64(_mm256_and_si256(n, _mm256_set1_epi64x(2)), 62);
  return _mm256_xor_pd(v, _mm256_castsi256_pd(sign));
}
CNUAS_AVX2 __m256d ex2_4(__m256d x) {
  const __m256d n = _mm256_round_pd(x, _MM_FROUND_CUR_DIRECTION);
  const __m256d p = horner(kE, kETerms, _mm256_sub_pd(x, n));
  const __m256i e =
      _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(n)), _mm256_set1_epi64x(1023));
  return _mm256_mul_pd(p, _mm256_castsi256_pd(_mm256_slli_epi64(e, 52)));
}
CNUAS_AVX2 void lanes_avx2(Function f, const float* in, float* out) {
  const __m256d limit = _mm256_set1_pd(f == Function::Ex2 ? kEx2Limit : kTrigLimit);
  const __m256d magnitude = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffll));
  for (unsigned l = 0; l < 32; l += 4) {
    __m256d x = _mm256_cvtps_pd(_mm_loadu_ps(in + l));
    const __m256d a = _mm256_and_pd(x, magnitude);
    // reduced(): false for NaN.
    const __m256d inside = f == Function::Ex2 ? _mm256_cmp_pd(a, limit, _CMP_LE_OQ)
                                              : _mm256_cmp_pd(a, limit, _CMP_LT_OQ);
    x = _mm256_and_pd(x, inside);  // the others' results are replaced below
    const __m256d v = f == Function::Ex2 ? ex2_4(x) : trig4(x, f == Function::Cos);
    _mm_storeu_ps(out + l, _mm256_cvtpd_ps(v));
    const int lanes_inside = _mm256_movemask_pd(inside);
    if (lanes_inside != 0xf)
      for (unsigned k = 0; k < 4; ++k)
        if (!((lanes_inside >> k) & 1)) out[l + k] = library(f, in[l + k]);
  }
}
#undef CNUAS_AVX2
#endif

using Lanes = void (*)(Function, const float*, float*);
Lanes lanes_impl() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const Lanes impl =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? lanes_avx2 : lanes_plain;
#else
  static const Lanes impl = lanes_plain;
#endif
  return impl;
}

}  // namespace

float sin(float x) {
  return one(Function::Sin, x);
}
float cos(float x) {
  return one(Function::Cos, x);
}
float ex2(float x) {
  return one(Function::Ex2, x);
}

void lanes(Function f, u64* d, const u64* a, bool ftz) {
  alignas(32) float in[32], out[32];
  for (unsigned l = 0; l < 32; ++l) in[l] = ftz ? flush(bits_float(a[l])) : bits_float(a[l]);
  lanes_impl()(f, in, out);
  for (unsigned l = 0; l < 32; ++l) d[l] = float_bits(ftz ? flush(out[l]) : out[l]);
}

}  // namespace cnuas::ptx::approx
