// STREAM read, copy and triad on the detailed GPU model, one float4 per
// thread, every SM full of warps. Shared by gpu_stream_bench and the
// published-figures tests. Bandwidth counts the bytes the kernel asks for
// (read 1, copy 2, triad 3 arrays), as STREAM does.
#pragma once

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "gpu/gpu_model.h"
#include "kernels.h"
#include "ptx/executor.h"

namespace cnuas::gpu::testing {

struct StreamResult {
  double bytes_per_s = 0;
  KernelRun run;
};

inline void put_param(std::vector<std::uint8_t>& p, const void* v, std::size_t bytes) {
  const std::size_t at = (p.size() + bytes - 1) / bytes * bytes;
  p.resize(at + bytes);
  std::memcpy(p.data() + at, v, bytes);
}

// `kernel` is "read", "copy" or "triad"; each array holds `mib` MiB.
inline StreamResult run_stream(const ArchConfig& arch, const std::string& kernel,
                               std::uint64_t mib) {
  ptx::DeviceMemory memory;
  std::ostringstream printed;
  ptx::Executor executor(memory, printed);
  const std::string text = kernel == "read"   ? stream_kernel()
                           : kernel == "copy" ? stream_copy_kernel()
                                              : stream_triad_kernel();
  const std::uint64_t arrays = kernel == "read" ? 1 : kernel == "copy" ? 2 : 3;
  auto module = ptx::Module::parse(text, kernel + ".ptx");
  ptx::LoadedModule loaded(module, memory);
  static int models = 0;
  PerformanceGpu gpu("stream" + std::to_string(models++), arch);
  // A first run over other arrays, together 1.5 times the L2, leaves the L2
  // holding what this kernel leaves there (its share of dirty lines), so the
  // measured run evicts as a long STREAM run does.
  const std::uint64_t warm = (arch.l2.size_bytes * 3 / 2 / arrays / 16 + 255) / 256 * 256;
  const std::uint64_t n = (mib << 20) / 16;  // float4s per array
  StreamResult out;
  for (const std::uint64_t count : {warm, n}) {
    std::vector<std::uint64_t> at;
    for (std::uint64_t i = 0; i < arrays; ++i) at.push_back(memory.allocate(count * 16, 4096));
    ptx::LaunchConfig c;
    c.grid = {static_cast<std::uint32_t>(count / 256), 1, 1};
    c.block = {256, 1, 1};
    const float q = 3.0f;
    for (std::uint64_t a : at) put_param(c.params, &a, 8);
    if (kernel == "read") put_param(c.params, &at[0], 8);  // out: never written (no negatives)
    if (kernel == "triad") put_param(c.params, &q, 4);
    put_param(c.params, &count, 8);
    out.run = gpu.run(executor, loaded, kernel == "read" ? "stream" : kernel, c);
  }
  out.bytes_per_s =
      static_cast<double>(arrays * n * 16) / (static_cast<double>(out.run.time_ps) * 1e-12);
  return out;
}

}  // namespace cnuas::gpu::testing
