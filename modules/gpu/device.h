// What makes a platform element a CUDA device: it describes itself to the
// runtime, owns the functional engine that executes its kernels and the
// performance model that may time them, and says what a launch costs.
//
// The CUDA runtime finds its devices by asking every element of the platform
// for this interface, so a GPU element from a plugin becomes a CUDA device by
// implementing it. The built-in `cnuas.gpu` (gpu_element.h) is one.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "core/kernel/errors.h"
#include "core/kernel/work.h"
#include "gpu/gpu_model.h"
#include "gpu/l2_policy.h"
#include "ptx/executor.h"
#include "ptx/memory.h"

namespace cnuas::gpu {

// How a device times a PTX kernel: the analytic roofline, the cycle-level
// performance model, or not at all (results only).
enum class KernelTiming { Analytic, Performance, Functional };
// "analytic", "performance" or "functional"; `what` names the setting in errors.
KernelTiming parse_timing(const std::string& text, const SourceLocation& where,
                          const std::string& what);
// Per-kernel timings, "KERNEL=MODE,KERNEL=MODE".
std::map<std::string, KernelTiming> parse_kernel_modes(const std::string& text,
                                                       const SourceLocation& where,
                                                       const std::string& what);

// What the runtime reports for the device (cudaGetDeviceProperties and friends).
struct DeviceDescription {
  std::string element;  // the element's instance name in the platform, "gpu[1]"
  std::string name;     // the product name
  unsigned arch = 90;   // compute capability, major x 10 + minor
  std::uint32_t sm_count = 0;
  std::uint64_t clock_khz = 0;
  std::uint64_t memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
  std::uint32_t bus_width = 0;  // bits
  // Memory clock as CUDA reports it: data moves on both edges, so
  // bandwidth = 2 x clock x bus width.
  std::uint64_t memory_clock_khz = 0;
};

// One kernel as the runtime hands it over, once its stream says it may run.
struct KernelLaunch {
  const ptx::LoadedModule* module = nullptr;
  std::string kernel;
  const ptx::LaunchConfig* config = nullptr;
  bool clustered = false;  // runs in thread-block clusters (launch attribute or .reqnctapercluster)
  L2AccessPolicy l2_policy;  // its access policy window and the persisting L2 set-aside
};

// What a launch cost: the work its stage on the device element is booked with
// and, for a kernel the performance model timed, the model's run.
struct KernelOutcome {
  WorkDims dims;
  KernelTiming timing = KernelTiming::Analytic;  // the timing it got
  std::optional<KernelRun> run;
  std::string note;  // why it got another timing than asked for, for the user
  // The grid stopped part-way into its config's suspend_into (ptx::LaunchStats::suspended);
  // `dims` count the work before the stop that the saved CTAs do not carry.
  bool suspended = false;
};

class Device {
 public:
  virtual ~Device();

  virtual const DeviceDescription& description() const = 0;
  // Binds the functional engine to the process's unified device memory and the
  // sink device printf writes to; called once, before the first launch.
  virtual void attach(ptx::DeviceMemory& memory, std::ostream& printf_sink) = 0;
  // The timing `kernel` gets (the device's mode and per-kernel overrides).
  virtual KernelTiming timing_of(const std::string& kernel) const = 0;
  // Executes the kernel (its results land in device memory) and says what it
  // costs. Throws ptx::ExecutionError for a fault in the kernel and
  // std::invalid_argument for a launch the engine refuses.
  virtual KernelOutcome execute(const KernelLaunch& launch) = 0;
  // The performance model's architecture, or null when no kernel of this
  // device runs in performance mode.
  virtual const ArchConfig* performance_architecture() const = 0;
  // Makes the persisting lines of a modelled L2 normal again
  // (cudaCtxResetPersistingL2Cache); a device without one has nothing to do.
  virtual void reset_persisting_l2() {}
  // Launch replay in the functional engine (ptx/src/launch_replay.h): on by
  // default; the count of launches it replayed, for the run's summary.
  virtual void set_launch_replay(bool /*on*/) {}
  virtual std::uint64_t replayed_launches() const { return 0; }
};

}  // namespace cnuas::gpu
