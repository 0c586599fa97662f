// A clock domain: exact conversion between its cycles and picoseconds.
// Cycle n starts at ceil(n * 1e12 / f) ps; a time belongs to the first cycle
// that starts at or after it.
#pragma once

#include <cstdint>

#include "core/inputs/rational.h"
#include "core/inputs/units.h"

namespace cnuas::gpu {

class Clock {
 public:
  Clock() = default;
  explicit Clock(const Rational& hz) {
    const Rational period = ps_per_second() / hz;  // exact ps per cycle
    num_ = period.num();
    den_ = period.den();
  }
  std::uint64_t ps(std::uint64_t cycle) const {
    const u128 n = static_cast<u128>(cycle) * num_;
    return static_cast<std::uint64_t>((n + den_ - 1) / den_);
  }
  // The first cycle starting at or after `ps`.
  std::uint64_t cycle_at_or_after(std::uint64_t ps) const {
    const u128 n = static_cast<u128>(ps) * den_;
    std::uint64_t c = static_cast<std::uint64_t>(n / num_);
    while (this->ps(c) < ps) ++c;
    return c;
  }
  // Picoseconds of `cycles` cycles (rounded up), as a duration.
  std::uint64_t span_ps(std::uint64_t cycles) const { return ps(cycles); }
  // Picoseconds to move `units` at `per_cycle` units a cycle (rounded up): a port that moves
  // 64 bytes a cycle is busy half a cycle for 32.
  std::uint64_t span_ps(std::uint64_t units, std::uint64_t per_cycle) const {
    const u128 n = static_cast<u128>(units) * num_, d = static_cast<u128>(per_cycle) * den_;
    return static_cast<std::uint64_t>((n + d - 1) / d);
  }

 private:
  u128 num_ = 1, den_ = 1;
};

}  // namespace cnuas::gpu
