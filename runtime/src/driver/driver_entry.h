// What every driver API entry point does first, shared by the driver's
// source files: the runtime lock, initialization and sticky-error checks, the
// thread's current context; and the runtime error codes the driver API names
// differently.
#pragma once

#include <mutex>

#include "engine/runtime.h"

namespace cnuas::cuda::driver_api {

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

}  // namespace cnuas::cuda::driver_api

#define DRIVER_ENTER()                                                \
  std::lock_guard<std::recursive_mutex> cnuas_guard(Runtime::lock()); \
  if (!Runtime::initialized()) return kNotInitialized;                \
  Runtime& rt = Runtime::get();                                       \
  if (rt.timeline().in_effect()) return kNotPermitted;                \
  if (rt.sticky() != cudaSuccess) return driver_code(rt.sticky())

// The thread's current context (Runtime::context_device) is shared with the
// runtime, which makes a primary context current on its first call.
#define DRIVER_NEEDS_CONTEXT()                    \
  const int context_device = rt.context_device(); \
  if (context_device < 0) return kInvalidContext; \
  rt.set_device(context_device)
