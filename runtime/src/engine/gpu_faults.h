// The GPU faults of a CUDA program's run (cnuas exec --faults, run/gpu_faults.h)
// applied to its devices. docs/cuda-runtime.md, "GPU faults", says what a
// program sees:
// - ecc_error with 2 bits (Xid 48) and gpu_xid fail the first kernel of their
//   GPU that ends after the fault's time (the kernel running then, or else the
//   next one launched): its error sticks as a kernel fault's does;
// - ecc_error with 1 bit is corrected: counted in the statistics, marked in the trace;
// - gpu_throttle slows the GPU's lane holdings over its span by clock / sm_clock.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/kernel/log.h"
#include "cuda_abi.h"
#include "engine/platform_session.h"
#include "run/gpu_faults.h"

namespace cnuas::cuda {

class GpuFaultPlan {
 public:
  // Resolves each fault's target to a CUDA device and slows the GPUs a
  // gpu_throttle names. Throws InputError naming the entry.
  GpuFaultPlan(std::vector<GpuFault> faults, PlatformSession& session);

  // Whether a kernel of `device` may be hit (the runtime watches its kernels' ends then).
  bool watches(int device) const;

  struct Hit {
    const GpuFault* fault;
    cudaError_t error;
    bool survives_reset;  // Xid 79: the GPU is gone for the rest of the process
  };
  // A kernel of `device` ended at `done_ps`: the earliest fault of that GPU
  // not yet taken whose time is before it, if any. Every such fault is taken
  // (one kernel failure reports them all).
  std::optional<Hit> kernel_ended(int device, std::uint64_t done_ps);

  // At the end of the run (`end_ps`): trace instants and per-GPU counts of the
  // faults up to then, and a note for each fault that hit no kernel.
  void finish(std::uint64_t end_ps, LogLevel log_level);

 private:
  struct Planned {
    GpuFault fault;
    int device = -1;
    Element* element = nullptr;
    bool taken = false;   // a kernel failed with it
    bool kernel = false;  // it fails a kernel (double-bit ECC, Xid)
  };
  PlatformSession& session_;
  std::vector<Planned> faults_;  // in start order
};

// The CUDA error a program sees for an Xid this model accepts.
cudaError_t xid_error(unsigned xid);

}  // namespace cnuas::cuda
