#include "basic/pipe.h"

#include "core/kernel/registry.h"

namespace cnuas {

const Schema& Pipe::schema() {
  static const Schema s =
      Schema("cnuas.pipe", "Bandwidth-and-latency resource: latency + bytes / bandwidth per lane")
          .integer("lanes", 1, "transfers served at once, each at the full bandwidth", 1, 65536)
          .quantity("bandwidth", Dimension::DataRate, std::nullopt, "bandwidth of one lane", true)
          .quantity("latency", Dimension::Time, "0 ns", "fixed time added to every transfer")
          .needs({WorkDim::Bytes});
  return s;
}

Pipe::Pipe(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, static_cast<std::uint32_t>(params.integer("lanes"))),
      cost_(params.quantity("latency"),
            Rational(8) * ps_per_second() / params.quantity("bandwidth")) {}

std::uint64_t Pipe::service_ps(const Stage& stage) {
  return cost_.ceil_at(stage.dims().get(WorkDim::Bytes));
}

CNUAS_REGISTER_MODEL(Pipe);

}  // namespace cnuas
