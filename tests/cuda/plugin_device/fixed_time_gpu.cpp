// A GPU from a plugin: a native Cnuas model, outside the built-in library,
// that becomes a CUDA device by implementing gpu::Device. Its kernels run on
// its own PTX engine and each takes a fixed `kernel_time`; its memory moves a
// byte per picosecond. The plugin_device CUDA test checks what the program sees.
#include <fmt/format.h>

#include "core/kernel/element.h"
#include "core/kernel/registry.h"
#include "gpu/device.h"

namespace {

using namespace cnuas;

class FixedTimeGpu : public Element, public gpu::Device {
 public:
  static const Schema& schema() {
    static const Schema s =
        Schema("test.fixed_time_gpu", "test GPU: every kernel takes kernel_time; 1 byte per ps")
            .quantity("kernel_time", Dimension::Time, std::nullopt, "time of every kernel", true)
            .integer("sm_count", 3, "streaming multiprocessors", 1, 4096)
            .needs_one_of({WorkDim::Bytes, WorkDim::DeviceTime});
    return s;
  }

  FixedTimeGpu(sc_core::sc_module_name name, const ParamSet& params)
      : Element(name, params, 1), kernel_ps_(params.time_ps("kernel_time")) {
    const std::string full = this->name();
    description_.element = full.substr(full.find('.') + 1);
    description_.name = "Cnuas test plugin GPU";
    description_.arch = 80;
    description_.sm_count = static_cast<std::uint32_t>(params.integer("sm_count"));
    description_.clock_khz = 1'000'000;
    description_.memory_bytes = std::uint64_t{1} << 30;
    description_.l2_bytes = 4u << 20;
    description_.bus_width = 1024;
  }

  std::uint64_t service_ps(const Stage& stage) override {
    const WorkDims& d = stage.dims();
    return d.has(WorkDim::DeviceTime) ? d.get(WorkDim::DeviceTime) : d.get(WorkDim::Bytes);
  }

  const gpu::DeviceDescription& description() const override { return description_; }
  void attach(ptx::DeviceMemory& memory, std::ostream& printf_sink) override {
    executor_ = std::make_unique<ptx::Executor>(memory, printf_sink);
  }
  gpu::KernelTiming timing_of(const std::string&) const override {
    return gpu::KernelTiming::Analytic;
  }
  gpu::KernelOutcome execute(const gpu::KernelLaunch& launch) override {
    executor_->launch(*launch.module, launch.kernel, *launch.config);
    gpu::KernelOutcome outcome;
    outcome.dims.set(WorkDim::DeviceTime, kernel_ps_);
    return outcome;
  }
  const gpu::ArchConfig* performance_architecture() const override { return nullptr; }

 private:
  std::uint64_t kernel_ps_;
  gpu::DeviceDescription description_;
  std::unique_ptr<ptx::Executor> executor_;
};

CNUAS_REGISTER_MODEL(FixedTimeGpu);

}  // namespace
