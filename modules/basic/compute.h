// cnuas.compute: a compute resource at a peak operation rate.
// service = overhead + flops / rate, per lane.
#pragma once

#include "core/kernel/element.h"
#include "core/kernel/linear_cost.h"

namespace cnuas {

class Compute : public Element {
 public:
  Compute(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override;

 private:
  LinearCost cost_;
};

}  // namespace cnuas
