// Floating-point kernels against the host's IEEE arithmetic under the same
// rounding mode, and the approximate functions against the PTX ISA's bounds.
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>

#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

std::uint32_t bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// Compares bit patterns, treating any two NaNs as equal.
::testing::AssertionResult same_float(float got, float want) {
  if ((std::isnan(got) && std::isnan(want)) || bits(got) == bits(want))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << " (0x" << std::hex << bits(got)
                                       << "), want " << want << " (0x" << bits(want) << ")";
}

::testing::AssertionResult same_double(double got, double want) {
  std::uint64_t g, w;
  std::memcpy(&g, &got, 8);
  std::memcpy(&w, &want, 8);
  if ((std::isnan(got) && std::isnan(want)) || g == w) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << ", want " << want;
}

template <class F>
auto under(int mode, F f) {
  std::fesetround(mode);
  const auto v = f();
  std::fesetround(FE_TONEAREST);
  return v;
}

const std::vector<float> kA{1.0f,        -1.5f,           3.14159274f,
                            1e-40f,      -7.0e30f,        0.1f,
                            16777217.0f, -0.0f,           std::numeric_limits<float>::infinity(),
                            2.5f,        1.17549435e-38f, 333.333f};
const std::vector<float> kB{3.0f, 1e-8f, -2.71828175f, 3e-39f, 9.1e8f,           0.2f,
                            1.0f, 0.0f,  1.0f,         -7.0f,  -1.17549421e-38f, 0.001f};
const std::vector<float> kC{0.5f,         -1.0f, 1e20f, 1e-45f, 3.0f,   -0.02f,
                            -16777216.0f, -0.0f, 2.0f,  17.5f,  1e-38f, -1.0f};

TEST(PtxFloat, F32ArithmeticInEveryRoundingMode) {
  CNUAS_REQUIRE_NVCC();
  Device dev("float.ptx");
  const int n = static_cast<int>(kA.size());
  auto x = dev.upload(kA), y = dev.upload(kB), z = dev.upload(kC);
  auto out = dev.alloc<float>(n * 20);
  dev.launch("rounding_f32", {1, 1, 1}, {32, 1, 1}, x, y, z, out, n);
  auto h = dev.download<float>(out, n * 20);
  const int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
  for (int i = 0; i < n; ++i) {
    volatile float a = kA[i], b = kB[i], c = kC[i];
    for (int m = 0; m < 4; ++m) {
      EXPECT_TRUE(same_float(h[i * 20 + m], under(modes[m],
                                                  [&] {
                                                    volatile float r = a + b;
                                                    return float{r};
                                                  })))
          << "add " << i << " mode " << m;
      EXPECT_TRUE(same_float(h[i * 20 + 4 + m], under(modes[m],
                                                      [&] {
                                                        volatile float r = a * b;
                                                        return float{r};
                                                      })))
          << "mul " << i << " mode " << m;
      EXPECT_TRUE(
          same_float(h[i * 20 + 8 + m],
                     under(modes[m], [&] { return std::fma(float{a}, float{b}, float{c}); })))
          << "fma " << i << " mode " << m;
      EXPECT_TRUE(same_float(h[i * 20 + 12 + m], under(modes[m],
                                                       [&] {
                                                         volatile float r = a / b;
                                                         return float{r};
                                                       })))
          << "div " << i << " mode " << m;
    }
    EXPECT_TRUE(same_float(h[i * 20 + 16], std::sqrt(std::fabs(float{a})))) << "sqrt.rn " << i;
    EXPECT_TRUE(same_float(h[i * 20 + 17],
                           under(FE_TOWARDZERO, [&] { return std::sqrt(std::fabs(float{a})); })))
        << "sqrt.rz " << i;
    EXPECT_TRUE(same_float(h[i * 20 + 18], under(FE_DOWNWARD,
                                                 [&] {
                                                   volatile float r = 1.0f / b;
                                                   return float{r};
                                                 })))
        << "rcp.rm " << i;
    EXPECT_TRUE(same_float(h[i * 20 + 19], under(FE_UPWARD,
                                                 [&] {
                                                   volatile float r = 1.0f / b;
                                                   return float{r};
                                                 })))
        << "rcp.rp " << i;
  }
}

