// Tags of a set-associative, sectored cache with LRU replacement. Each line
// keeps which of its sectors are valid and which are dirty. Lines filled as
// persisting (an L2 access policy window) hold at most `persisting_ways` ways
// of their set, the most recent ones (an older one becomes normal), and are
// evicted only when every way of the set persists; lines filled as streaming
// enter at the least recently used position.
#pragma once

#include <cstdint>
#include <vector>

#include "gpu/l2_policy.h"

namespace cnuas::gpu {

class TagArray {
 public:
  TagArray(std::uint64_t size_bytes, std::uint32_t line_bytes, std::uint32_t ways);

  // `set_key` picks the set: the line address, or a denser form of it when
  // only some addresses come to this cache (an L2 slice).
  // Valid sectors of `line` (0 when absent); a hit refreshes its LRU position.
  std::uint32_t lookup(std::uint64_t line, std::uint64_t set_key);

  struct Eviction {
    bool happened = false;
    std::uint64_t line = 0;
    std::uint32_t dirty = 0;  // sectors to write back
  };
  // Makes `sectors` of `line` valid (and dirty when `dirty`), allocating the
  // line over the least recently used way when absent (see the class comment
  // for persisting and streaming lines). A present line becomes persisting
  // when filled so; a normal or streaming fill leaves its retention as it is.
  Eviction fill(std::uint64_t line, std::uint64_t set_key, std::uint32_t sectors, bool dirty,
                Retention retention = Retention::Normal);
  // Drops sectors of a present line (an atomic performed further out).
  void invalidate(std::uint64_t line, std::uint64_t set_key, std::uint32_t sectors);
  // Drops the clean ones of `sectors` (dirty sectors are the newest data and stay).
  void invalidate_clean(std::uint64_t line, std::uint64_t set_key, std::uint32_t sectors);
  // How many ways of each set persisting lines may hold; 0: none persist.
  void set_persisting_ways(std::uint32_t ways) { persisting_ways_ = ways < ways_ ? ways : ways_; }
  std::uint32_t ways() const { return ways_; }
  // Every persisting line becomes normal (cudaCtxResetPersistingL2Cache).
  void reset_persisting();

 private:
  struct Way {
    std::uint64_t line = ~0ull;
    std::uint32_t valid = 0, dirty = 0;
    std::uint64_t used = 0;
    bool persisting = false;
  };
  Way* set_for(std::uint64_t set_key) {
    return &ways_storage_[(set_key / line_bytes_) % sets_ * ways_];
  }
  Way* find(std::uint64_t line, std::uint64_t set_key);
  // The way a new line takes in `set`.
  Way* victim(Way* set);
  std::uint32_t persisting_in(const Way* set) const;
  // Before another line of `set` persists: keeps the persisting lines within
  // the set's share, sparing `keep`.
  void make_room_to_persist(Way* set, const Way* keep);

  std::uint32_t line_bytes_, ways_;
  std::uint64_t sets_;
  std::vector<Way> ways_storage_;
  std::uint64_t tick_ = 0;  // LRU order: accesses counted
  std::uint32_t persisting_ways_ = 0;
};

}  // namespace cnuas::gpu
