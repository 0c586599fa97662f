#include "dc/gpu.h"

#include "core/kernel/registry.h"

namespace cnuas {

const Schema& Gpu::schema() {
  static const Schema s =
      Schema("cnuas.gpu",
             "GPU: launch + max(flops / peak, warp instructions / issue rate, bytes / memory "
             "bandwidth), or launch + device_time from the detailed model; bytes alone are a "
             "memory access")
          .quantity("peak_rate", Dimension::OpRate, std::nullopt,
                    "peak arithmetic rate for the work's precision", true)
          .quantity("memory_bandwidth", Dimension::DataRate, std::nullopt,
                    "device memory (HBM) bandwidth", true)
          .quantity("launch_overhead", Dimension::Time, "0 ns",
                    "kernel launch overhead, charged when flops or warp instructions are given")
          .integer("lanes", 1, "kernels or copy engines running at once, each at full rate", 1,
                   4096)
          // What the CUDA runtime reports for the device, and the issue rate of
          // PTX kernels: sm_count x issue_width warp instructions per SM clock.
          .text("device_name", "Cnuas analytic GPU", "name reported by cudaGetDeviceProperties")
          .text("compute_capability", "9.0", "major.minor; picks the PTX a program embeds")
          .integer("sm_count", 132, "streaming multiprocessors", 1, 4096)
          .quantity("sm_clock", Dimension::Frequency, "1.98 GHz", "SM (boost) clock", true)
          .integer("issue_width", 4, "warp instructions an SM issues per clock", 1, 64)
          .quantity("memory_size", Dimension::Data, "80 GB", "device memory capacity", true)
          .quantity("l2_size", Dimension::Data, "50 MiB", "L2 cache capacity")
          .integer("memory_bus_width", 5120, "memory interface width in bits", 1, 65536)
          // How the CUDA runtime times PTX kernels on this GPU (docs/models/gpu-performance.md).
          .choice("mode", {"analytic", "performance", "functional"}, "analytic",
                  "kernel timing: analytic roofline, the detailed performance model, or "
                  "functional only (results, no kernel time)")
          .text("kernel_modes", "",
                "per-kernel overrides, 'name=mode,name=mode' (e.g. sgemm=performance)")
          .text("architecture", "h100-sxm",
                "the performance model's part: a built-in name (h100-sxm, h200-sxm, "
                "gtx-1080-ti) or a profiles/gpu-arch/*.yaml path")
          .integer("sample_cycles", 1000, "performance model: SM cycles per time-series sample", 1,
                   1000000000)
          .needs_one_of(
              {WorkDim::Flops, WorkDim::Bytes, WorkDim::WarpInstructions, WorkDim::DeviceTime});
  return s;
}

Gpu::Gpu(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, static_cast<std::uint32_t>(params.integer("lanes"))),
      ps_per_flop_(ps_per_second() / params.quantity("peak_rate")),
      ps_per_byte_(Rational(8) * ps_per_second() / params.quantity("memory_bandwidth")),
      ps_per_warp_instruction_(
          ps_per_second() / (params.quantity("sm_clock") *
                             Rational(params.integer("sm_count") * params.integer("issue_width")))),
      launch_ps_(params.quantity("launch_overhead")) {}

std::uint64_t Gpu::service_ps(const Stage& stage) {
  const WorkDims& d = stage.dims();
  const Rational memory =
      d.has(WorkDim::Bytes) ? Rational(d.get(WorkDim::Bytes)) * ps_per_byte_ : Rational(0);
  // A detailed model already timed the kernel: launch overhead plus its time.
  if (d.has(WorkDim::DeviceTime))
    return (launch_ps_ + Rational(d.get(WorkDim::DeviceTime))).ceil_u64();
  const bool kernel = d.has(WorkDim::Flops) || d.has(WorkDim::WarpInstructions);
  if (!kernel) return memory.ceil_u64();
  Rational longest = memory;
  if (d.has(WorkDim::Flops)) {
    const Rational compute = Rational(d.get(WorkDim::Flops)) * ps_per_flop_;
    if (longest < compute) longest = compute;
  }
  if (d.has(WorkDim::WarpInstructions)) {
    const Rational issue = Rational(d.get(WorkDim::WarpInstructions)) * ps_per_warp_instruction_;
    if (longest < issue) longest = issue;
  }
  return (launch_ps_ + longest).ceil_u64();
}

std::optional<std::int64_t> Gpu::stage_power_uw(const Operation& op,
                                                std::uint64_t duration_ps) const {
  if (!op.dims->has(WorkDim::DeviceEnergy) || duration_ps == 0) return std::nullopt;
  // pJ / ps = W; in microwatts, rounded to nearest.
  const u128 uw_ps = static_cast<u128>(op.dims->get(WorkDim::DeviceEnergy)) * 1'000'000u;
  return static_cast<std::int64_t>((uw_ps + duration_ps / 2) / duration_ps);
}

CNUAS_REGISTER_MODEL(Gpu);

}  // namespace cnuas
