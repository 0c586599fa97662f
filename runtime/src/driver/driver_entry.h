// What every driver entry point does first (DRIVER_ENTER: the runtime lock,
// cuInit done, not from a stream callback, no sticky fault) and the result
// codes the driver API names differently from the runtime.
#pragma once

#include <cstdint>
#include <mutex>

#include "engine/runtime.h"

namespace cnuas::cuda::driver {

constexpr CUresult kSuccess = 0, kInvalidValue = 1, kNotInitialized = 3, kInvalidContext = 201,
                   kInvalidDevice = 101, kInvalidHandle = 400, kFileNotFound = 301,
                   kNotPermitted = 800, kNotSupported = 801, kUnsupportedExecAffinity = 224;

// Runtime codes the driver API names differently.
inline CUresult driver_code(cudaError_t e) {
  switch (e) {
    case cudaErrorInvalidConfiguration:
    case cudaErrorInvalidPitchValue:
    case cudaErrorInvalidDevicePointer:
    case cudaErrorInvalidMemcpyDirection:
    case cudaErrorInvalidChannelDescriptor:
      return kInvalidValue;
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorInvalidResourceHandle:
      return kInvalidHandle;
    case cudaErrorInvalidSymbol:
      return 500;  // CUDA_ERROR_NOT_FOUND
    default:
      return e;
  }
}

inline CUcontext context_of(int device) {
  return reinterpret_cast<CUcontext>(static_cast<std::uintptr_t>(device + 1));
}

inline int device_of(CUcontext c) {
  return static_cast<int>(reinterpret_cast<std::uintptr_t>(c)) - 1;
}

// The CUDA runtime's last error is the runtime's: a driver call leaves the
// calling thread's unchanged, though the engine records the errors it returns.
class KeepRuntimeLastError {
 public:
  explicit KeepRuntimeLastError(Runtime& rt) : rt_(rt), saved_(rt.thread_last_error()) {}
  ~KeepRuntimeLastError() { rt_.set_thread_last_error(saved_); }
  KeepRuntimeLastError(const KeepRuntimeLastError&) = delete;
  KeepRuntimeLastError& operator=(const KeepRuntimeLastError&) = delete;

 private:
  Runtime& rt_;
  cudaError_t saved_;
};

// For one per-thread default stream entry point (_ptsz/_ptds): the NULL
// stream means the per-thread default stream (CU_STREAM_PER_THREAD) rather
// than the legacy one. The runtime lock is held around it.
class PerThreadStreamScope {
 public:
  explicit PerThreadStreamScope(Runtime& rt) : rt_(rt), saved_(rt.per_thread_default) {
    rt_.per_thread_default = true;
  }
  ~PerThreadStreamScope() { rt_.per_thread_default = saved_; }
  PerThreadStreamScope(const PerThreadStreamScope&) = delete;
  PerThreadStreamScope& operator=(const PerThreadStreamScope&) = delete;

 private:
  Runtime& rt_;
  bool saved_;
};

}  // namespace cnuas::cuda::driver

#define DRIVER_ENTER()                                                                       \
  std::lock_guard<std::recursive_mutex> cnuas_guard(::cnuas::cuda::Runtime::lock());         \
  if (!::cnuas::cuda::Runtime::initialized()) return ::cnuas::cuda::driver::kNotInitialized; \
  ::cnuas::cuda::Runtime& rt = ::cnuas::cuda::Runtime::get();                                \
  const ::cnuas::cuda::driver::KeepRuntimeLastError cnuas_keep_last_error(rt);               \
  if (rt.timeline().in_effect()) return ::cnuas::cuda::driver::kNotPermitted;                \
  if (rt.sticky() != cudaSuccess) return ::cnuas::cuda::driver::driver_code(rt.sticky())

// Defines `symbol`, the per-thread default stream form (_ptsz/_ptds) of the
// driver entry point `base`, which takes `params` and is called with `args`.
#define DRIVER_PER_THREAD(symbol, base, params, args)                                          \
  extern "C" CUresult symbol params {                                                          \
    std::lock_guard<std::recursive_mutex> cnuas_guard(::cnuas::cuda::Runtime::lock());         \
    if (!::cnuas::cuda::Runtime::initialized()) return ::cnuas::cuda::driver::kNotInitialized; \
    ::cnuas::cuda::driver::PerThreadStreamScope cnuas_scope(::cnuas::cuda::Runtime::get());    \
    return base args;                                                                          \
  }

// The thread's current context (Runtime::context_device) is shared with the
// runtime, which makes a primary context current on its first call.
#define DRIVER_NEEDS_CONTEXT()                                           \
  const int context_device = rt.context_device();                        \
  if (context_device < 0) return ::cnuas::cuda::driver::kInvalidContext; \
  rt.set_device(context_device)
