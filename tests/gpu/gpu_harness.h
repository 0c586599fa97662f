// A device for the GPU model tests: PTX text, device memory, the functional
// executor, and a performance GPU built from an architecture profile.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "gpu/arch_config.h"
#include "gpu/gpu_model.h"
#include "kernels.h"
#include "ptx/executor.h"

namespace cnuas::gpu::testing {

inline ArchConfig unit_arch() {
  return load_arch_file(std::string(CNUAS_GPU_TEST_DIR) + "/unit-arch.yaml");
}
// The unit profile, loaded once per test program.
inline const ArchConfig& loaded_unit_arch() {
  static const ArchConfig a = unit_arch();
  return a;
}

class PerfDevice {
 public:
  explicit PerfDevice(const std::string& ptx, ArchConfig arch = unit_arch(),
                      std::uint64_t sample_cycles = 1000)
      : module_(ptx::Module::parse(ptx, "test.ptx")),
        loaded_(module_, memory_),
        executor_(memory_, printed_),
        gpu_("gpu" + std::to_string(next_id()), std::move(arch), sample_cycles) {}

  ptx::DeviceMemory& memory() { return memory_; }
  PerformanceGpu& gpu() { return gpu_; }

  template <class T>
  std::uint64_t upload(const std::vector<T>& v, std::uint64_t align = 256) {
    const std::uint64_t a = memory_.allocate(std::max<std::size_t>(v.size() * sizeof(T), 1), align);
    if (!v.empty()) memory_.write(a, v.data(), v.size() * sizeof(T));
    return a;
  }
  template <class T>
  std::vector<T> download(std::uint64_t a, std::size_t n) {
    std::vector<T> v(n);
    if (n) memory_.read(a, v.data(), n * sizeof(T));
    return v;
  }

  // Kernel parameters, each 8-byte aligned as the test kernels declare them.
  template <class... Args>
  ptx::LaunchConfig config(ptx::Dim3 grid, ptx::Dim3 block, const Args&... args) {
    ptx::LaunchConfig c;
    c.grid = grid;
    c.block = block;
    (append(c.params, args), ...);
    return c;
  }

  template <class... Args>
  KernelRun perf(const std::string& kernel, ptx::Dim3 grid, ptx::Dim3 block, const Args&... args) {
    config_ = config(grid, block, args...);
    return gpu_.run(executor_, loaded_, kernel, config_);
  }
  template <class... Args>
  KernelRun perf_under(const L2AccessPolicy& policy, const std::string& kernel, ptx::Dim3 grid,
                       ptx::Dim3 block, const Args&... args) {
    config_ = config(grid, block, args...);
    return gpu_.run(executor_, loaded_, kernel, config_, policy);
  }
  template <class... Args>
  ptx::LaunchStats functional(const std::string& kernel, ptx::Dim3 grid, ptx::Dim3 block,
                              const Args&... args) {
    config_ = config(grid, block, args...);
    return executor_.launch(loaded_, kernel, config_);
  }

 private:
  static int next_id() {
    static int n = 0;
    return n++;
  }
  template <class T>
  static void append(std::vector<std::uint8_t>& p, const T& v) {
    p.resize((p.size() + 7) / 8 * 8);
    const std::size_t at = p.size();
    p.resize(at + sizeof(T));
    std::memcpy(p.data() + at, &v, sizeof(T));
  }

  ptx::DeviceMemory memory_;
  std::shared_ptr<const ptx::Module> module_;
  ptx::LoadedModule loaded_;
  std::ostringstream printed_;
  ptx::Executor executor_;
  PerformanceGpu gpu_;
  ptx::LaunchConfig config_;
};

// A ring of `nodes` pointers `stride` bytes apart, each pointing to the next.
inline std::uint64_t build_ring(PerfDevice& d, std::uint64_t nodes, std::uint64_t stride) {
  const std::uint64_t base = d.memory().allocate(nodes * stride, 4096);
  for (std::uint64_t i = 0; i < nodes; ++i) {
    const std::uint64_t next = base + ((i + 1) % nodes) * stride;
    d.memory().write(base + i * stride, &next, sizeof next);
  }
  return base;
}

}  // namespace cnuas::gpu::testing
