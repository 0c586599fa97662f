// cnuas.banked_memory: memory whose lanes are banks selected by address.
// lane = (address / interleave) mod banks; a stage holds its bank for bytes / bank bandwidth
// (occupancy), then the access latency follows while the bank serves others.
#pragma once

#include "core/kernel/element.h"
#include "core/kernel/linear_cost.h"

namespace cnuas {

class BankedMemory : public Element {
 public:
  BankedMemory(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override { return plan(stage).alone_ps(); }
  StagePlan plan(const Stage& stage) override;
  std::optional<std::uint32_t> pinned_lane(const Stage& stage) const override;

 private:
  LinearCost occupancy_;
  std::uint64_t latency_ps_;
  std::uint64_t interleave_bytes_;
  std::uint32_t banks_;
};

}  // namespace cnuas
