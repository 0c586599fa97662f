#include "basic/compute.h"

#include "core/kernel/registry.h"

namespace cnuas {

const Schema& Compute::schema() {
  static const Schema s =
      Schema("cnuas.compute", "Compute resource: overhead + flops / rate per lane")
          .timing(
              "An operation takes the lane that frees first and holds it for overhead + flops "
              "/ rate: all of it is occupancy (a launch keeps the lane); no latency.")
          .integer("lanes", 1, "operations computed at once, each at the full rate", 1, 65536)
          .quantity("rate", Dimension::OpRate, std::nullopt, "peak rate of one lane", true)
          .quantity("overhead", Dimension::Time, "0 ns", "fixed time per operation (a launch)")
          .needs({WorkDim::Flops});
  return s;
}

Compute::Compute(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, static_cast<std::uint32_t>(params.integer("lanes"))),
      cost_(params.quantity("overhead"), ps_per_second() / params.quantity("rate")) {}

std::uint64_t Compute::service_ps(const Stage& stage) {
  return cost_.ceil_at(stage.dims().get(WorkDim::Flops));
}

CNUAS_REGISTER_MODEL(Compute);

}  // namespace cnuas
