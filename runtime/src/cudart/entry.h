// What every exported runtime function does first: take the runtime lock, boot
// the platform on first use, make a context current (Runtime::enter_runtime_call), refuse calls
// from inside a stream callback (as CUDA does), and return a sticky error once a kernel has
// faulted.
#pragma once

#include <mutex>

#include "engine/graph_capture.h"
#include "engine/runtime.h"

namespace cnuas::cuda {

constexpr cudaError_t kNotPermitted = 800;  // cudaErrorNotPermitted

// Entry points ending in _ptsz/_ptds take the NULL stream as the per-thread
// default stream for the duration of one call.
struct PerThreadDefault {
  Runtime& rt;
  bool saved;
  explicit PerThreadDefault(Runtime& r) : rt(r), saved(r.per_thread_default) {
    rt.per_thread_default = true;
  }
  ~PerThreadDefault() { rt.per_thread_default = saved; }
};

}  // namespace cnuas::cuda

#define CUDART_ENTER()                                                               \
  std::lock_guard<std::recursive_mutex> cnuas_guard(::cnuas::cuda::Runtime::lock()); \
  ::cnuas::cuda::Runtime& rt = ::cnuas::cuda::Runtime::get();                        \
  rt.enter_runtime_call();                                                           \
  if (rt.timeline().in_effect()) return ::cnuas::cuda::kNotPermitted

#define CUDART_ENTER_STICKY() \
  CUDART_ENTER();             \
  if (rt.sticky() != cudaSuccess) return rt.sticky()

// A call stream capture calls unsafe (allocation, device synchronization):
// refused while a capture forbids it (engine/graph_capture.h).
#define CUDART_CAPTURE_UNSAFE()                                                \
  if (const cudaError_t cnuas_capture = ::cnuas::cuda::check_capture_unsafe()) \
  return rt.record(cnuas_capture)

// Defines NAME_ptsz (or _ptds) forwarding to NAME with the per-thread default stream.
#define CUDART_PER_THREAD(suffix, ret, name, params, args)                             \
  extern "C" ret name##suffix params {                                                 \
    std::lock_guard<std::recursive_mutex> cnuas_guard(::cnuas::cuda::Runtime::lock()); \
    ::cnuas::cuda::PerThreadDefault scope(::cnuas::cuda::Runtime::get());              \
    return name args;                                                                  \
  }
