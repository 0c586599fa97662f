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
  explicit LaneSet(std::uint32_t lanes) : free_ps_(lanes, 0), busy_ps_(lanes, 0) {}

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
      if (free_ps_[i] < free_ps_[best]) best = i;
    return best;
  }

  // Holds `lane` from max(ready, its free time) for `occupancy_ps`.
  Booking hold(std::uint32_t lane, std::uint64_t ready_ps, std::uint64_t occupancy_ps) {
    const std::uint64_t start = ready_ps > free_ps_[lane] ? ready_ps : free_ps_[lane];
    std::uint64_t free;
    if (__builtin_add_overflow(start, occupancy_ps, &free)) throw OverflowError();
    free_ps_[lane] = free;
    busy_ps_[lane] += occupancy_ps;
    return {lane, start, free};
  }

  // Changes the number of lanes (before the first booking: an element learns
  // its ports when the platform is bound).
  void resize(std::uint32_t lanes) {
    free_ps_.assign(lanes, 0);
    busy_ps_.assign(lanes, 0);
  }

  std::uint32_t size() const { return static_cast<std::uint32_t>(free_ps_.size()); }
  std::uint64_t free_at(std::uint32_t lane) const { return free_ps_[lane]; }
  std::uint64_t busy_ps(std::uint32_t lane) const { return busy_ps_[lane]; }

 private:
  std::vector<std::uint64_t> free_ps_;
  std::vector<std::uint64_t> busy_ps_;
};

}  // namespace cnuas