TEST(PtxFloat, F64ArithmeticInRoundingModes) {
  CNUAS_REQUIRE_NVCC();
  Device dev("float.ptx");
  const std::vector<double> a{1.0,      -1.5, 3.141592653589793,  1e-310,
                              -7.0e300, 0.1,  9007199254740993.0, 2.0},
      b{3.0, 1e-17, -2.718281828459045, 3e-320, 9.1e8, 0.2, 1.0, -0.0},
      c{0.5, -1.0, 1e200, 1e-323, 3.0, -0.02, -9007199254740992.0, 4.0};
  const int n = static_cast<int>(a.size());
  auto x = dev.upload(a), y = dev.upload(b), z = dev.upload(c);
  auto out = dev.alloc<double>(n * 12);
  dev.launch("rounding_f64", {1, 1, 1}, {32, 1, 1}, x, y, z, out, n);
  auto h = dev.download<double>(out, n * 12);
  for (int i = 0; i < n; ++i) {
    volatile double p = a[i], q = b[i], r = c[i];
    EXPECT_TRUE(same_double(h[i * 12 + 0], p + q)) << i;
    EXPECT_TRUE(same_double(h[i * 12 + 1], under(FE_TOWARDZERO,
                                                 [&] {
                                                   volatile double v = p + q;
                                                   return double{v};
                                                 })))
        << i;
    EXPECT_TRUE(same_double(h[i * 12 + 2], under(FE_DOWNWARD,
                                                 [&] {
                                                   volatile double v = p * q;
                                                   return double{v};
                                                 })))
        << i;
    EXPECT_TRUE(same_double(h[i * 12 + 3], under(FE_UPWARD,
                                                 [&] {
                                                   volatile double v = p * q;
                                                   return double{v};
                                                 })))
        << i;
    EXPECT_TRUE(same_double(h[i * 12 + 4], std::fma(double{p}, double{q}, double{r}))) << i;
    EXPECT_TRUE(same_double(
        h[i * 12 + 5],
        under(FE_TOWARDZERO, [&] { return std::fma(double{p}, double{q}, double{r}); })))
        << i;
    EXPECT_TRUE(same_double(h[i * 12 + 6], p / q)) << i;
    EXPECT_TRUE(same_double(h[i * 12 + 7], under(FE_UPWARD,
                                                 [&] {
                                                   volatile double v = p / q;
                                                   return double{v};
                                                 })))
        << i;
    EXPECT_TRUE(same_double(h[i * 12 + 8], std::sqrt(std::fabs(double{p})))) << i;
    EXPECT_TRUE(same_double(h[i * 12 + 9],
                            under(FE_DOWNWARD, [&] { return std::sqrt(std::fabs(double{p})); })))
        << i;
    EXPECT_TRUE(same_double(h[i * 12 + 10], 1.0 / q)) << i;
    EXPECT_TRUE(same_double(h[i * 12 + 11], std::fmin(p, q) + std::fmax(p, r))) << i;
  }
}

TEST(PtxFloat, ApproximateFunctionsStayWithinTheirDocumentedBounds) {
  CNUAS_REQUIRE_NVCC();
  Device dev("float.ptx");
  std::vector<float> x;
  for (int k = -200; k <= 200; ++k)
    x.push_back(static_cast<float>(k) * 0.0157f);  // within [-pi, pi]
  const int n = static_cast<int>(x.size());
  auto dx = dev.upload(x);
  auto out = dev.alloc<float>(n * 7);
  dev.launch("approx_f32", {static_cast<std::uint32_t>(n + 127) / 128, 1, 1}, {128, 1, 1}, dx, out,
             n);
  auto h = dev.download<float>(out, n * 7);
  for (int i = 0; i < n; ++i) {
    const double a = x[i];
    const float* o = &h[i * 7];
    EXPECT_LE(std::fabs(o[0] - std::sin(a)), std::ldexp(1.0, -20)) << "sin " << a;  // 2^-20.9 abs
    EXPECT_LE(std::fabs(o[1] - std::cos(a)), std::ldexp(1.0, -20)) << "cos " << a;
    EXPECT_LE(std::fabs(o[2] - std::log2(std::fabs(a) + 1.0)), std::ldexp(1.0, -22)) << "lg2 " << a;
    const double e = std::exp2(static_cast<float>(a * 0.25f));
    EXPECT_LE(std::fabs(o[3] - e) / e, std::ldexp(1.0, -22)) << "ex2 " << a;  // 2 ulp
    const double rs = 1.0 / std::sqrt(std::fabs(a) + 0.5);
    EXPECT_LE(std::fabs(o[4] - rs) / rs, std::ldexp(1.0, -22)) << "rsqrt " << a;
    const double th = std::tanh(static_cast<float>(a * 0.5f));
    EXPECT_LE(std::fabs(o[5] - th), std::ldexp(std::fabs(th), -10) + 1e-30)
        << "tanh " << a;  // 2^-10.987 rel
    EXPECT_LE(std::fabs(o[6] - a / 3.0), std::ldexp(std::fabs(a / 3.0), -22)) << "div.approx " << a;
  }
}

