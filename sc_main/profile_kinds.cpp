#include "profile_kinds.h"

#include "gpu/arch_schema.h"

namespace cnuas::cli {

const std::vector<const Schema*>& profile_kinds() {
  static const std::vector<const Schema*> kinds = {&gpu::arch_schema()};
  return kinds;
}

const Schema* find_profile_kind(const std::string& type) {
  for (const Schema* s : profile_kinds())
    if (s->type() == type) return s;
  return nullptr;
}

}  // namespace cnuas::cli
