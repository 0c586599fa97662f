// The SM clock domain under power management: a piecewise clock whose
// frequency may change at a cycle boundary. Cycle numbers keep counting across
// a change; each segment maps its cycles to picoseconds exactly, from the
// picosecond its first cycle starts. With one segment it equals Clock.
#pragma once

#include <cstdint>
#include <vector>

#include "gpu/clock.h"

namespace cnuas::gpu {

class SmClock {
 public:
  struct Segment {
    std::uint64_t first_cycle = 0;
    std::uint64_t first_ps = 0;
    Rational hz;
    Clock clock;
  };

  explicit SmClock(const Rational& hz) { segments_.push_back({0, 0, hz, Clock(hz)}); }

  std::uint64_t ps(std::uint64_t cycle) const {
    const Segment& s = segment_of_cycle(cycle);
    return s.first_ps + s.clock.ps(cycle - s.first_cycle);
  }
  // The first cycle starting at or after `ps`.
  std::uint64_t cycle_at_or_after(std::uint64_t ps) const {
    const Segment& s = segment_of_ps(ps);
    return s.first_cycle + s.clock.cycle_at_or_after(ps - s.first_ps);
  }
  const Rational& hz() const { return segments_.back().hz; }
  // From cycle `from` (no earlier than the last change) the clock runs at `hz`.
  void change(std::uint64_t from, const Rational& hz) {
    const std::uint64_t at = ps(from);
    if (from == segments_.back().first_cycle)
      segments_.back() = {from, at, hz, Clock(hz)};
    else
      segments_.push_back({from, at, hz, Clock(hz)});
  }
  const std::vector<Segment>& segments() const { return segments_; }
  // When power management may next change the clock: an SM does not evaluate cycles from then
  // on ahead of the calendar (each goes through it, so the change applies in time).
  std::uint64_t next_change_ps() const { return next_change_ps_; }
  void set_next_change_ps(std::uint64_t ps) { next_change_ps_ = ps; }

 private:
  // Lookups search from the newest segment: the model asks about recent cycles.
  const Segment& segment_of_cycle(std::uint64_t cycle) const {
    std::size_t i = segments_.size() - 1;
    while (i > 0 && segments_[i].first_cycle > cycle) --i;
    return segments_[i];
  }
  const Segment& segment_of_ps(std::uint64_t ps) const {
    std::size_t i = segments_.size() - 1;
    while (i > 0 && segments_[i].first_ps > ps) --i;
    return segments_[i];
  }

  std::vector<Segment> segments_;
  std::uint64_t next_change_ps_ = UINT64_MAX;
};

}  // namespace cnuas::gpu
