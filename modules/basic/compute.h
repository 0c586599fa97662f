// cnuas.compute: a compute resource at a peak operation rate.
// service = overhead + flops / rate, per lane.
#pragma once

#include "core/element.h"

namespace cnuas {

class Compute : public Element {
 public:
  Compute(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Operation& op) override;

 private:
  Rational overhead_ps_;
  Rational ps_per_flop_;
};

}  // namespace cnuas
