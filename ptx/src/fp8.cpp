#include "fp8.h"

#include <cmath>

#include "half.h"

namespace cnuas::ptx {
namespace {

struct Format {
  int mantissa_bits;
  int bias;
  double max_finite;
  bool has_infinity;
};

Format format_of(Type t) {
  if (t == Type::E5M2 || t == Type::E5M2x2) return {2, 15, 57344.0, true};
  return {3, 7, 448.0, false};
}

constexpr std::uint8_t kCanonicalNaN = 0x7f;

}  // namespace

double fp8_to_double(std::uint8_t bits, Type t) {
  const Format f = format_of(t);
  const bool negative = (bits & 0x80) != 0;
  const int exponent_field = (bits & 0x7f) >> f.mantissa_bits;
  const int mantissa = bits & ((1 << f.mantissa_bits) - 1);
  const int all_ones = (1 << (7 - f.mantissa_bits)) - 1;
  double v;
  if (f.has_infinity && exponent_field == all_ones)
    v = mantissa == 0 ? HUGE_VAL : std::nan("");
  else if (!f.has_infinity && exponent_field == all_ones && mantissa == (1 << f.mantissa_bits) - 1)
    v = std::nan("");
  else if (exponent_field == 0)  // subnormal: 0.m x 2^(1 - bias)
    v = std::ldexp(mantissa, 1 - f.bias - f.mantissa_bits);
  else
    v = std::ldexp((1 << f.mantissa_bits) + mantissa, exponent_field - f.bias - f.mantissa_bits);
  return negative ? -v : v;
}

std::uint8_t double_to_fp8(double v, Type t, bool satfinite, bool relu) {
  if (std::isnan(v)) return kCanonicalNaN;
  if (relu && (v < 0 || std::signbit(v))) v = 0.0;
  const Format f = format_of(t);
  const std::uint8_t sign = std::signbit(v) ? 0x80 : 0x00;
  const std::uint8_t max_bits =
      static_cast<std::uint8_t>(f.has_infinity ? 0x7b : 0x7e);  // the largest finite pattern
  double a = std::fabs(v);
  if (std::isinf(a)) {
    if (satfinite) return sign | max_bits;
    return sign | (f.has_infinity ? 0x7c : kCanonicalNaN);
  }
  // The spacing of representable values around a: 2^(e - m) in binade e,
  // constant below the smallest normal (subnormals).
  const int min_normal_exponent = 1 - f.bias;
  int e = min_normal_exponent;
  if (a >= std::ldexp(1.0, min_normal_exponent)) e = std::ilogb(a);
  const double quantum = std::ldexp(1.0, e - f.mantissa_bits);
  a = std::nearbyint(a / quantum) * quantum;  // ties to even (the default rounding mode)
  if (a > f.max_finite) {
    if (satfinite) return sign | max_bits;
    return sign | (f.has_infinity ? 0x7c : kCanonicalNaN);
  }
  if (a == 0) return sign;
  if (a < std::ldexp(1.0, min_normal_exponent))
    return sign | static_cast<std::uint8_t>(std::ldexp(a, f.bias - 1 + f.mantissa_bits));
  const int exponent = std::ilogb(a);  // rounding may have carried into the next binade
  const int mantissa =
      static_cast<int>(std::ldexp(a, f.mantissa_bits - exponent)) - (1 << f.mantissa_bits);
  return sign | static_cast<std::uint8_t>(((exponent + f.bias) << f.mantissa_bits) | mantissa);
}

std::uint16_t fp8_to_f16_bits(std::uint8_t bits, Type t, bool relu) {
  const double v = fp8_to_double(bits, t);
  if (std::isnan(v))
    return (t == Type::E5M2 || t == Type::E5M2x2) && !relu ? static_cast<std::uint16_t>(bits << 8)
                                                           : 0x7fff;
  if (relu && (v < 0 || std::signbit(v))) return 0;
  return f64_to_f16(v, Round::Rn);
}

}  // namespace cnuas::ptx
