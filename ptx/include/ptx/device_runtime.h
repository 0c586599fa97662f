// The CUDA device runtime as kernels call it (dynamic parallelism): the grids,
// copies and memsets a kernel's threads launch, collected for whoever launched
// the kernel to run once its grid has run; and which undefined functions the
// engine itself provides.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ptx/errors.h"

namespace cnuas::ptx {

// Functions a module may call without defining them: the engine runs them
// (vprintf, malloc, free, __assertfail and the device runtime's calls).
bool is_builtin_function(const std::string& name);

// Device runtime error codes the engine returns (cudaError_t values).
enum DeviceRuntimeError : std::uint32_t {
  kDeviceSuccess = 0,
  kDeviceInvalidValue = 1,
  kDeviceInvalidConfiguration = 9,
  kDeviceLaunchMaxDepthExceeded = 65,
  kDeviceLaunchPendingCountExceeded = 69,
  kDeviceInvalidDeviceFunction = 98,
};

// One piece of work a kernel thread asked for.
struct DeviceWork {
  enum class Kind : std::uint8_t { Kernel, Copy, Set } kind = Kind::Kernel;
  // Kernel: the function's index in the launching module, its shape and parameters.
  std::size_t function = 0;
  Dim3 grid{1, 1, 1}, block{1, 1, 1};
  std::uint32_t shared_bytes = 0;
  std::vector<std::uint8_t> params;
  // Copy and Set: bytes at global addresses.
  std::uint64_t dst = 0, src = 0, bytes = 0;
  std::uint8_t value = 0;
  // The device-side stream; cudaStreamTailLaunch work runs after all other
  // work of the launching grid.
  std::uint64_t stream = 0;
  bool tail() const { return stream == kTailLaunchStream; }
  static constexpr std::uint64_t kTailLaunchStream = 0x3;
};

// What one grid's threads launched, in launch order; the launcher runs it
// after the grid (children before the grid counts as complete, tail launches
// after the other children).
struct DeviceLaunches {
  unsigned depth = 0;  // nesting depth of the launching grid: 0 for a host launch
  int device = 0, device_count = 1;
  std::vector<DeviceWork> work;
  // Parameter buffers handed out by cudaGetParameterBuffer(V2) and not yet
  // launched: buffer address -> the launch it is for (its params still empty).
  std::map<std::uint64_t, DeviceWork> pending;
  // The device runtime's last error of each thread, by (CTA, thread) linear ids.
  std::map<std::pair<std::uint64_t, std::uint32_t>, std::uint32_t> last_error;
  std::uint64_t next_handle = 0x100;  // device-side streams and events

  // CUDA's limits: nesting depth and launches pending at once.
  static constexpr unsigned kMaxDepth = 24;
  static constexpr std::size_t kMaxPending = 2048;
};

}  // namespace cnuas::ptx
