#include "gpu/gpu_element.h"

#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include "core/kernel/registry.h"
#include "gpu/power_model.h"
#include "run/progress_line.h"

namespace cnuas {

const Schema& Gpu::schema() {
  static const Schema s =
      Schema("cnuas.gpu",
             "GPU: launch + max(flops / peak, warp instructions / issue rate, bytes / memory "
             "bandwidth), or launch + device_time from the detailed model; bytes alone are a "
             "memory access")
          .timing(
              "A kernel (flops, warp_instructions or device_time) takes the kernel lane that "
              "frees first and holds it for its whole time (occupancy; the launch overhead "
              "included); no latency. Bytes alone are a memory access of (bytes + 2 x "
              "reduce_bytes at the operation's last element) / memory_bandwidth: with "
              "memory_lane, it holds the one device-memory lane for that time (occupancy), "
              "beside the kernels (copies, NVLink and network traffic share the memory, not "
              "the SMs); without, it takes a kernel lane like a kernel.")
          .quantity("peak_rate", Dimension::OpRate, std::nullopt,
                    "peak arithmetic rate for the work's precision", true)
          .quantity("memory_bandwidth", Dimension::DataRate, std::nullopt,
                    "device memory (HBM) bandwidth", true)
          .quantity("launch_overhead", Dimension::Time, "0 ns",
                    "kernel launch overhead, charged when flops or warp instructions are given")
          .integer("lanes", 1,
                   "kernels running at once, each at full rate (and memory accesses, without "
                   "memory_lane)",
                   1, 4096)
          .boolean("memory_lane", false,
                   "bytes-only work (copies, peer and network traffic) shares one device-memory "
                   "lane at memory_bandwidth, beside the kernels (false: it takes a kernel lane)")
          // What the CUDA runtime reports for the device, and the issue rate of
          // PTX kernels: sm_count x issue_width warp instructions per SM clock.
          .text("device_name", "Cnuas analytic GPU", "name reported by cudaGetDeviceProperties")
          .text("compute_capability", "9.0",
                "major.minor; picks the PTX a program embeds (13.0 for CUDA libraries)")
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
          .integer("sample_cycles", 0,
                   "performance model: SM cycles per time-series sample (0: chosen per "
                   "kernel, 257 to 512 samples of a long kernel)",
                   0, 1000000000)
          .needs_one_of(
              {WorkDim::Flops, WorkDim::Bytes, WorkDim::WarpInstructions, WorkDim::DeviceTime});
  return s;
}

namespace {

unsigned parse_compute_capability(const FieldValue& v) {
  unsigned major = 0, minor = 0;
  char dot = 0;
  if (std::sscanf(v.text.c_str(), "%u%c%u", &major, &dot, &minor) != 3 || dot != '.' || minor > 9 ||
      major == 0 || major > 20 || v.text != fmt::format("{}.{}", major, minor))
    throw InputError(v.where,
                     fmt::format("compute_capability '{}' is not MAJOR.MINOR (e.g. 9.0)", v.text));
  return major * 10 + minor;
}

}  // namespace

Gpu::Gpu(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params,
              static_cast<std::uint32_t>(params.integer("lanes")) +
                  (params.boolean("memory_lane") ? 1 : 0)),
      ps_per_flop_(ps_per_second() / params.quantity("peak_rate")),
      ps_per_byte_(Rational(8) * ps_per_second() / params.quantity("memory_bandwidth")),
      ps_per_warp_instruction_(
          ps_per_second() / (params.quantity("sm_clock") *
                             Rational(params.integer("sm_count") * params.integer("issue_width")))),
      launch_ps_(params.quantity("launch_overhead")),
      memory_(Rational(0), ps_per_byte_),
      kernel_lanes_(static_cast<std::uint32_t>(params.integer("lanes"))),
      memory_lane_(params.boolean("memory_lane")) {
  // The instance name in the platform: the hierarchical name below the platform's module.
  const std::string full = this->name();
  description_.element = full.substr(full.find('.') + 1);
  const std::string owner = fmt::format("element '{}' ({})", description_.element, type());
  description_.name = params.text("device_name");
  description_.arch = parse_compute_capability(params.get("compute_capability"));
  description_.sm_count = static_cast<std::uint32_t>(params.integer("sm_count"));
  description_.clock_khz = (params.quantity("sm_clock") / Rational(1000)).ceil_u64();
  description_.memory_bytes = params.whole_bytes("memory_size", owner);
  description_.l2_bytes = params.whole_bytes("l2_size", owner);
  description_.bus_width = static_cast<std::uint32_t>(params.integer("memory_bus_width"));
  description_.memory_clock_khz = (params.quantity("memory_bandwidth") /
                                   Rational(2 * 1000 * params.integer("memory_bus_width")))
                                      .ceil_u64();
  timing_ = gpu::parse_timing(params.text("mode"), params.get("mode").where, owner + " mode");
  kernel_timing_ = gpu::parse_kernel_modes(
      params.text("kernel_modes"), params.get("kernel_modes").where, owner + " kernel_modes");
  bool performance = timing_ == gpu::KernelTiming::Performance;
  for (const auto& [kernel, timing] : kernel_timing_)
    performance |= timing == gpu::KernelTiming::Performance;
  const FieldValue& arch = params.get("architecture");
  if (!performance) {
    // Named even when unused: a typo must not wait for the first performance run.
    try {
      gpu::check_arch_reference(arch.text);
    } catch (const InputError& err) {
      throw InputError(arch.where, fmt::format("{} architecture: {}", owner, err.what()));
    }
    return;
  }
  // The cycle-level model's modules are this element's children, built during
  // elaboration like every other module.
  try {
    performance_ = std::make_unique<gpu::PerformanceGpu>("performance", gpu::load_arch(arch.text),
                                                         params.integer("sample_cycles"));
  } catch (const InputError& err) {
    throw InputError(arch.where, fmt::format("{} architecture: {}", owner, err.what()));
  }
}

Gpu::~Gpu() = default;

StagePlan Gpu::plan(const Stage& stage) {
  const WorkDims& d = stage.dims();
  const LaneChoice kernel_lanes = LaneChoice::among(0, kernel_lanes_);
  // A detailed model already timed the kernel: launch overhead plus its time.
  if (d.has(WorkDim::DeviceTime))
    return StagePlan::simple((launch_ps_ + Rational(d.get(WorkDim::DeviceTime))).ceil_u64(), 0,
                             kernel_lanes);
  const bool kernel = d.has(WorkDim::Flops) || d.has(WorkDim::WarpInstructions);
  const std::uint64_t bytes = d.has(WorkDim::Bytes) ? d.get(WorkDim::Bytes) : 0;
  if (!kernel) {
    // Arriving data a collective reduces: read it and the local copy once more.
    const u128 moved =
        static_cast<u128>(bytes) + (stage.next() == nullptr && d.has(WorkDim::ReduceBytes)
                                        ? 2 * static_cast<u128>(d.get(WorkDim::ReduceBytes))
                                        : 0);
    if (moved > UINT64_MAX) throw OverflowError();
    const std::uint64_t access = memory_.ceil_at(static_cast<std::uint64_t>(moved));
    return StagePlan::simple(access, 0,
                             memory_lane_ ? LaneChoice::among(kernel_lanes_, 1) : kernel_lanes);
  }
  Rational longest = Rational(bytes) * ps_per_byte_;
  if (d.has(WorkDim::Flops)) {
    const Rational compute = Rational(d.get(WorkDim::Flops)) * ps_per_flop_;
    if (longest < compute) longest = compute;
  }
  if (d.has(WorkDim::WarpInstructions)) {
    const Rational issue = Rational(d.get(WorkDim::WarpInstructions)) * ps_per_warp_instruction_;
    if (longest < issue) longest = issue;
  }
  return StagePlan::simple((launch_ps_ + longest).ceil_u64(), 0, kernel_lanes);
}

std::string Gpu::lane_name(std::uint32_t lane) const {
  return lane < kernel_lanes_ ? fmt::format("kernels {}", lane) : "device memory";
}

std::optional<std::int64_t> Gpu::stage_power_uw(const Operation& op,
                                                std::uint64_t duration_ps) const {
  if (!op.dims->has(WorkDim::DeviceEnergy) || duration_ps == 0) return std::nullopt;
  // pJ / ps = W; in microwatts, rounded to nearest.
  const u128 uw_ps = static_cast<u128>(op.dims->get(WorkDim::DeviceEnergy)) * 1'000'000u;
  return static_cast<std::int64_t>((uw_ps + duration_ps / 2) / duration_ps);
}

void Gpu::attach(ptx::DeviceMemory& memory, std::ostream& printf_sink) {
  executor_ = std::make_unique<ptx::Executor>(memory, printf_sink);
}

void Gpu::set_launch_replay(bool on) {
  if (executor_) executor_->set_launch_replay(on);
}

std::uint64_t Gpu::replayed_launches() const {
  return executor_ ? executor_->replayed_launches() : 0;
}

gpu::KernelTiming Gpu::timing_of(const std::string& kernel) const {
  auto it = kernel_timing_.find(kernel);
  return it == kernel_timing_.end() ? timing_ : it->second;
}

const gpu::ArchConfig* Gpu::performance_architecture() const {
  return performance_ ? &performance_->arch() : nullptr;
}

void Gpu::reset_persisting_l2() {
  if (performance_) performance_->reset_persisting_l2();
}

gpu::KernelOutcome Gpu::execute(const gpu::KernelLaunch& launch) {
  if (!executor_)
    throw std::logic_error(
        fmt::format("{}: a kernel launched before the device was attached to "
                    "device memory",
                    name()));
  const ptx::LaunchConfig& config = *launch.config;
  gpu::KernelOutcome outcome;
  outcome.timing = timing_of(launch.kernel);
  if (outcome.timing == gpu::KernelTiming::Performance) {
    // The cycle-level model can take minutes: a progress line on a terminal.
    const ProgressLine progress;
    gpu::KernelRun run =
        performance_->run(*executor_, *launch.module, launch.kernel, config, launch.l2_policy);
    outcome.dims.set(WorkDim::DeviceTime, run.time_ps);
    // The platform's power roll-up draws the counted dynamic energy (the
    // element's idle_power already covers the static part).
    const gpu::Energy e = gpu::energy_of(run.total, performance_->arch(), run.time_ps);
    outcome.dims.set(WorkDim::DeviceEnergy,
                     static_cast<std::uint64_t>(std::llround((e.total() - e.idle) * 1e12)));
    outcome.run = std::move(run);
    return outcome;
  }
  const ptx::LaunchStats stats = executor_->launch(*launch.module, launch.kernel, config);
  outcome.suspended = stats.suspended;
  if (outcome.timing == gpu::KernelTiming::Functional) {
    outcome.dims.set(WorkDim::DeviceTime, 0);  // results only: the kernel takes its launch overhead
    return outcome;
  }
  outcome.dims.set(WorkDim::WarpInstructions, stats.warp_instructions);
  outcome.dims.set(WorkDim::Bytes, stats.global_bytes);
  return outcome;
}

CNUAS_REGISTER_MODEL(Gpu);

}  // namespace cnuas
