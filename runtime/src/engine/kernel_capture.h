// The kernel debugger's side of the runtime (docs/kernel-debugger.md):
// CNUAS_DEBUG_CAPTURE=PATH with CNUAS_DEBUG_KERNEL=NAME[#N] records the Nth
// launch (from 0) of kernel NAME (its .entry name or the C++ name before the
// parameter list) to PATH; CNUAS_PTX_REPLACE=KERNEL=FILE[;KERNEL=FILE...]
// loads FILE instead of the PTX of the module that defines KERNEL.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "debugger/capture.h"
#include "ptx/executor.h"
#include "ptx/memory.h"

namespace cnuas::cuda {

class KernelCapture {
 public:
  // Null when CNUAS_DEBUG_CAPTURE is not set.
  static std::unique_ptr<KernelCapture> from_environment();
  // Counts a launch of `kernel`; true when it is the one to record.
  bool select(const std::string& kernel);
  // Before the launch runs: its module, configuration and reachable memory.
  void before(const std::string& kernel, const std::string& ptx, const std::string& origin,
              const ptx::LoadedModule& module, const ptx::LaunchConfig& config,
              ptx::DeviceMemory& memory);
  // After it ran (completed: without a fault): the outputs; writes the file.
  void after(const ptx::LoadedModule& module, ptx::DeviceMemory& memory, bool completed);
  // At exit, when the launch never came: what was launched instead.
  void report_missing() const;

 private:
  std::string path_, kernel_;
  std::uint32_t occurrence_ = 0;
  std::map<std::string, std::uint32_t> launches_;  // by .entry name
  bool taken_ = false, written_ = false;
  debugger::Capture capture_;
};

// The replacement PTX text for a module that defines one of the kernels
// CNUAS_PTX_REPLACE names, or "" when none applies. Exits with status 2
// naming the variable for a malformed value or a file it cannot read.
std::string replacement_ptx(const ptx::Module& parsed, std::string* file);

}  // namespace cnuas::cuda
