#include "ptx/types.h"

#include <array>
#include <utility>

namespace cnuas::ptx {
namespace {

constexpr std::array<std::pair<std::string_view, Type>, 22> kTypes{{
    {"pred", Type::Pred}, {"b8", Type::B8},         {"b16", Type::B16},   {"b32", Type::B32},
    {"b64", Type::B64},   {"b128", Type::B128},     {"u8", Type::U8},     {"u16", Type::U16},
    {"u32", Type::U32},   {"u64", Type::U64},       {"s8", Type::S8},     {"s16", Type::S16},
    {"s32", Type::S32},   {"s64", Type::S64},       {"f16", Type::F16},   {"f16x2", Type::F16x2},
    {"bf16", Type::BF16}, {"bf16x2", Type::BF16x2}, {"tf32", Type::TF32}, {"f32", Type::F32},
    {"f64", Type::F64},   {"", Type::None},
}};

}  // namespace

std::optional<Type> type_from_name(std::string_view name) {
  if (name.empty()) return std::nullopt;
  for (const auto& [n, t] : kTypes)
    if (n == name) return t;
  return std::nullopt;
}

std::string_view type_name(Type t) {
  for (const auto& [n, ty] : kTypes)
    if (ty == t) return n;
  return "";
}

unsigned type_bytes(Type t) {
  switch (t) {
    case Type::None:
      return 0;
    case Type::Pred:
    case Type::B8:
    case Type::U8:
    case Type::S8:
      return 1;
    case Type::B16:
    case Type::U16:
    case Type::S16:
    case Type::F16:
    case Type::BF16:
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
  }
  return 0;
}

bool is_signed(Type t) {
  return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64;
}

bool is_float(Type t) {
  switch (t) {
    case Type::F16:
    case Type::F16x2:
    case Type::BF16:
    case Type::BF16x2:
    case Type::TF32:
    case Type::F32:
    case Type::F64:
      return true;
    default:
      return false;
  }
}

}  // namespace cnuas::ptx
