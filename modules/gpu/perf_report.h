// The HTML report of performance-mode kernels: per kernel a summary table and
// pictures a person reads at a glance (DRAM efficiency per bank over time,
// global and per-SM IPC over time, the warp-issue breakdown, stalls and
// power), each also written as its own SVG file.
#pragma once

#include <string>
#include <vector>

#include "gpu/arch_config.h"
#include "gpu/gpu_model.h"

namespace cnuas::gpu {

struct ReportedKernel {
  const KernelRun* run;
  const ArchConfig* arch;
  std::string device;  // the GPU element it ran on
};

// Writes `dir`/index.html and `dir`/kNN-<kernel>-<chart>.svg; throws
// std::runtime_error naming the path when it cannot write.
void write_report(const std::string& dir, const std::vector<ReportedKernel>& kernels);

}  // namespace cnuas::gpu
