#include "dc/gpu.h"

#include "core/registry.h"

namespace cnuas {

const Schema& Gpu::schema() {
  static const Schema s =
      Schema("cnuas.gpu",
             "Analytic GPU: launch + max(flops / peak, bytes / memory bandwidth); bytes alone are "
             "a memory access")
          .quantity("peak_rate", Dimension::OpRate, std::nullopt,
                    "peak arithmetic rate for the work's precision", true)
          .quantity("memory_bandwidth", Dimension::DataRate, std::nullopt,
                    "device memory (HBM) bandwidth", true)
          .quantity("launch_overhead", Dimension::Time, "0 ns",
                    "kernel launch overhead, charged when flops are given")
          .integer("lanes", 1, "kernels or copy engines running at once, each at full rate", 1,
                   4096)
          .needs_one_of({WorkDim::Flops, WorkDim::Bytes});
  return s;
}

Gpu::Gpu(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, static_cast<std::uint32_t>(params.integer("lanes"))),
      ps_per_flop_(ps_per_second() / params.quantity("peak_rate")),
      ps_per_byte_(Rational(8) * ps_per_second() / params.quantity("memory_bandwidth")),
      launch_ps_(params.quantity("launch_overhead")) {}

std::uint64_t Gpu::service_ps(const Stage& stage) {
  const WorkDims& d = stage.dims();
  const Rational memory =
      d.has(WorkDim::Bytes) ? Rational(d.get(WorkDim::Bytes)) * ps_per_byte_ : Rational(0);
  if (!d.has(WorkDim::Flops)) return memory.ceil_u64();
  const Rational compute = Rational(d.get(WorkDim::Flops)) * ps_per_flop_;
  return (launch_ps_ + (compute < memory ? memory : compute)).ceil_u64();
}

CNUAS_REGISTER_MODEL(Gpu);

}  // namespace cnuas
