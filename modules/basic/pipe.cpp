#include "basic/pipe.h"

#include "core/kernel/registry.h"

namespace cnuas {

const Schema& Pipe::schema() {
  static const Schema s =
      Schema("cnuas.pipe", "Bandwidth-and-latency resource: latency + bytes / bandwidth per lane")
          .timing(
              "A transfer takes the lane that frees first and holds it for bytes / bandwidth "
              "(occupancy); `latency` follows, during which the lane already carries the next "
              "transfer. Lanes are independent pipes, each at the full bandwidth.")
          .integer("lanes", 1, "independent pipes, each at the full bandwidth", 1, 65536)
          .quantity("bandwidth", Dimension::DataRate, std::nullopt,
                    "bandwidth of one lane (occupancy: bytes / bandwidth)", true)
          .quantity("latency", Dimension::Time, "0 ns",
                    "time from the end of a transfer's occupancy until it is complete (latency: "
                    "the lane is free meanwhile)")
          .needs({WorkDim::Bytes});
  return s;
}

Pipe::Pipe(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, static_cast<std::uint32_t>(params.integer("lanes"))),
      occupancy_(Rational(0), Rational(8) * ps_per_second() / params.quantity("bandwidth")),
      latency_ps_(params.time_ps("latency")) {}

StagePlan Pipe::plan(const Stage& stage) {
  return StagePlan::simple(occupancy_.ceil_at(stage.dims().get(WorkDim::Bytes)), latency_ps_);
}

CNUAS_REGISTER_MODEL(Pipe);

}  // namespace cnuas
