// cnuas.gpu: a GPU element for platform-level work and a CUDA device.
//
// As an element it is an analytic roofline of peak compute, warp-instruction
// issue and memory bandwidth, plus launch overhead, on its kernel lanes; with
// a memory lane, work that only moves bytes (copies, peer and network traffic)
// holds one device-memory lane instead, beside the kernels. As a CUDA device
// (gpu/device.h) it describes the part to the runtime, executes kernels on its
// PTX engine and, for kernels in performance mode, times them on its
// cycle-level model (gpu/gpu_model.h), which it builds as its child modules.
#pragma once

#include <map>
#include <memory>

#include "core/kernel/element.h"
#include "core/kernel/linear_cost.h"
#include "gpu/device.h"

namespace cnuas {

class Gpu : public Element, public gpu::Device {
 public:
  Gpu(sc_core::sc_module_name name, const ParamSet& params);
  ~Gpu() override;
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override { return plan(stage).alone_ps(); }
  StagePlan plan(const Stage& stage) override;
  std::string lane_name(std::uint32_t lane) const override;
  // A kernel timed by the detailed model draws the energy it counted.
  std::optional<std::int64_t> stage_power_uw(const Operation& op,
                                             std::uint64_t duration_ps) const override;
  bool counts_own_energy() const override { return true; }

  // gpu::Device
  const gpu::DeviceDescription& description() const override { return description_; }
  void attach(ptx::DeviceMemory& memory, std::ostream& printf_sink) override;
  void set_launch_replay(bool on) override;
  std::uint64_t replayed_launches() const override;
  gpu::KernelTiming timing_of(const std::string& kernel) const override;
  gpu::KernelOutcome execute(const gpu::KernelLaunch& launch) override;
  const gpu::ArchConfig* performance_architecture() const override;
  void reset_persisting_l2() override;

 private:
  Rational ps_per_flop_;
  Rational ps_per_byte_;
  Rational ps_per_warp_instruction_;
  Rational launch_ps_;
  LinearCost memory_;  // bytes -> ps at memory_bandwidth
  std::uint32_t kernel_lanes_;
  bool memory_lane_;

  gpu::DeviceDescription description_;
  gpu::KernelTiming timing_ = gpu::KernelTiming::Analytic;
  std::map<std::string, gpu::KernelTiming> kernel_timing_;  // per-kernel overrides
  std::unique_ptr<ptx::Executor> executor_;
  std::unique_ptr<gpu::PerformanceGpu> performance_;  // when any kernel runs in performance mode
};

}  // namespace cnuas
