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

std::uint32_t TagArray::persisting_in(const Way* set) const {
  std::uint32_t held = 0;
  for (std::uint32_t i = 0; i < ways_; ++i) held += set[i].persisting;
  return held;
}

void TagArray::make_room_to_persist(Way* set, const Way* keep) {
  if (persisting_in(set) < persisting_ways_) return;
  // The set's share is full: its least recently used persisting line becomes
  // normal (the set-aside keeps the most recent persisting lines).
  Way* oldest = nullptr;
  for (std::uint32_t i = 0; i < ways_; ++i)
    if (set[i].persisting && &set[i] != keep && (!oldest || set[i].used < oldest->used))
      oldest = &set[i];
  if (oldest) oldest->persisting = false;
}

TagArray::Way* TagArray::victim(Way* set) {
  for (std::uint32_t i = 0; i < ways_; ++i)
    if (set[i].line == ~0ull) return &set[i];
  // Persisting lines go only when nothing else is left; among the
  // candidates, the least recently used.
  const bool all_persisting = persisting_in(set) == ways_;
  Way* w = nullptr;
  for (std::uint32_t i = 0; i < ways_; ++i)
    if (set[i].persisting == all_persisting && (!w || set[i].used < w->used)) w = &set[i];
  return w;
}

TagArray::Eviction TagArray::fill(std::uint64_t line, std::uint64_t set_key, std::uint32_t sectors,
                                  bool dirty, Retention retention) {
  Eviction ev;
  const bool persisting = retention == Retention::Persisting && persisting_ways_ > 0;
  Way* set = set_for(set_key);
  Way* w = find(line, set_key);
  const bool fresh = !w;
  if (persisting && (fresh || !w->persisting)) make_room_to_persist(set, w);
  if (fresh) {
    w = victim(set);
    if (w->line != ~0ull && w->dirty) ev = {true, w->line, w->dirty};
    *w = Way{line, 0, 0, 0, false};
  }
  if (persisting) w->persisting = true;
  w->valid |= sectors;
  if (dirty) w->dirty |= sectors;
  // A streaming line enters as the least recently used: the next to go.
  w->used = fresh && retention == Retention::Streaming ? 0 : ++tick_;
  return ev;
}

void TagArray::reset_persisting() {
  for (Way& w : ways_storage_) w.persisting = false;
}

void TagArray::invalidate(std::uint64_t line, std::uint64_t set_key, std::uint32_t sectors) {
  if (Way* w = find(line, set_key)) {
    w->valid &= ~sectors;
    w->dirty &= ~sectors;
  }
}

void TagArray::invalidate_clean(std::uint64_t line, std::uint64_t set_key, std::uint32_t sectors) {
  if (Way* w = find(line, set_key)) w->valid &= ~(sectors & ~w->dirty);
}

}  // namespace cnuas::gpu
