#include "ptx/types.h"

#include <array>
#include <utility>

namespace cnuas::ptx {
namespace {

constexpr std::array<std::pair<std::string_view, Type>, 29> kTypes{{
    {"pred", Type::Pred},     {"b8", Type::B8},     {"b16", Type::B16},
    {"b32", Type::B32},       {"b64", Type::B64},   {"b128", Type::B128},
    {"u8", Type::U8},         {"u16", Type::U16},   {"u32", Type::U32},
    {"u64", Type::U64},       {"s8", Type::S8},     {"s16", Type::S16},
    {"s32", Type::S32},       {"s64", Type::S64},   {"f16", Type::F16},
    {"f16x2", Type::F16x2},   {"bf16", Type::BF16}, {"bf16x2", Type::BF16x2},
    {"tf32", Type::TF32},     {"f32", Type::F32},   {"f64", Type::F64},
    {"e4m3", Type::E4M3},     {"e5m2", Type::E5M2}, {"e4m3x2", Type::E4M3x2},
    {"e5m2x2", Type::E5M2x2}, {"s4", Type::S4},     {"u4", Type::U4},
    {"b1", Type::B1},         {"", Type::None},
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

}  // namespace cnuas::ptx
