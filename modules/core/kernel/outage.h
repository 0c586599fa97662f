// A span in which an element serves nothing (a link down, a NIC or a switch
// failed), from the workload's element events.
#pragma once

#include <cstdint>

namespace cnuas {

struct Outage {
  static constexpr std::uint32_t kAllLanes = UINT32_MAX;
  std::uint64_t from_ps;
  std::uint64_t to_ps;             // exclusive
  std::uint32_t lane = kAllLanes;  // one failed port's lane, or the whole element

  bool covers(std::uint32_t l) const { return lane == kAllLanes || lane == l; }
  bool operator==(const Outage& o) const {
    return from_ps == o.from_ps && to_ps == o.to_ps && lane == o.lane;
  }
};

// A span in which an element works at a fraction rate_num / rate_den of its
// speed (a PCIe link retrained to fewer lanes, an NVLink with a failed lane, a
// GPU throttled by heat): a lane holding in it takes longer by that factor.
struct Slowdown {
  std::uint64_t from_ps;
  std::uint64_t to_ps;               // exclusive
  std::uint64_t rate_num, rate_den;  // 0 < rate < 1
};

}  // namespace cnuas
