// cnuas.pipe: a bandwidth-and-latency resource (a bus, a link, a DMA engine).
// service = latency + bytes / bandwidth, per lane.
#pragma once

#include "core/kernel/element.h"
#include "core/kernel/linear_cost.h"

namespace cnuas {

class Pipe : public Element {
 public:
  Pipe(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override;

 private:
  LinearCost cost_;
};

}  // namespace cnuas
