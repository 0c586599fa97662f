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
  E4M3,  // sm_89 8-bit floats: only as mma operands
  E5M2,
  E4M3x2,  // a packed pair of them (cvt)
  E5M2x2,
  S4,  // sub-byte integers and single bits: only as mma operands
  U4,
  B1,
};

std::optional<Type> type_from_name(std::string_view name);  // "u32" (no dot)
std::string_view type_name(Type t);

// Size in bytes as stored in memory (pred: 1). Inline: executors ask per lane.
constexpr unsigned type_bytes(Type t) {
  switch (t) {
    case Type::None:
      return 0;
    case Type::Pred:
    case Type::B8:
    case Type::U8:
    case Type::S8:
    case Type::E4M3:
    case Type::E5M2:
      return 1;
    case Type::B16:
    case Type::U16:
    case Type::S16:
    case Type::F16:
    case Type::BF16:
    case Type::E4M3x2:
    case Type::E5M2x2:
      return 2;
    case Type::B32:
    case Type::U32:
    case Type::S32:
    case Type::F32:
    case Type::F16x2:
    case Type::BF16x2:
    case Type::TF32:
      return 4;
    case Type::B64:
    case Type::U64:
    case Type::S64:
    case Type::F64:
      return 8;
    case Type::B128:
      return 16;
    case Type::S4:  // sub-byte: no whole-byte size (mma packs them into .b32 registers)
    case Type::U4:
    case Type::B1:
      return 0;
  }
  return 0;
}
constexpr unsigned type_bits(Type t) {
  return type_bytes(t) * 8;
}
constexpr bool is_signed(Type t) {
  return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64;
}
// fp8 .. f64, including packed pairs
constexpr bool is_float(Type t) {
  return t == Type::F16 || t == Type::F16x2 || t == Type::BF16 || t == Type::BF16x2 ||
         t == Type::TF32 || t == Type::F32 || t == Type::F64 || t == Type::E4M3 ||
         t == Type::E5M2 || t == Type::E4M3x2 || t == Type::E5M2x2;
}

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
