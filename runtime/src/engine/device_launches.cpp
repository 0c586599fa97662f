// Dynamic parallelism: the grids (and copies, memsets) a kernel's threads
// launched run once the launching grid has run, on the same device, before
// the launching grid counts as complete. CUDA lets a child grid start at any
// time after its launch and guarantees only that it completes before its
// parent, and that a tail launch starts after the parent and its other
// children; running each grid's work after the grid, depth first, in launch
// order and tail launches last, is one of the orders the GPU may take.
#include <cstring>
#include <iostream>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/runtime.h"

namespace cnuas::cuda {
namespace {

// What a child costs is added to its launcher's stage: the parent grid
// completes only when its children have.
void add_cost(gpu::KernelOutcome& total, const gpu::KernelOutcome& child) {
  for (const WorkDim d :
       {WorkDim::WarpInstructions, WorkDim::Bytes, WorkDim::DeviceTime, WorkDim::DeviceEnergy})
    if (child.dims.has(d))
      total.dims.set(d, (total.dims.has(d) ? total.dims.get(d) : 0) + child.dims.get(d));
}

}  // namespace

void Runtime::run_device_work(const DeviceDesc& desc, Module& module, ptx::DeviceLaunches& launched,
                              gpu::KernelOutcome& outcome, std::vector<gpu::KernelRun>& runs) {
  // Parameter buffers the grid asked for and never launched.
  for (const auto& [buffer, work] : launched.pending) memory_.free(buffer);
  launched.pending.clear();
  const std::vector<ptx::DeviceWork> work = std::move(launched.work);
  for (const bool tail : {false, true})
    for (const ptx::DeviceWork& w : work) {
      if (w.tail() != tail) continue;
      if (w.kind == ptx::DeviceWork::Kind::Copy || w.kind == ptx::DeviceWork::Kind::Set) {
        std::uint8_t* dst = memory_.find(w.dst, w.bytes);
        const std::uint8_t* src =
            w.kind == ptx::DeviceWork::Kind::Copy ? memory_.find(w.src, w.bytes) : nullptr;
        if (!dst || (w.kind == ptx::DeviceWork::Kind::Copy && !src))
          throw std::invalid_argument(fmt::format(
              "a device-side cudaMem{}Async of {} bytes at {:#x} reaches outside device memory",
              w.kind == ptx::DeviceWork::Kind::Copy ? "cpy" : "set", w.bytes, w.dst));
        if (src)
          std::memmove(dst, src, w.bytes);
        else
          std::memset(dst, w.value, w.bytes);
        continue;
      }
      const ptx::Function& f = module.parsed->functions[w.function];
      Kernel* k = nullptr;
      if (kernel_by_name(&module, f.name.c_str(), &k) != cudaSuccess)
        throw std::invalid_argument("a device-side launch names no kernel: " + f.name);
      ptx::LaunchConfig config;
      config.grid = w.grid;
      config.block = w.block;
      config.dynamic_shared_bytes = w.shared_bytes;
      config.params = w.params;
      config.instruction_limit = kernel_limit_;
      config.stack_bytes = launch_stack_bytes(*k);
      config.sm_count = desc.sm_count;
      config.textures = &textures_;
      const int threads = static_cast<int>(w.block.count());
      config.resident_ctas =
          std::uint64_t(std::max(1, max_active_blocks(*k, threads, w.shared_bytes))) *
          desc.sm_count;
      ptx::DeviceLaunches grandchildren;
      grandchildren.depth = launched.depth + 1;
      grandchildren.device = launched.device;
      grandchildren.device_count = launched.device_count;
      config.device_launches = &grandchildren;
      gpu::KernelLaunch child;
      child.module = module.loaded.get();
      child.kernel = f.name;
      child.config = &config;
      child.clustered = f.cluster_dims[0] * f.cluster_dims[1] * f.cluster_dims[2] > 1;
      gpu::KernelOutcome result = desc.device->execute(child);
      if (!result.note.empty() && notes_given_.insert(result.note).second &&
          log_level_ != LogLevel::Quiet)
        std::cerr << "cnuas: " << result.note << "\n";
      if (result.run) runs.push_back(std::move(*result.run));
      result.run.reset();
      run_device_work(desc, module, grandchildren, result, runs);
      add_cost(outcome, result);
    }
}

}  // namespace cnuas::cuda
