// PTX scalar types and the facts execution needs about them.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace cnuas::ptx {

enum class Type : std::uint8_t {
  None,
  Pred,
  B8,
  B16,
  B32,
  B64,
  B128,
  U8,
  U16,
  U32,
  U64,
  S8,
  S16,
  S32,
  S64,
  F16,
  F16x2,
  BF16,
  BF16x2,
  TF32,
  F32,
  F64,
};

std::optional<Type> type_from_name(std::string_view name);  // "u32" (no dot)
std::string_view type_name(Type t);

// Size in bytes as stored in memory (pred: 1).
unsigned type_bytes(Type t);
inline unsigned type_bits(Type t) {
  return type_bytes(t) * 8;
}
bool is_signed(Type t);
bool is_float(Type t);  // f16 .. f64, including packed pairs

// Sign- or zero-extends the low bits of a register value to 64 bits.
inline std::int64_t sign_extend(std::uint64_t v, unsigned bits) {
  if (bits >= 64) return static_cast<std::int64_t>(v);
  const std::uint64_t m = std::uint64_t{1} << (bits - 1);
  v &= (m << 1) - 1;
  return static_cast<std::int64_t>((v ^ m) - m);
}
inline std::uint64_t truncate(std::uint64_t v, unsigned bits) {
  return bits >= 64 ? v : v & ((std::uint64_t{1} << bits) - 1);
}

}  // namespace cnuas::ptx
