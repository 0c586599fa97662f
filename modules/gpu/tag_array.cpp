#include "gpu/tag_array.h"

namespace cnuas::gpu {

TagArray::TagArray(std::uint64_t size_bytes, std::uint32_t line_bytes, std::uint32_t ways)
    : line_bytes_(line_bytes),
      ways_(ways),
      sets_(size_bytes / line_bytes / ways),
      ways_storage_(sets_ * ways) {}

TagArray::Way* TagArray::find(std::uint64_t line, std::uint64_t set_key) {
  Way* set = set_for(set_key);
  for (std::uint32_t w = 0; w < ways_; ++w)
    if (set[w].line == line) return &set[w];
  return nullptr;
}

std::uint32_t TagArray::lookup(std::uint64_t line, std::uint64_t set_key) {
  Way* w = find(line, set_key);
  if (!w) return 0;
  w->used = ++tick_;
  return w->valid;
}

TagArray::Eviction TagArray::fill(std::uint64_t line, std::uint64_t set_key, std::uint32_t sectors,
                                  bool dirty) {
  Eviction ev;
  Way* w = find(line, set_key);
  if (!w) {
    Way* set = set_for(set_key);
    for (std::uint32_t i = 0; i < ways_; ++i) {
      if (set[i].line == ~0ull) {
        w = &set[i];
        break;
      }
      if (!w || set[i].used < w->used) w = &set[i];
    }
    if (w->line != ~0ull && w->dirty) ev = {true, w->line, w->dirty};
    *w = Way{line, 0, 0, 0};
  }
  w->valid |= sectors;
  if (dirty) w->dirty |= sectors;
  w->used = ++tick_;
  return ev;
}

void TagArray::invalidate(std::uint64_t line, std::uint64_t set_key, std::uint32_t sectors) {
  if (Way* w = find(line, set_key)) {
    w->valid &= ~sectors;
    w->dirty &= ~sectors;
  }
}

}  // namespace cnuas::gpu
