// The lane adapter's state: per-lane availability and the earliest-lane rule.
//
// Every element books its stages here. Free lanes are chosen by smallest
// availability time, ties to the lowest index; a pinned stage (a DRAM bank by
// address) uses its lane whatever the others hold. A booking holds its lane
// from start = max(ready, lane free) for its occupancy: lane free = start +
// occupancy. (What happens after, the stage's latency, does not hold the lane;
// Element::book_stage adds it.)
#pragma once

#include <cstdint>
#include <vector>

#include "core/inputs/rational.h"

namespace cnuas {

struct Booking {
  std::uint32_t lane;
  std::uint64_t start_ps;
  std::uint64_t end_ps;  // when the lane is free again: start + occupancy
};

class LaneSet {
 public:
  explicit LaneSet(std::uint32_t lanes) : lanes_(lanes) {}

  Booking book(std::uint64_t ready_ps, std::uint64_t occupancy_ps) {
    return hold(earliest(0, size()), ready_ps, occupancy_ps);
  }

  // The earliest-lane rule restricted to lanes [first, first + count).
  Booking book_among(std::uint32_t first, std::uint32_t count, std::uint64_t ready_ps,
                     std::uint64_t occupancy_ps) {
    return hold(earliest(first, count), ready_ps, occupancy_ps);
  }

  Booking book_pinned(std::uint32_t lane, std::uint64_t ready_ps, std::uint64_t occupancy_ps) {
    return hold(lane, ready_ps, occupancy_ps);
  }

  // The lane of [first, first + count) that frees first; ties to the lowest index.
  std::uint32_t earliest(std::uint32_t first, std::uint32_t count) const {
    std::uint32_t best = first;
    for (std::uint32_t i = first + 1; i < first + count; ++i)
      if (lanes_[i].free_ps < lanes_[best].free_ps) best = i;
    return best;
  }

  // Holds `lane` from max(ready, its free time) for `occupancy_ps`.
  Booking hold(std::uint32_t lane, std::uint64_t ready_ps, std::uint64_t occupancy_ps) {
    Lane& l = lanes_[lane];
    const std::uint64_t start = ready_ps > l.free_ps ? ready_ps : l.free_ps;
    std::uint64_t free;
    if (__builtin_add_overflow(start, occupancy_ps, &free)) throw OverflowError();
    l.free_ps = free;
    l.busy_ps += occupancy_ps;
    return {lane, start, free};
  }

  // Changes the number of lanes (before the first booking: an element learns
  // its ports when the platform is bound).
  void resize(std::uint32_t lanes) { lanes_.assign(lanes, Lane{}); }

  std::uint32_t size() const { return static_cast<std::uint32_t>(lanes_.size()); }
  std::uint64_t free_at(std::uint32_t lane) const { return lanes_[lane].free_ps; }
  std::uint64_t busy_ps(std::uint32_t lane) const { return lanes_[lane].busy_ps; }

 private:
  struct Lane {
    std::uint64_t free_ps = 0;
    std::uint64_t busy_ps = 0;
  };
  std::vector<Lane> lanes_;
};

}  // namespace cnuas
