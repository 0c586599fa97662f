// Picosecond time helpers for the hot path.
//
// The run sets the time resolution to 1 ps, so an sc_time's value is a count of
// picoseconds. sc_time_stamp() and sc_time::from_value() are out-of-line library
// calls that cost more than a whole booking's arithmetic; the scheduler caches
// the current time while it dispatches, and ps_time() builds an sc_time from its
// value directly (sc_time holds exactly one 64-bit count, checked below).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <systemc>

namespace cnuas {

static_assert(sizeof(sc_core::sc_time) == sizeof(std::uint64_t) &&
                  std::is_standard_layout<sc_core::sc_time>::value,
              "sc_time is expected to hold a single 64-bit tick count");

inline sc_core::sc_time ps_time(std::uint64_t ps) {
  sc_core::sc_time t;
  std::memcpy(static_cast<void*>(&t), &ps, sizeof ps);
  return t;  // equal to sc_time::from_value(ps); tests/unit/sim_time_test.cpp checks it
}

namespace detail {
// Set while the scheduler dispatches: the time it is dispatching at.
inline std::uint64_t dispatch_now_ps = 0;
inline bool dispatching = false;
}  // namespace detail

// Current simulated time in integer picoseconds.
inline std::uint64_t now_ps() {
  return detail::dispatching ? detail::dispatch_now_ps : sc_core::sc_time_stamp().value();
}

}  // namespace cnuas
