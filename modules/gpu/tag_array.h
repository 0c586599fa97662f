// Tags of a set-associative, sectored cache with LRU replacement. Each line
// keeps which of its sectors are valid and which are dirty.
#pragma once

#include <cstdint>
#include <vector>

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
  // line over the least recently used way when absent.
  Eviction fill(std::uint64_t line, std::uint64_t set_key, std::uint32_t sectors, bool dirty);
  // Drops sectors of a present line (an atomic performed further out).
  void invalidate(std::uint64_t line, std::uint64_t set_key, std::uint32_t sectors);

 private:
  struct Way {
    std::uint64_t line = ~0ull;
    std::uint32_t valid = 0, dirty = 0;
    std::uint64_t used = 0;
  };
  Way* set_for(std::uint64_t set_key) {
    return &ways_storage_[(set_key / line_bytes_) % sets_ * ways_];
  }
  Way* find(std::uint64_t line, std::uint64_t set_key);

  std::uint32_t line_bytes_, ways_;
  std::uint64_t sets_;
  std::vector<Way> ways_storage_;
  std::uint64_t tick_ = 0;  // LRU order: accesses counted
};

}  // namespace cnuas::gpu
