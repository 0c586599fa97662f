// The runtime and the driver API share the thread's current context: the
// runtime initializes the driver and makes the current device's primary
// context current (cudaSetDevice, cudaFree(0), any first call), and a context
// the driver makes current decides the runtime's device. Runs on two GPUs
// (platforms/two-gpu-nvlink.yaml).
#include <cuda_runtime.h>

#include <thread>

#include "cu_check.h"

// A new host thread has no current context until its first runtime call,
// which makes device 0's primary context current (a new thread starts on device 0).
static int fresh_thread() {
  CUcontext none = reinterpret_cast<CUcontext>(1);
  CU_OK(cuCtxGetCurrent(&none));
  CHECK(none == nullptr);
  CHECK(cuCtxGetDevice(nullptr) == CUDA_ERROR_INVALID_CONTEXT);
  CUDA_OK(cudaFree(nullptr));
  CUdevice dev = -1;
  CU_OK(cuCtxGetDevice(&dev));
  CHECK(dev == 0);
  return 0;
}

int main() {
  CUdevice dev = -1;
  // Nothing has initialized the driver yet.
  CHECK(cuCtxGetDevice(&dev) == CUDA_ERROR_NOT_INITIALIZED);

  int count = 0;
  CUDA_OK(cudaGetDeviceCount(&count));
  CHECK(count == 2);
  CUDA_OK(cudaSetDevice(1));
  CU_OK(cuCtxGetDevice(&dev));
  CHECK(dev == 1);
  CUcontext ctx1 = nullptr;
  CU_OK(cuCtxGetCurrent(&ctx1));
  CHECK(ctx1 != nullptr);
  CUcontext primary1 = nullptr;
  CU_OK(cuDevicePrimaryCtxRetain(&primary1, 1));
  CHECK(primary1 == ctx1);

  // The driver makes device 0's primary context current: the runtime follows.
  CUcontext primary0 = nullptr;
  CU_OK(cuDevicePrimaryCtxRetain(&primary0, 0));
  CHECK(primary0 != primary1);
  CU_OK(cuCtxGetDevice_v2(&dev, primary0));
  CHECK(dev == 0);
  CU_OK(cuCtxGetDevice_v2(&dev, nullptr));  // the current context, device 1's
  CHECK(dev == 1);
  CU_OK(cuCtxSetCurrent(primary0));
  int runtime_device = -1;
  CUDA_OK(cudaGetDevice(&runtime_device));
  CHECK(runtime_device == 0);

  // Driver allocations land in the context the runtime made current.
  CUDA_OK(cudaSetDevice(1));
  CUdeviceptr p = 0;
  CU_OK(cuMemAlloc(&p, 1024));
  cudaPointerAttributes attributes;
  CUDA_OK(cudaPointerGetAttributes(&attributes, reinterpret_cast<void*>(p)));
  CHECK(attributes.device == 1);
  CU_OK(cuMemFree(p));

  int thread_result = 1;
  std::thread t([&] { thread_result = fresh_thread(); });
  t.join();
  CHECK(thread_result == 0);
  std::printf("PASS\n");
  return 0;
}
