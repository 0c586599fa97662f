// The HTML report of performance-mode kernels: a table comparing the kernels,
// then per kernel (by its demangled name) the launch configuration, a summary
// table and pictures a person reads at a glance (DRAM efficiency per channel
// over time with a per-bank picture on demand, global and per-SM IPC over
// time, the warp-issue breakdown, stalls and power), each also written as its
// own SVG file. Charts show at most kMaxColumns time columns (adjacent
// samples merge), which keeps a report of a few kernels under a few hundred KB.
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

constexpr std::size_t kMaxColumns = 128;

// DRAM efficiency of each channel in `c`: the data-bus time of its banks over
// the time they had requests (sum over banks of each); -1 where never busy.
std::vector<double> channel_efficiency(const Counters& c, std::uint32_t channels,
                                       std::uint32_t banks_per_channel);

// Writes `dir`/index.html and `dir`/kNN-<kernel>-<chart>.svg; throws
// std::runtime_error naming the path when it cannot write.
void write_report(const std::string& dir, const std::vector<ReportedKernel>& kernels);

}  // namespace cnuas::gpu
