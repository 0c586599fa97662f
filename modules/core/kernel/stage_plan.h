// What one stage asks of an element: which lanes, for how long, and when its
// result is available downstream (docs/concepts.md, "Work becomes time").
//
// A stage holds its main lane (a wire, a port, a bank, a server) for its
// occupancy; its latency follows, during which the lane already serves
// others. An element built of several resources may put a lane in front:
// an engine that feeds the main lane (a NIC queue, a DMA engine: held until
// the stage's data has left the main lane) or a switch's ingress port (held
// for its own occupancy). All times are integer picoseconds, rounded up.
#pragma once

#include <cstdint>

#include "core/inputs/rational.h"

namespace cnuas {

// The lanes a part of a stage may take: the earliest-lane rule applies among
// [first, first + count); count 0 is every lane of the element. A pinned
// lane is fixed by the work (a bank by its address, a switch's output port).
struct LaneChoice {
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  bool pinned = false;

  static LaneChoice all() { return {}; }
  static LaneChoice among(std::uint32_t first, std::uint32_t count) {
    return {first, count, false};
  }
  static LaneChoice pin(std::uint32_t lane) { return {lane, 1, true}; }
};

enum class Feed : std::uint8_t {
  None,
  Engine,   // held from its start until the stage's data has left the main lane
  Ingress,  // held for its own occupancy (the frame is received into a buffer)
};

struct StagePlan {
  LaneChoice lanes;                // the main lane
  std::uint64_t occupancy_ps = 0;  // how long the stage holds it
  std::uint64_t latency_ps = 0;    // then until the result is available; the lane is free

  Feed feed = Feed::None;
  LaneChoice feed_lanes;
  std::uint64_t feed_occupancy_ps = 0;  // an engine: at least this long; ingress: exactly
  std::uint64_t lead_ps = 0;  // from the feed's start until the data reaches the main lane

  // One part: `occupancy` on `lanes`, then `latency`.
  static StagePlan simple(std::uint64_t occupancy, std::uint64_t latency = 0,
                          LaneChoice lanes = LaneChoice::all()) {
    StagePlan p;
    p.lanes = lanes;
    p.occupancy_ps = occupancy;
    p.latency_ps = latency;
    return p;
  }

  // The stage's time on an idle element: what one operation alone sees.
  std::uint64_t alone_ps() const {
    std::uint64_t t = occupancy_ps;
    if (feed != Feed::None) {
      if (__builtin_add_overflow(t, lead_ps, &t)) throw OverflowError();
      if (feed == Feed::Engine && t < feed_occupancy_ps) t = feed_occupancy_ps;
    }
    if (__builtin_add_overflow(t, latency_ps, &t)) throw OverflowError();
    return t;
  }
};

}  // namespace cnuas
