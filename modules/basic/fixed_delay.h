// cnuas.fixed_delay: a fixed service time per operation (a hop, a doorbell).
#pragma once

#include "core/kernel/element.h"

namespace cnuas {

class FixedDelay : public Element {
 public:
  FixedDelay(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage&) override { return delay_ps_; }

 private:
  std::uint64_t delay_ps_;
};

}  // namespace cnuas
