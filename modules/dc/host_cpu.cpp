#include "dc/host_cpu.h"

#include "core/kernel/registry.h"

namespace cnuas {

const Schema& HostCpu::schema() {
  static const Schema s =
      Schema("cnuas.host_cpu",
             "Guest CPU time from instruction counts, as QEMU icount: I x 2^shift ns")
          .timing(
              "Work takes the virtual CPU (lane) that frees first and holds it for the "
              "instructions' time plus per_request (occupancy); no latency.")
          .integer("lanes", 1, "virtual CPUs executing at once", 1, 4096)
          .integer("icount_shift", 0, "QEMU -icount shift N: every instruction takes 2^N ns", 0, 30)
          .quantity("per_request", Dimension::Time, "0 ns",
                    "extra time per request (an interrupt or system call class), when the "
                    "operation gives requests")
          .needs({WorkDim::Instructions});
  return s;
}

HostCpu::HostCpu(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, static_cast<std::uint32_t>(params.integer("lanes"))),
      ns_per_instruction_(Rational(std::uint64_t{1} << params.integer("icount_shift"))),
      per_request_ps_(params.quantity("per_request")) {}

std::uint64_t HostCpu::service_ps(const Stage& stage) {
  Rational t =
      Rational(stage.dims().get(WorkDim::Instructions)) * ns_per_instruction_ * Rational(1000);
  if (stage.dims().has(WorkDim::Requests))
    t = t + Rational(stage.dims().get(WorkDim::Requests)) * per_request_ps_;
  return t.ceil_u64();
}

CNUAS_REGISTER_MODEL(HostCpu);

}  // namespace cnuas
