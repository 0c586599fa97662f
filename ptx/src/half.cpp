#include "half.h"

#include <limits>

namespace cnuas::ptx {

float f16_to_f32(std::uint16_t h) {
  const std::uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  float v;
  if (exp == 0)
    v = std::ldexp(static_cast<float>(man), -24);
  else if (exp == 31)
    v = man ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else
    v = std::ldexp(static_cast<float>(man | 0x400), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

float bf16_to_f32(std::uint16_t h) {
  return bits_to_f32(std::uint64_t{h} << 16);
}

namespace {

// Round a non-negative finite value to an integer multiple of 2^q per mode.
double round_scaled(double x, int q, Round mode, bool negative) {
  const double scaled = std::ldexp(x, -q);
  double r;
  switch (mode) {
    case Round::Rz:
    case Round::Rzi:
      r = std::trunc(scaled);
      break;
    case Round::Rm:
    case Round::Rmi:
      r = negative ? std::ceil(scaled) : std::floor(scaled);
      break;
    case Round::Rp:
    case Round::Rpi:
      r = negative ? std::floor(scaled) : std::ceil(scaled);
      break;
    case Round::Rna:
      r = std::floor(scaled + 0.5);
      break;
    default:
      r = std::nearbyint(scaled);
      break;  // ties to even (default FP environment)
  }
  return std::ldexp(r, q);
}

// Generic narrow-float rounding: mantissa bits m (without hidden), exponent bias, max exponent.
std::uint32_t to_narrow(double v, Round mode, int man_bits, int exp_bits, bool sat_finite) {
  const int bias = (1 << (exp_bits - 1)) - 1;
  const std::uint32_t sign = std::signbit(v) ? 1u : 0u;
  const std::uint32_t exp_all = (1u << exp_bits) - 1;
  if (std::isnan(v)) return (exp_all << man_bits) | (1u << (man_bits - 1));
  const bool neg = sign != 0;
  double a = std::fabs(v);
  const double max_finite = std::ldexp(2.0 - std::ldexp(1.0, -man_bits), bias);
  auto inf_or_max = [&]() -> std::uint32_t {
    const bool to_max = sat_finite || mode == Round::Rz || (mode == Round::Rm && !neg) ||
                        (mode == Round::Rp && neg);
    const std::uint32_t mag =
        to_max ? ((exp_all - 1) << man_bits) | ((1u << man_bits) - 1) : exp_all << man_bits;
    return (sign << (man_bits + exp_bits)) | mag;
  };
  if (std::isinf(a))
    return sat_finite ? inf_or_max() : (sign << (man_bits + exp_bits)) | (exp_all << man_bits);
  if (a == 0) return sign << (man_bits + exp_bits);
  int e = std::ilogb(a);
  if (e < 1 - bias) e = 1 - bias;  // subnormal range: fixed quantum
  const double r = round_scaled(a, e - man_bits, mode, neg);
  if (r > max_finite) return inf_or_max();
  if (r == 0) return sign << (man_bits + exp_bits);
  int re = std::ilogb(r);
  std::uint32_t bits;
  if (re < 1 - bias) {
    bits = static_cast<std::uint32_t>(std::ldexp(r, bias - 1 + man_bits));
  } else {
    const double frac = std::ldexp(r, -re) - 1.0;
    bits = (static_cast<std::uint32_t>(re + bias) << man_bits) |
           static_cast<std::uint32_t>(std::ldexp(frac, man_bits));
  }
  return (sign << (man_bits + exp_bits)) | bits;
}

}  // namespace

std::uint16_t f64_to_f16(double v, Round mode, bool saturate_finite) {
  return static_cast<std::uint16_t>(to_narrow(v, mode, 10, 5, saturate_finite));
}

std::uint16_t f64_to_bf16(double v, Round mode) {
  return static_cast<std::uint16_t>(to_narrow(v, mode, 7, 8, false));
}

float round_to_f32(double v, Round mode) {
  if (mode == Round::None || mode == Round::Rn) return static_cast<float>(v);
  return bits_to_f32(to_narrow(v, mode, 23, 8, false));
}

}  // namespace cnuas::ptx
