// Driver entry points by name: cuGetProcAddress (v1 and v2) and the runtime's
// cudaGetDriverEntryPoint(ByVersion). The expected symbols follow from
// cudaTypedefs.h by hand: cuCtxCreate's ABI versions came in CUDA 2.0
// (cuCtxCreate), 3.2 (_v2), 11.4 (_v3) and 12.5 (_v4); cuMemAlloc's in 2.0 and
// 3.2 (_v2); the per-thread-stream forms in 7.0 (cuMemcpyHtoDAsync_v2_ptsz,
// cuMemcpyHtoD_v2_ptds, cuStreamSynchronize_ptsz); cuDeviceGet has none;
// cuCtxGetDevice_v2 came in 13.0. Each pointer must be this libcuda.so.1's own
// definition of that symbol (dlsym), and calling it must do what that version does.
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstring>

#include "cu_check.h"

// cudaGetDriverEntryPoint is deprecated in CUDA 13, but programs still call it.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static void* driver_symbol(const char* name) {
  static void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  return driver ? dlsym(driver, name) : nullptr;
}

// cuGetProcAddress_v2 finds `name` for `version` and `flags` as `symbol`.
static bool finds(const char* name, int version, cuuint64_t flags, const char* symbol) {
  void* fn = nullptr;
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  const CUresult r = cuGetProcAddress(name, &fn, version, flags, &status);
  const bool ok = r == CUDA_SUCCESS && status == CU_GET_PROC_ADDRESS_SUCCESS && fn &&
                  fn == driver_symbol(symbol);
  if (!ok)
    std::fprintf(stderr, "%s for CUDA %d, flags %llu: result %d, status %d, not %s\n", name,
                 version, static_cast<unsigned long long>(flags), r, status, symbol);
  return ok;
}

