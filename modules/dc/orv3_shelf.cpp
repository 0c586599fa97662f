#include "dc/orv3_shelf.h"

#include <fmt/format.h>

#include "core/kernel/registry.h"

namespace cnuas {

const Schema& Orv3Shelf::schema() {
  static const Schema s =
      Schema("cnuas.orv3_shelf",
             "ORV3 power shelf: N+R supplies, battery backup, over-capacity alarms, telemetry "
             "register reads")
          .timing(
              "The controller is one lane: a telemetry read holds it for register_read "
              "(occupancy); no latency.")
          .integer("supplies", std::nullopt, "power supply units in the shelf", 1, 64)
          .quantity("supply_rating", Dimension::Power, std::nullopt, "output rating of one supply",
                    true)
          .integer("redundancy", 1,
                   "supplies held in reserve (N+1: 1); rated capacity excludes them", 0, 64)
          .quantity("efficiency", Dimension::Count, "97.5 %",
                    "supply efficiency (input power = load / efficiency)", true)
          .quantity("battery_capacity", Dimension::Energy, "0 J", "usable battery energy")
          .quantity("switchover_time", Dimension::Time, "4 ms",
                    "from supply shortfall to battery takeover")
          .quantity("alarm_hysteresis", Dimension::Count, "2 %",
                    "an over-capacity or shortfall alarm clears only when the load is this far "
                    "below the limit it passed")
          .quantity("register_read", Dimension::Time, "0 ms",
                    "controller time per telemetry request")
          .needs({WorkDim::Requests})
          .supplies_power();
  return s;
}

Orv3Shelf::Orv3Shelf(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, 1),
      supplies_(static_cast<std::uint32_t>(params.integer("supplies"))),
      redundancy_(static_cast<std::uint32_t>(params.integer("redundancy"))),
      per_request_ps_(params.quantity("register_read")) {
  if (redundancy_ >= supplies_)
    throw InputError(
        params.get("redundancy").where,
        describe(fmt::format("redundancy {} leaves no supply for the load ({} supplies)",
                             redundancy_, supplies_)));
  if (!(params.quantity("alarm_hysteresis") < Rational(1)))
    throw InputError(params.get("alarm_hysteresis").where,
                     describe("alarm_hysteresis must be below 100 %"));
  if (Rational(1) < params.quantity("efficiency"))
    throw InputError(params.get("efficiency").where, describe("efficiency above 100 %"));
  if (params.text("rack").empty())
    throw InputError(params.get("rack").where,
                     describe("a power shelf needs 'rack:' naming the rack it feeds"));
}

std::uint64_t Orv3Shelf::service_ps(const Stage& stage) {
  return (Rational(stage.dims().get(WorkDim::Requests)) * per_request_ps_).ceil_u64();
}

CNUAS_REGISTER_MODEL(Orv3Shelf);

}  // namespace cnuas
