// cnuas.gpu: an analytic GPU for platform-level work: roofline of peak compute,
// warp-instruction issue and memory bandwidth, plus launch overhead. Its
// device-property fields describe the part to the CUDA runtime.
#pragma once

#include "core/kernel/element.h"
#include "core/kernel/linear_cost.h"

namespace cnuas {

class Gpu : public Element {
 public:
  Gpu(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override;
  // A kernel timed by the detailed model draws the energy it counted.
  std::optional<std::int64_t> stage_power_uw(const Operation& op,
                                             std::uint64_t duration_ps) const override;

 private:
  Rational ps_per_flop_;
  Rational ps_per_byte_;
  Rational ps_per_warp_instruction_;
  Rational launch_ps_;
};

}  // namespace cnuas
