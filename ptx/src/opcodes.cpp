#include "ptx/opcodes.h"

#include <iterator>

namespace cnuas::ptx {
namespace {

constexpr std::string_view kIdentifiers[] = {"<invalid>",
#define CNUAS_PTX_NAME(name) #name,
                                             CNUAS_PTX_OPCODES(CNUAS_PTX_NAME)
#undef CNUAS_PTX_NAME
};

// and_ -> and: the enum spells C++ keywords with a trailing underscore.
constexpr std::string_view spelled(std::string_view id) {
  return id.size() > 1 && id.back() == '_' ? id.substr(0, id.size() - 1) : id;
}

}  // namespace

std::optional<Opcode> opcode_from_name(std::string_view name) {
  for (std::size_t i = 1; i < std::size(kIdentifiers); ++i)
    if (spelled(kIdentifiers[i]) == name) return static_cast<Opcode>(i);
  return std::nullopt;
}

std::string_view opcode_name(Opcode op) {
  return spelled(kIdentifiers[static_cast<std::size_t>(op)]);
}

}  // namespace cnuas::ptx
