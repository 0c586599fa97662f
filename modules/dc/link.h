// cnuas.link: a serial link (NVLink, Ethernet, PCIe cable): bonded lanes, line encoding,
// propagation delay from length.
#pragma once

#include "core/kernel/element.h"
#include "core/kernel/linear_cost.h"

namespace cnuas {

class Link : public Element {
 public:
  Link(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override;

 private:
  LinearCost cost_;
};

}  // namespace cnuas
