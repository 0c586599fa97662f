// cnuas.switch: a packet switch with one output queue per port.
//
// A stage is pinned to the output port that leads to the operation's next hop
// (the binding of `out` towards it). Service on that port is the port-to-port
// latency plus serialization; store-and-forward adds the reception of one
// frame. With a finite per-port buffer, a frame that does not fit waits
// upstream until enough frames have left (back-pressure): it is delayed, never
// dropped, and the wait is counted in the stats as `held_ps`.
#pragma once

#include <deque>
#include <utility>
#include <vector>

#include "core/kernel/element.h"

namespace cnuas {

class Switch : public Element {
 public:
  Switch(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override;
  std::optional<std::uint32_t> pinned_lane(const Stage& stage) const override;
  std::uint64_t admission_ps(const Stage& stage, std::uint32_t lane, std::uint64_t ready_ps,
                             std::uint64_t service_ps) override;

 private:
  void end_of_elaboration() override;

  Rational ps_per_byte_;
  Rational latency_ps_;
  bool store_and_forward_;
  std::uint64_t frame_bytes_;
  std::uint64_t buffer_bytes_;  // per output port; 0: unlimited
  // Per port, frames in the buffer: (time it leaves, bytes), in leaving order.
  std::vector<std::deque<std::pair<std::uint64_t, std::uint64_t>>> buffered_;
};

}  // namespace cnuas
