// cnuas.switch: a packet switch; every port is a full-duplex wire.
//
// A frame comes in through the ingress wire of the port it arrives by and
// leaves through the egress wire of the port leading to its next hop (the
// binding of `out` towards it): an output queue per port. Each wire is held
// for the frame's serialization (occupancy); the egress may start `latency`
// after the ingress did (cut-through), or one frame later besides
// (store-and-forward): ports are pipelined, many frames in flight. With a
// finite per-port buffer, a frame that does not fit waits upstream until
// enough frames have left (back-pressure): it is delayed, never dropped, and
// the wait is counted in the stats as `held_ps`.
#pragma once

#include <deque>
#include <utility>
#include <vector>

#include "core/kernel/element.h"
#include "core/kernel/linear_cost.h"

namespace cnuas {

class Switch : public Element {
 public:
  Switch(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override { return plan(stage).alone_ps(); }
  StagePlan plan(const Stage& stage) override;
  std::uint64_t admission_ps(const Stage& stage, std::uint32_t lane, std::uint64_t ready_ps,
                             const StagePlan& plan) override;
  std::string lane_name(std::uint32_t lane) const override;
  // The port facing `peer`: its egress wire towards it and its ingress wire from it.
  std::vector<std::uint32_t> lanes_facing(const Element& peer) const override;
  // Whether the switch reduces data itself (NVLink SHARP, in-network reduction).
  bool reduces_in_network() const { return in_network_reduction_; }
  // Port-to-port latency of a full frame (store-and-forward receives it first).
  std::uint64_t port_latency_ps() const;

 private:
  std::uint32_t lanes_after_binding() const override;
  void check_bindings() override;

  std::uint32_t ports_;
  LinearCost wire_;  // bytes -> ps on one wire
  std::uint64_t latency_ps_;
  bool store_and_forward_;
  bool in_network_reduction_;
  std::uint64_t frame_bytes_;
  std::uint64_t buffer_bytes_;  // per output port; 0: unlimited
  // Per port, frames in the buffer: (time it leaves, bytes), in leaving order.
  std::vector<std::deque<std::pair<std::uint64_t, std::uint64_t>>> buffered_;
};

}  // namespace cnuas
