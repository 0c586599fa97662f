#include "gpu/cache_hint.h"

#include <string_view>

namespace cnuas::gpu {

namespace {

// The mnemonic with its qualifiers: the statement's first word that is not a guard. (The
// decoder keeps the cache qualifiers only in the statement text: they change no result.)
std::string_view mnemonic(const std::string& text) {
  std::string_view rest(text);
  while (!rest.empty()) {
    const std::size_t space = rest.find(' ');
    const std::string_view word = rest.substr(0, space);
    if (!word.empty() && word.front() != '@') return word;
    if (space == std::string_view::npos) break;
    rest.remove_prefix(space + 1);
  }
  return {};
}

std::uint8_t bits_of(std::string_view q) {
  using H = CacheHint;
  if (q == "cg") return H::kBypassL1;
  if (q == "cv") return H::kBypassL1 | H::kRefetch;
  if (q == "cs" || q == "lu") return H::kL1Streaming | H::kL2Streaming;
  if (q == "L1::no_allocate") return H::kL1NoAllocate;
  if (q == "L1::evict_first") return H::kL1Streaming;
  if (q == "L2::evict_first") return H::kL2Streaming;
  if (q == "L2::evict_last") return H::kL2Last;
  return 0;  // .ca, .wb, .nc, evict_normal, evict_unchanged, ...: the default
}

}  // namespace

CacheHint cache_hint_of(const ptx::Instruction& i) {
  CacheHint h;
  if (i.op != ptx::Opcode::ld && i.op != ptx::Opcode::ldu && i.op != ptx::Opcode::st) return h;
  std::string_view m = mnemonic(i.text);
  for (std::size_t dot = m.find('.'); dot != std::string_view::npos; dot = m.find('.')) {
    m.remove_prefix(dot + 1);
    h.bits |= bits_of(m.substr(0, m.find('.')));
  }
  return h;
}

}  // namespace cnuas::gpu
