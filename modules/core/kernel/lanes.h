// The lane adapter: per-lane availability and the earliest-lane rule.
//
// Every element books its stages here. Free lanes are chosen by smallest
// availability time, ties to the lowest index; a pinned stage (a DRAM bank by
// address) uses its lane whatever the others hold. start = max(ready, lane
// free), end = start + service, lane free = end.
#pragma once

#include <cstdint>
#include <vector>

#include "core/inputs/rational.h"

namespace cnuas {

struct Booking {
  std::uint32_t lane;
  std::uint64_t start_ps;
  std::uint64_t end_ps;
};

class LaneSet {
 public:
  explicit LaneSet(std::uint32_t lanes) : free_ps_(lanes, 0), busy_ps_(lanes, 0) {}

  Booking book(std::uint64_t ready_ps, std::uint64_t service_ps) {
    std::uint32_t best = 0;
    for (std::uint32_t i = 1; i < free_ps_.size(); ++i)
      if (free_ps_[i] < free_ps_[best]) best = i;
    return book_on(best, ready_ps, service_ps);
  }

  // The earliest-lane rule restricted to lanes [first, first + count).
  Booking book_among(std::uint32_t first, std::uint32_t count, std::uint64_t ready_ps,
                     std::uint64_t service_ps) {
    std::uint32_t best = first;
    for (std::uint32_t i = first + 1; i < first + count; ++i)
      if (free_ps_[i] < free_ps_[best]) best = i;
    return book_on(best, ready_ps, service_ps);
  }

  Booking book_pinned(std::uint32_t lane, std::uint64_t ready_ps, std::uint64_t service_ps) {
    return book_on(lane, ready_ps, service_ps);
  }

  std::uint32_t size() const { return static_cast<std::uint32_t>(free_ps_.size()); }
  std::uint64_t free_at(std::uint32_t lane) const { return free_ps_[lane]; }
  std::uint64_t busy_ps(std::uint32_t lane) const { return busy_ps_[lane]; }

 private:
  Booking book_on(std::uint32_t lane, std::uint64_t ready_ps, std::uint64_t service_ps) {
    std::uint64_t start = ready_ps > free_ps_[lane] ? ready_ps : free_ps_[lane];
    std::uint64_t end;
    if (__builtin_add_overflow(start, service_ps, &end)) throw OverflowError();
    free_ps_[lane] = end;
    busy_ps_[lane] += service_ps;
    return {lane, start, end};
  }

  std::vector<std::uint64_t> free_ps_;
  std::vector<std::uint64_t> busy_ps_;
};

}  // namespace cnuas
