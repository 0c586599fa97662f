// cnuas.pipe: a bandwidth-and-latency resource (a bus, a link, a DMA engine).
// A stage holds a lane for bytes / bandwidth (occupancy); the latency follows,
// while the lane already serves the next transfer.
#pragma once

#include "core/kernel/element.h"
#include "core/kernel/linear_cost.h"

namespace cnuas {

class Pipe : public Element {
 public:
  Pipe(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override { return plan(stage).alone_ps(); }
  StagePlan plan(const Stage& stage) override;

 private:
  LinearCost occupancy_;
  std::uint64_t latency_ps_;
};

}  // namespace cnuas
