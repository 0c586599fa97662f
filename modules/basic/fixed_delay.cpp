#include "basic/fixed_delay.h"

#include "core/kernel/registry.h"

namespace cnuas {

const Schema& FixedDelay::schema() {
  static const Schema s =
      Schema("cnuas.fixed_delay", "Fixed service time per operation, whatever its size")
          .timing(
              "An operation takes the lane that frees first and holds it for `delay` "
              "(occupancy); no latency.")
          .integer("lanes", 1, "operations served at once", 1, 65536)
          .quantity("delay", Dimension::Time, std::nullopt, "service time of one operation");
  return s;
}

FixedDelay::FixedDelay(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, static_cast<std::uint32_t>(params.integer("lanes"))),
      delay_ps_(params.time_ps("delay")) {}

CNUAS_REGISTER_MODEL(FixedDelay);

}  // namespace cnuas