TEST(PtxFloat, NanRulesComparisonsAndClassification) {
  CNUAS_REQUIRE_NVCC();
  const float nan = std::numeric_limits<float>::quiet_NaN(),
              inf = std::numeric_limits<float>::infinity();
  const std::vector<float> a{1.0f, nan, nan, -0.0f, 0.0f, inf, 1e-40f, -2.0f, 0.5f};
  const std::vector<float> b{2.0f, 1.0f, nan, 0.0f, -0.0f, -inf, -1.0f, -2.0f, 0.75f};
  const int n = static_cast<int>(a.size());
  Device dev("float.ptx");
  auto x = dev.upload(a), y = dev.upload(b);
  auto out = dev.alloc<unsigned>(n * 10);
  dev.launch("classify", {1, 1, 1}, {32, 1, 1}, x, y, out, n);
  auto h = dev.download<unsigned>(out, n * 10);
  for (int i = 0; i < n; ++i) {
    const float p = a[i], q = b[i];
    const unsigned* o = &h[i * 10];
    auto fbits = [](unsigned u) {
      float f;
      std::memcpy(&f, &u, 4);
      return f;
    };
    // fminf/fmaxf: a NaN operand is ignored; min(-0, +0) is -0 on the GPU.
    const float mn = std::isnan(p)   ? q
                     : std::isnan(q) ? p
                                     : (p == q ? (std::signbit(p) ? p : q) : std::fmin(p, q));
    const float mx = std::isnan(p)   ? q
                     : std::isnan(q) ? p
                                     : (p == q ? (std::signbit(p) ? q : p) : std::fmax(p, q));
    EXPECT_TRUE(same_float(fbits(o[0]), mn)) << "min " << i;
    EXPECT_TRUE(same_float(fbits(o[1]), mx)) << "max " << i;
    const unsigned cmp =
        (p < q) | (p <= q) << 1 | (p > q) << 2 | (p >= q) << 3 | (p == q) << 4 | (p != q) << 5;
    EXPECT_EQ(o[2], cmp) << i;
    EXPECT_EQ(o[3], static_cast<unsigned>((!(p < q)) | (!(p >= q)) << 1)) << i;
    EXPECT_EQ(o[4],
              static_cast<unsigned>(std::isnan(p) | std::isinf(p) << 1 | std::isfinite(p) << 2))
        << i;
    EXPECT_TRUE(same_float(fbits(o[5]), std::copysign(p, q))) << i;
    EXPECT_EQ(o[6], static_cast<unsigned>(std::fpclassify(p) == FP_SUBNORMAL)) << i;
    EXPECT_EQ(o[7], static_cast<unsigned>(std::isnormal(p))) << i;
    EXPECT_EQ(std::isnan(fbits(o[8])), std::isnan(p) || std::isnan(q)) << "min.NaN " << i;
    // add.ftz.sat: subnormal inputs flushed, result clamped to [0, 1], NaN to 0.
    const float fp = std::fpclassify(p) == FP_SUBNORMAL ? 0.0f : p,
                fq = std::fpclassify(q) == FP_SUBNORMAL ? 0.0f : q;
    float s = fp + fq;
    s = std::isnan(s) ? 0.0f : s < 0 ? 0.0f : s > 1 ? 1.0f : s;
    EXPECT_TRUE(same_float(std::fabs(fbits(o[9])), s)) << "add.ftz.sat " << i;
  }
}

// Round a float to binary16 by finding its two neighbours exactly.
std::uint16_t to_half(float f, int mode) {
  const double v = f;
  if (std::isnan(v)) return 0x7e00;
  const std::uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const double a = std::fabs(v);
  const bool neg = sign != 0;
  if (std::isinf(a)) return sign | 0x7c00;
  int e = a == 0 ? -14 : std::ilogb(a);
  if (e < -14) e = -14;
  const double quantum = std::ldexp(1.0, e - 10);
  const double lo = std::floor(a / quantum) * quantum, hi = lo + quantum;
  double r;
  if (lo == a)
    r = a;
  else if (mode == FE_TOWARDZERO)
    r = lo;
  else if (mode == FE_UPWARD)
    r = neg ? lo : hi;
  else if (mode == FE_DOWNWARD)
    r = neg ? hi : lo;
  else {
    const double mid = (lo + hi) / 2;
    r = a < mid ? lo : a > mid ? hi : (std::fmod(lo / quantum, 2.0) == 0 ? lo : hi);
  }
  if (r > 65504.0) {
    const bool to_max =
        mode == FE_TOWARDZERO || (mode == FE_UPWARD && neg) || (mode == FE_DOWNWARD && !neg);
    return sign | (to_max ? 0x7bff : 0x7c00);
  }
  if (r < std::ldexp(1.0, -14)) return sign | static_cast<std::uint16_t>(r / std::ldexp(1.0, -24));
  const int re = std::ilogb(r);
  const std::uint16_t man = static_cast<std::uint16_t>((r / std::ldexp(1.0, re) - 1.0) * 1024.0);
  return sign | static_cast<std::uint16_t>((re + 15) << 10) | man;
}

