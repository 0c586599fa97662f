// The 8-bit floating-point formats of sm_89+ (PTX .e4m3 and .e5m2): encoding
// from a double with round-to-nearest-even, and decoding back.
//   e4m3: 1 sign, 4 exponent (bias 7), 3 mantissa bits; no infinities, the one
//         NaN pattern S.1111.111, largest finite 448.
//   e5m2: 1 sign, 5 exponent (bias 15), 2 mantissa bits; IEEE-like, with
//         infinities (S.11111.00) and NaNs, largest finite 57344.
#pragma once

#include <cstdint>

#include "ptx/types.h"

namespace cnuas::ptx {

// t is Type::E4M3 or Type::E5M2 (or their x2 pair types, meaning one element).
double fp8_to_double(std::uint8_t bits, Type t);

// Rounds v to the nearest fp8 value (ties to even). With satfinite, results
// beyond the largest finite value (infinities included) become it with their
// sign; without it they become NaN (e4m3) or infinity (e5m2). A NaN input gives
// the canonical NaN 0x7f. With relu, negative results become +0.
std::uint8_t double_to_fp8(double v, Type t, bool satfinite, bool relu);

// The binary16 bits of an fp8 value (every fp8 value is exact in f16); an
// e4m3 NaN gives the canonical f16 NaN 0x7fff, an e5m2 one keeps its payload.
std::uint16_t fp8_to_f16_bits(std::uint8_t bits, Type t, bool relu);

constexpr bool is_fp8(Type t) {
  return t == Type::E4M3 || t == Type::E5M2 || t == Type::E4M3x2 || t == Type::E5M2x2;
}
constexpr bool is_fp8_pair(Type t) {
  return t == Type::E4M3x2 || t == Type::E5M2x2;
}

}  // namespace cnuas::ptx
