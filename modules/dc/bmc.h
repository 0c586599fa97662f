// cnuas.bmc: a baseboard management controller serving sensor reads, Redfish GETs, IPMI commands
// and firmware transfers.
#pragma once

#include "core/kernel/element.h"
#include "core/kernel/linear_cost.h"

namespace cnuas {

class Bmc : public Element {
 public:
  Bmc(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override;

 private:
  Rational sensor_read_ps_, redfish_get_ps_, ipmi_command_ps_, firmware_overhead_ps_;
  Rational ps_per_firmware_byte_;
};

}  // namespace cnuas