float half_value(std::uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double v = e == 0    ? std::ldexp(m, -24)
                   : e == 31 ? (m ? NAN : INFINITY)
                             : std::ldexp(m | 0x400, e - 25);
  return static_cast<float>((h & 0x8000) ? -v : v);
}

std::uint16_t to_bf16(float f) {
  std::uint32_t b = bits(f);
  if (std::isnan(f)) return 0x7fc0;
  b += 0x7fffu + ((b >> 16) & 1u);  // round to nearest even on the dropped 16 bits
  return static_cast<std::uint16_t>(b >> 16);
}

float bf16_value(std::uint16_t h) {
  const std::uint32_t b = std::uint32_t{h} << 16;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

TEST(PtxFloat, HalfAndBfloat16ArithmeticIsCorrectlyRounded) {
  CNUAS_REQUIRE_NVCC();
  const std::vector<float> a{1.0f, 0.333333f, 65504.0f, 6.1e-5f, -3.5f, 1000.1f, 1e-7f, 2.0f};
  const std::vector<float> b{2.0f, 3.0f, 2.0f, 6.1e-5f, 0.0078125f, -999.9f, 3e-8f, 65519.0f};
  const int n = static_cast<int>(a.size());
  Device dev("float.ptx");
  auto x = dev.upload(a), y = dev.upload(b);
  auto out = dev.alloc<std::uint16_t>(n * 10);
  dev.launch("halves", {1, 1, 1}, {32, 1, 1}, x, y, out, n);
  auto h = dev.download<std::uint16_t>(out, n * 10);
  for (int i = 0; i < n; ++i) {
    const std::uint16_t ha = to_half(a[i], FE_TONEAREST), hb = to_half(b[i], FE_TONEAREST);
    const float fa = half_value(ha), fb = half_value(hb);
    const std::uint16_t* o = &h[i * 10];
    EXPECT_EQ(o[0], ha) << i;
    EXPECT_EQ(o[1], to_half(fa + fb, FE_TONEAREST)) << "hadd " << i;
    EXPECT_EQ(o[2], to_half(fa * fb, FE_TONEAREST)) << "hmul " << i;
    EXPECT_EQ(o[3], to_half(std::fma(fa, fb, fa), FE_TONEAREST)) << "hfma " << i;
    EXPECT_EQ(o[4], to_half(fa * fb, FE_TONEAREST)) << "hmul2 low " << i;
    EXPECT_EQ(o[5], to_half(fb * fa, FE_TONEAREST)) << "hmul2 high " << i;
    const std::uint16_t ca = to_bf16(a[i]), cb = to_bf16(b[i]);
    EXPECT_EQ(o[6], ca) << i;
    EXPECT_EQ(o[7], to_bf16(bf16_value(ca) + bf16_value(cb))) << "bf16 add " << i;
    EXPECT_EQ(o[8], to_bf16(std::fma(bf16_value(ca), bf16_value(cb), bf16_value(ca))))
        << "bf16 fma " << i;
    EXPECT_EQ(o[9], fa >= fb ? ha : hb) << "hmax " << i;
  }
}

TEST(PtxFloat, ConversionsRoundAndSaturate) {
  CNUAS_REQUIRE_NVCC();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> a{2.5f, -2.5f,         3.5f,     -0.5f, 1e10f,   -1e10f,
                             nan,  4294967296.0f, 123.456f, -7.9f, 65519.0f};
  const std::vector<long long> w{
      (1ll << 24) + 1, -((1ll << 40) + 3),    300, -300, 127, -129, 70000, -1,
      (1ll << 53) + 1, 9223372036854775807ll, 0};
  const int n = static_cast<int>(a.size());
  Device dev("float.ptx");
  auto x = dev.upload(a), y = dev.upload(w);
  auto out = dev.alloc<int>(n * 12);
  auto fout = dev.alloc<float>(n * 8);
  dev.launch("conversions", {1, 1, 1}, {32, 1, 1}, x, y, out, fout, n);
  auto h = dev.download<int>(out, n * 12);
  auto hf = dev.download<float>(fout, n * 8);
  auto sat_int = [](double v) -> int {
    if (std::isnan(v)) return 0;
    if (v >= 2147483647.0) return 2147483647;
    if (v <= -2147483648.0) return -2147483647 - 1;
    return static_cast<int>(v);
  };
  auto sat_uint = [](double v) -> unsigned {
    if (std::isnan(v) || v <= 0) return 0;
    if (v >= 4294967295.0) return 4294967295u;
    return static_cast<unsigned>(v);
  };
  for (int i = 0; i < n; ++i) {
    const double v = a[i];
    const int* o = &h[i * 12];
    EXPECT_EQ(o[0], sat_int(std::nearbyint(v))) << "rn " << v;
    EXPECT_EQ(o[1], sat_int(std::trunc(v))) << "rz " << v;
    EXPECT_EQ(o[2], sat_int(std::floor(v))) << "rm " << v;
    EXPECT_EQ(o[3], sat_int(std::ceil(v))) << "rp " << v;
    EXPECT_EQ(static_cast<unsigned>(o[4]), sat_uint(std::trunc(v))) << "u32 rz " << v;
    long long ll = std::isnan(v)                 ? 0
                   : v >= 9.2233720368547758e18  ? 9223372036854775807ll
                   : v <= -9.2233720368547758e18 ? (-9223372036854775807ll - 1)
                                                 : static_cast<long long>(std::nearbyint(v));
    EXPECT_EQ(o[5], static_cast<int>(ll >> 32)) << "s64 rn " << v;
    EXPECT_EQ(o[6], static_cast<int>(ll)) << "s64 rn " << v;
    const long long s = static_cast<int>(w[i]);
    EXPECT_EQ(o[7], static_cast<int>(std::clamp<long long>(s, -128, 127))) << "sat s8 " << w[i];
    EXPECT_EQ(o[8], static_cast<int>(std::clamp<long long>(w[i], 0, 65535))) << "sat u16 " << w[i];
    EXPECT_EQ(o[9], sat_int(std::trunc(v * 3.0))) << "f64 rz " << v;
    EXPECT_EQ(static_cast<unsigned>(o[10]), sat_uint(std::ceil(v))) << "f64 u32 rp " << v;
    EXPECT_EQ(o[11], sat_int(std::nearbyint(half_value(to_half(a[i], FE_TOWARDZERO)))))
        << "half " << v;
    const float* f = &hf[i * 8];
    volatile long long lv = w[i];
    EXPECT_TRUE(same_float(f[0], static_cast<float>(lv))) << i;
    EXPECT_TRUE(same_float(f[1], under(FE_TOWARDZERO,
                                       [&] {
                                         volatile float r = static_cast<float>(lv);
                                         return float{r};
                                       })))
        << i;
    EXPECT_TRUE(same_float(f[2], under(FE_DOWNWARD,
                                       [&] {
                                         volatile float r = static_cast<float>(lv);
                                         return float{r};
                                       })))
        << i;
    EXPECT_TRUE(same_float(f[3], under(FE_UPWARD,
                                       [&] {
                                         volatile float r = static_cast<float>(lv);
                                         return float{r};
                                       })))
        << i;
    volatile int iv = static_cast<int>(w[i]);
    EXPECT_TRUE(same_float(f[4], under(FE_TOWARDZERO,
                                       [&] {
                                         volatile float r = static_cast<float>(iv);
                                         return float{r};
                                       })))
        << i;
    volatile unsigned long long uv = static_cast<unsigned long long>(w[i]);
    EXPECT_TRUE(same_float(f[5], under(FE_UPWARD,
                                       [&] {
                                         volatile float r = static_cast<float>(uv);
                                         return float{r};
                                       })))
        << i;
    volatile double dv = static_cast<double>(lv) + 0.1;
    EXPECT_TRUE(same_float(f[6], under(FE_TOWARDZERO,
                                       [&] {
                                         volatile float r = static_cast<float>(dv);
                                         return float{r};
                                       })))
        << i;
    EXPECT_TRUE(same_float(f[7], half_value(to_half(a[i], FE_UPWARD)))) << "half ru " << v;
  }
}

}  // namespace
}  // namespace cnuas::ptx::testing
