// cnuas.link: a serial link (NVLink, Ethernet, PCIe cable): bonded lanes, line encoding,
// propagation delay from length.
//
// Full duplex: one wire per direction (per outgoing connection), or `channels`
// independent wires per direction. A stage holds its direction's wire for its
// serialization (occupancy); the propagation delay follows (latency), while the
// wire already carries the next frame.
#pragma once

#include "core/kernel/element.h"
#include "core/kernel/linear_cost.h"

namespace cnuas {

class Link : public Element {
 public:
  Link(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override { return plan(stage).alone_ps(); }
  StagePlan plan(const Stage& stage) override;
  std::string lane_name(std::uint32_t lane) const override;

 private:
  std::uint32_t lanes_after_binding() const override;
  // The direction a stage travels: the outgoing connection it leaves by.
  std::uint32_t direction(const Stage& stage) const;

  LinearCost occupancy_;
  std::uint64_t propagation_ps_;
  std::uint32_t channels_;
};

}  // namespace cnuas
