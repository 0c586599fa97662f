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
  // Waiting, *fetch holds the sectors nobody has asked for yet (maybe 0), with those of
  // `along` (fetched with the missing ones: the L2's fetch granularity) that are neither
  // present nor on their way; `r` waits only for its own.
  // `waits_on_peer`: a new entry would wait on another table of the same kind
  // (an L2 copy slice's fetch from the other partition's home slice); such
  // entries never take the last one, which stays for misses that wait on DRAM
  // alone, so two tables can never each be full of entries waiting on the other.
  Outcome track(MemRequest* r, std::uint64_t line, std::uint32_t need, std::uint32_t valid,
                std::uint32_t* fetch, bool waits_on_peer = false, std::uint32_t along = 0) {
    const std::uint32_t missing = need & ~valid;
    if (missing == 0) return Outcome::Hit;
    auto it = entries_.find(line);
    if (it == entries_.end()) {
      if (waits_on_peer ? peer_full() : full()) return Outcome::Full;
      it = entries_.emplace(line, Entry{}).first;
      it->second.waits_on_peer = waits_on_peer;
      peer_entries_ += waits_on_peer;
    }
    *fetch = (missing | (along & ~valid)) & ~it->second.pending;
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
    if (e.waiters.empty() && e.pending == 0) {
      peer_entries_ -= e.waits_on_peer;
      entries_.erase(it);
    }
  }

  bool full() const { return entries_.size() >= capacity_; }
  // No entry for a miss that would wait on a peer table (see track).
  bool peer_full() const { return full() || peer_entries_ + 1 >= capacity_; }

  // `r` found no entry (track said Full): it waits, in arrival order, until one frees.
  void stall(MemRequest* r, bool waits_on_peer = false) {
    (waits_on_peer ? stalled_on_peer_ : stalled_).push_back({stalls_++, r});
  }
  // Some stalled request would find an entry now.
  bool retry_due() const {
    return (!stalled_.empty() && !full()) || (!stalled_on_peer_.empty() && !peer_full());
  }
  // The earliest stalled request that would find an entry now (removed), or null.
  // A miss waiting on a peer table that may not take the last entry lets the
  // others by; otherwise the order of arrival holds.
  MemRequest* take_retry() {
    const bool own = !stalled_.empty() && !full();
    const bool peer = !stalled_on_peer_.empty() && !peer_full();
    if (!own && !peer) return nullptr;
    auto& q = own && (!peer || stalled_.front().first < stalled_on_peer_.front().first)
                  ? stalled_
                  : stalled_on_peer_;
    MemRequest* r = q.front().second;
    q.pop_front();
    return r;
  }

 private:
  struct Entry {
    bool waits_on_peer = false;
    std::uint32_t pending = 0;
    std::vector<std::pair<MemRequest*, std::uint32_t>> waiters;
  };
  std::uint32_t capacity_;
  std::uint32_t peer_entries_ = 0;  // entries waiting on a peer table
  std::uint64_t stalls_ = 0;        // arrival stamps of stalled requests
  std::deque<std::pair<std::uint64_t, MemRequest*>> stalled_, stalled_on_peer_;
  std::unordered_map<std::uint64_t, Entry> entries_;
};

}  // namespace cnuas::gpu
