// cnuas.host_cpu: guest instruction time as QEMU's icount gives it, t = I x 2^N ns.
#pragma once

#include "core/kernel/element.h"
#include "core/kernel/linear_cost.h"

namespace cnuas {

class HostCpu : public Element {
 public:
  HostCpu(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override;

 private:
  Rational ns_per_instruction_;
  Rational per_request_ps_;
};

}  // namespace cnuas
