// A span in which an element serves nothing (a link down, a NIC or a switch
// failed), from the workload's element events.
#pragma once

#include <cstdint>

namespace cnuas {

struct Outage {
  std::uint64_t from_ps;
  std::uint64_t to_ps;  // exclusive
};

}  // namespace cnuas
