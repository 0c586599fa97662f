// cnuas.orv3_shelf: an Open Rack V3 power shelf and its controller.
//
// As an element it answers telemetry requests (register reads arriving over a
// management bus). As a power supply it feeds every element whose `rack` field
// matches its own: after the run, the rack's load over time is rolled up from
// the booked stages (idle power plus active power per busy lane) and checked
// against the shelf: rated capacity (supplies minus redundancy, times the
// rating) raises over-capacity alarms; supply failures from the workload
// reduce the supplies that work; when the load exceeds what the working
// supplies can deliver, the battery takes over after the switchover time and
// carries the deficit until it is empty. All of it lands on the ordered trace.
#pragma once

#include "core/kernel/element.h"
#include "core/outputs/power.h"

namespace cnuas {

class Orv3Shelf : public Element, public PowerSupplyModel {
 public:
  Orv3Shelf(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override;

  std::uint32_t supplies() const override { return supplies_; }
  std::uint32_t redundancy() const override { return redundancy_; }
  const Rational& supply_rating_w() const override { return params().quantity("supply_rating"); }
  const Rational& efficiency() const override { return params().quantity("efficiency"); }
  const Rational& battery_capacity_j() const override {
    return params().quantity("battery_capacity");
  }
  std::uint64_t switchover_ps() const override { return params().time_ps("switchover_time"); }
  const Rational& alarm_hysteresis() const override {
    return params().quantity("alarm_hysteresis");
  }

 private:
  std::uint32_t supplies_;
  std::uint32_t redundancy_;
  Rational per_request_ps_;
};

}  // namespace cnuas