int main() {
  const cuuint64_t legacy = CU_GET_PROC_ADDRESS_LEGACY_STREAM,
                   per_thread = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
  // No cuInit needed: a program (and the runtime) finds cuInit this way.
  CHECK(finds("cuInit", 13000, 0, "cuInit"));
  CHECK(driver_symbol("cuInit") != nullptr);
  void* fn = nullptr;
  CU_OK(cuGetProcAddress("cuInit", &fn, 13000, 0, nullptr));
  CU_OK(reinterpret_cast<PFN_cuInit_v2000>(fn)(0));

  CHECK(finds("cuCtxCreate", 13000, 0, "cuCtxCreate_v4"));
  CHECK(finds("cuCtxCreate", 12050, 0, "cuCtxCreate_v4"));
  CHECK(finds("cuCtxCreate", 12040, 0, "cuCtxCreate_v3"));
  CHECK(finds("cuCtxCreate", 3020, legacy, "cuCtxCreate_v2"));
  CHECK(finds("cuCtxCreate", 2000, 0, "cuCtxCreate"));
  CHECK(finds("cuMemAlloc", 13000, 0, "cuMemAlloc_v2"));
  CHECK(finds("cuCtxGetDevice", 12080, 0, "cuCtxGetDevice"));
  CHECK(finds("cuCtxGetDevice", 13000, 0, "cuCtxGetDevice_v2"));
  CHECK(finds("cuMemcpyHtoDAsync", 13000, 0, "cuMemcpyHtoDAsync_v2"));
  CHECK(finds("cuMemcpyHtoDAsync", 13000, legacy, "cuMemcpyHtoDAsync_v2"));
  CHECK(finds("cuMemcpyHtoDAsync", 13000, per_thread, "cuMemcpyHtoDAsync_v2_ptsz"));
  CHECK(finds("cuMemcpyHtoD", 12000, per_thread, "cuMemcpyHtoD_v2_ptds"));
  CHECK(finds("cuStreamSynchronize", 6050, per_thread, "cuStreamSynchronize"));
  CHECK(finds("cuStreamSynchronize", 7000, per_thread, "cuStreamSynchronize_ptsz"));
  CHECK(finds("cuDeviceGet", 13000, per_thread, "cuDeviceGet"));  // no per-thread form

  // Unknown names, suffixed names and too old a version: NOT_FOUND, no pointer.
  CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
  fn = &status;
  CHECK(cuGetProcAddress("cuNoSuchFunction", &fn, 13000, 0, &status) == CUDA_ERROR_NOT_FOUND);
  CHECK(fn == nullptr && status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  fn = &status;
  CHECK(cuGetProcAddress("cuMemAlloc_v2", &fn, 13000, 0, &status) == CUDA_ERROR_NOT_FOUND);
  CHECK(fn == nullptr && status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  fn = &status;
  CHECK(cuGetProcAddress("cuCtxCreate", &fn, 1000, 0, &status) == CUDA_ERROR_NOT_FOUND);
  CHECK(fn == nullptr && status == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
  // A version newer than the driver's (13.0), a NULL name, an unknown flag.
  CHECK(cuGetProcAddress("cuInit", &fn, 13010, 0, &status) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuGetProcAddress(nullptr, &fn, 13000, 0, &status) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuGetProcAddress("cuInit", &fn, 13000, 4, &status) == CUDA_ERROR_INVALID_VALUE);
  // CUDA 11.3's form, without the status.
  auto v1 = reinterpret_cast<PFN_cuGetProcAddress_v11030>(driver_symbol("cuGetProcAddress"));
  CHECK(v1 != nullptr);
  CU_OK(v1("cuMemAlloc", &fn, 11030, 0));
  CHECK(fn == driver_symbol("cuMemAlloc_v2"));
  CHECK(v1("cuNoSuchFunction", &fn, 11030, 0) == CUDA_ERROR_NOT_FOUND && fn == nullptr);

  // The pointers work as their versions do: CUDA 12.5's cuCtxCreate takes
  // CUctxCreateParams, 3.2's takes none, and 2.0's is not supported here.
  CUdevice dev;
  CU_OK(cuDeviceGet(&dev, 0));
  CUctxCreateParams params;
  std::memset(&params, 0, sizeof params);
  CUcontext ctx = nullptr;
  CU_OK(cuGetProcAddress("cuCtxCreate", &fn, 13000, 0, nullptr));
  CU_OK(reinterpret_cast<PFN_cuCtxCreate_v12050>(fn)(&ctx, &params, 0, dev));
  CU_OK(cuGetProcAddress("cuCtxCreate", &fn, 3020, 0, nullptr));
  CU_OK(reinterpret_cast<PFN_cuCtxCreate_v3020>(fn)(&ctx, 0, dev));
  CU_OK(cuGetProcAddress("cuCtxCreate", &fn, 2000, 0, nullptr));
  CHECK(reinterpret_cast<PFN_cuCtxCreate_v3020>(fn)(&ctx, 0, dev) == CUDA_ERROR_NOT_SUPPORTED);

  // The runtime asks the same driver, for its own version (13.0) or a given one;
  // an unknown symbol is no error there, only a NULL pointer and a status.
  cudaDriverEntryPointQueryResult rt_status = cudaDriverEntryPointSymbolNotFound;
  CUDA_OK(cudaGetDriverEntryPoint("cuMemAlloc", &fn, cudaEnableDefault, &rt_status));
  CHECK(rt_status == cudaDriverEntryPointSuccess && fn == driver_symbol("cuMemAlloc_v2"));
  CUdeviceptr p = 0;
  CU_OK(reinterpret_cast<PFN_cuMemAlloc_v3020>(fn)(&p, 4096));
  CHECK(p != 0);
  CUDA_OK(cudaFree(reinterpret_cast<void*>(p)));
  CUDA_OK(cudaGetDriverEntryPointByVersion("cuCtxCreate", &fn, 11040, cudaEnableDefault,
                                           &rt_status));
  CHECK(rt_status == cudaDriverEntryPointSuccess && fn == driver_symbol("cuCtxCreate_v3"));
  CUDA_OK(cudaGetDriverEntryPointByVersion("cuStreamSynchronize", &fn, 13000,
                                           cudaEnablePerThreadDefaultStream, &rt_status));
  CHECK(fn == driver_symbol("cuStreamSynchronize_ptsz"));
  CUDA_OK(cudaGetDriverEntryPoint("cuNoSuchFunction", &fn, cudaEnableDefault, &rt_status));
  CHECK(fn == nullptr && rt_status == cudaDriverEntryPointSymbolNotFound);
  CUDA_OK(cudaGetDriverEntryPointByVersion("cuCtxCreate", &fn, 1000, 0, &rt_status));
  CHECK(fn == nullptr && rt_status == cudaDriverEntryPointVersionNotSufficent);
  CHECK(cudaGetDriverEntryPointByVersion("cuInit", &fn, 13010, 0, &rt_status) ==
        cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  std::printf("PASS\n");
  return 0;
}
