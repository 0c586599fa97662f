// cnuas.mgmt_bus: a slow management bus (I2C/PMBus, Modbus RTU): request/response frames at a baud
// rate.
#pragma once

#include "core/kernel/element.h"
#include "core/kernel/linear_cost.h"

namespace cnuas {

class ManagementBus : public Element {
 public:
  ManagementBus(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override;

 private:
  Rational ps_per_char_;
  Rational per_transaction_ps_;
};

}  // namespace cnuas
