// Miss status holding registers: one entry per line with misses in flight,
// the sectors being fetched and the requests waiting for them. A second miss
// to a line in flight merges instead of fetching again.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "gpu/mem_request.h"

namespace cnuas::gpu {

class MshrTable {
 public:
  explicit MshrTable(std::uint32_t capacity) : capacity_(capacity) {}

  enum class Outcome { Hit, Waiting, Full };
  // `r` needs sectors `need` of `line`, of which `valid` are present. On
  // Waiting, *fetch holds the sectors nobody has asked for yet (maybe 0).
  Outcome track(MemRequest* r, std::uint64_t line, std::uint32_t need, std::uint32_t valid,
                std::uint32_t* fetch) {
    const std::uint32_t missing = need & ~valid;
    if (missing == 0) return Outcome::Hit;
    auto it = entries_.find(line);
    if (it == entries_.end()) {
      if (entries_.size() >= capacity_) return Outcome::Full;
      it = entries_.emplace(line, Entry{}).first;
    }
    *fetch = missing & ~it->second.pending;
    it->second.pending |= *fetch;
    it->second.waiters.push_back({r, missing});
    return Outcome::Waiting;
  }

  // Sectors of `line` arrived: appends the requests that now have all they
  // waited for to `done`; the entry frees when nothing waits on it.
  void arrive(std::uint64_t line, std::uint32_t sectors, std::vector<MemRequest*>& done) {
    auto it = entries_.find(line);
    if (it == entries_.end()) return;
    Entry& e = it->second;
    e.pending &= ~sectors;
    std::size_t kept = 0;
    for (auto& w : e.waiters) {
      if (w.second & e.pending)
        e.waiters[kept++] = w;
      else
        done.push_back(w.first);
    }
    e.waiters.resize(kept);
    if (e.waiters.empty() && e.pending == 0) entries_.erase(it);
  }

  bool full() const { return entries_.size() >= capacity_; }
  // Requests that found the table full, in arrival order; retried as entries free.
  std::deque<MemRequest*> stalled;

 private:
  struct Entry {
    std::uint32_t pending = 0;
    std::vector<std::pair<MemRequest*, std::uint32_t>> waiters;
  };
  std::uint32_t capacity_;
  std::unordered_map<std::uint64_t, Entry> entries_;
};

}  // namespace cnuas::gpu
