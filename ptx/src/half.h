// IEEE binary16 and bfloat16 conversions with explicit rounding.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "ptx/ir.h"

namespace cnuas::ptx {

inline float bits_to_f32(std::uint64_t b) {
  const std::uint32_t v = static_cast<std::uint32_t>(b);
  float f;
  std::memcpy(&f, &v, 4);
  return f;
}
inline std::uint64_t f32_to_bits(float f) {
  std::uint32_t v;
  std::memcpy(&v, &f, 4);
  return v;
}
inline double bits_to_f64(std::uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
inline std::uint64_t f64_to_bits(double d) {
  std::uint64_t v;
  std::memcpy(&v, &d, 8);
  return v;
}

float f16_to_f32(std::uint16_t h);
float bf16_to_f32(std::uint16_t h);
// Rounds a double (exact or already correctly rounded to more than twice the
// target precision) to binary16 / bfloat16 with the given mode (Rn default).
std::uint16_t f64_to_f16(double v, Round mode, bool saturate_finite = false);
std::uint16_t f64_to_bf16(double v, Round mode);
// Rounds a double to float with the given rounding mode (exact, not via fesetround).
float round_to_f32(double v, Round mode);

}  // namespace cnuas::ptx
