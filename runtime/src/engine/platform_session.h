// The simulated platform a CUDA program runs on: booted in-process from the
// platform file the user names (or the embedded default), its GPU elements
// turned into CUDA devices, and operations injected as the program issues them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "run/simulation.h"

namespace cnuas::gpu {
class PerformanceGpu;
}

namespace cnuas::cuda {

struct SessionOptions {
  std::string platform_file;  // empty: the embedded default platform
  std::string trace_path, stats_path, perfetto_path;
  std::vector<std::string> sets;
  // Overrides of every GPU's kernel timing (empty: the platform's own).
  std::string gpu_mode, gpu_kernel_modes, gpu_architecture, gpu_sample_cycles;
};

// How the runtime times a PTX kernel on a GPU.
enum class KernelTiming { Analytic, Performance, Functional };

// What the runtime tells the program about one GPU, from its element's profile.
struct DeviceDesc {
  std::string element;  // instance name, "gpu[1]"
  std::string name;
  unsigned arch = 90;  // compute capability x 10
  std::uint32_t sm_count = 0;
  std::uint64_t clock_khz = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
  std::uint32_t bus_width = 0;
  KernelTiming timing = KernelTiming::Analytic;
  std::map<std::string, KernelTiming> kernel_timing;  // per-kernel overrides
  gpu::PerformanceGpu* performance = nullptr;         // when any kernel runs in performance mode

  KernelTiming timing_of(const std::string& kernel) const {
    auto it = kernel_timing.find(kernel);
    return it == kernel_timing.end() ? timing : it->second;
  }
};

class PlatformSession {
 public:
  // Throws InputError for a bad platform or one without a host and a GPU.
  explicit PlatformSession(const SessionOptions& options);
  ~PlatformSession();

  const std::vector<DeviceDesc>& devices() const { return devices_; }
  // The route between two elements, without a leading or trailing host CPU
  // (the copy engines move the data; no guest instructions are involved).
  const Route& route(const std::string& from, const std::string& to);
  const Route& local(const std::string& element);
  const std::string& host() const { return host_; }
  bool connected(const std::string& a, const std::string& b);

  using Completion = std::function<void(std::uint64_t id, std::uint64_t done_ps)>;
  void on_completion(Completion c) { completion_ = std::move(c); }
  // Starts an operation named `name` along `route` at `ready_ps`; its completion
  // is reported with `id`.
  void inject(std::uint64_t id, const std::string& name, const Route& route, const WorkDims& dims,
              bool read, std::uint64_t ready_ps);
  std::uint64_t in_flight() const { return simulation_->program_driver().in_flight(); }
  std::uint64_t now_ps() const;
  // Runs the simulation until it pauses (a completion asked for it) or runs dry.
  void run();
  // Runs the simulation up to `until_ps` (not beyond).
  void run_until(std::uint64_t until_ps);
  // Runs what is left and writes the trace and statistics.
  void finish();
  std::string summary() const { return simulation_->summary(); }

 private:
  std::unique_ptr<Simulation> simulation_;
  std::vector<std::unique_ptr<gpu::PerformanceGpu>> performance_;
  std::vector<DeviceDesc> devices_;
  std::string host_;
  std::map<std::pair<std::string, std::string>, const Route*> routes_;
  std::map<const Operation*, std::uint64_t> ids_;
  Completion completion_;
};

}  // namespace cnuas::cuda
