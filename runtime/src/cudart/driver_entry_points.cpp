// Driver entry points through the runtime: cuGetProcAddress of the
// libcuda.so.1 the process loads (ours, beside this library), as the real
// runtime reaches the driver. A symbol the driver does not know is not an
// error here: the pointer is NULL and the status says why.
#include <dlfcn.h>

#include <cstdint>

#include "cudart/entry.h"

using namespace cnuas::cuda;

namespace {

constexpr unsigned kRuntimeVersion = 13000;  // cudaRuntimeGetVersion
constexpr CUresult kDriverInvalidValue = 1;
constexpr std::uint64_t kPerThreadStream = 2;  // cudaEnablePerThreadDefaultStream
constexpr int kSymbolNotFound = 1;             // cudaDriverEntryPointSymbolNotFound

using ProcAddress = CUresult (*)(const char*, void**, int, std::uint64_t, int*);

ProcAddress driver_lookup() {
  static const ProcAddress lookup = [] {
    void* driver = dlopen("libcuda.so.1", RTLD_LAZY);
    return driver ? reinterpret_cast<ProcAddress>(dlsym(driver, "cuGetProcAddress_v2")) : nullptr;
  }();
  return lookup;
}

}  // namespace

extern "C" {

cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** fn, unsigned version,
                                             unsigned long long flags, int* status) {
  CUDART_ENTER();
  if (!symbol || !fn) return rt.record(cudaErrorInvalidValue);
  // The _ptsz entry points (a program built for the per-thread default
  // stream) make the default search the per-thread one.
  if (flags == 0 && rt.per_thread_default) flags = kPerThreadStream;
  *fn = nullptr;
  int found = kSymbolNotFound;
  const ProcAddress lookup = driver_lookup();
  if (!lookup) return rt.record(cudaErrorNotSupported);  // no libcuda.so.1 to ask
  if (lookup(symbol, fn, static_cast<int>(version), flags, &found) == kDriverInvalidValue)
    return rt.record(cudaErrorInvalidValue);
  if (status) *status = found;
  return cudaSuccess;
}

cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** fn, unsigned long long flags,
                                    int* status) {
  return cudaGetDriverEntryPointByVersion(symbol, fn, kRuntimeVersion, flags, status);
}

}  // extern "C"

CUDART_PER_THREAD(_ptsz, cudaError_t, cudaGetDriverEntryPointByVersion,
                  (const char* s, void** fn, unsigned v, unsigned long long f, int* st),
                  (s, fn, v, f, st))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaGetDriverEntryPoint,
                  (const char* s, void** fn, unsigned long long f, int* st), (s, fn, f, st))
