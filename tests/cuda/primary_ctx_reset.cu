// cuDevicePrimaryCtxReset: as the driver documents, the reset destroys the
// primary context's allocations, streams and events, and the next use works
// from a clean state; it is also how a program recovers from a kernel's sticky
// fault. Checked: the old pointer is unknown afterwards (cuPointerGetAttribute
// and cuMemFree fail), its memory is counted free again (cuMemGetInfo), old
// stream and event handles are invalid, and new allocations, copies and
// launches work, both after a plain reset and after one that clears a fault;
// cudaDeviceReset does the same to the current device.
#include <cuda.h>
#include <cuda_runtime.h>

#include <vector>

#include "cu_check.h"

__global__ void fill(int* out, int n, int value) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = value + i;
}

__global__ void store(int* p, int value) {
  p[threadIdx.x] = value;
}

// New memory, a launch and a copy back work: out[i] = value + i.
static int fresh_work(int value) {
  const int n = 1024;
  CUdeviceptr p = 0;
  CU_OK(cuMemAlloc(&p, n * sizeof(int)));
  fill<<<4, 256>>>(reinterpret_cast<int*>(p), n, value);
  CUDA_OK(cudaGetLastError());
  std::vector<int> host(n);
  CU_OK(cuMemcpyDtoH(host.data(), p, n * sizeof(int)));
  for (int i = 0; i < n; ++i) CHECK(host[i] == value + i);
  CU_OK(cuMemFree(p));
  return 0;
}

int main() {
  CU_OK(cuInit(0));
  CUdevice dev;
  CU_OK(cuDeviceGet(&dev, 0));
  CUcontext primary = nullptr;
  CU_OK(cuDevicePrimaryCtxRetain(&primary, dev));
  CU_OK(cuCtxSetCurrent(primary));
  std::size_t free_before = 0, total = 0;
  CU_OK(cuMemGetInfo(&free_before, &total));

  // Memory, a stream and an event of the primary context.
  const std::size_t bytes = 1 << 20;
  CUdeviceptr p = 0;
  CU_OK(cuMemAlloc(&p, bytes));
  CU_OK(cuMemsetD8(p, 0x11, bytes));
  CUstream s = nullptr;
  CU_OK(cuStreamCreate(&s, 0));
  CUevent e = nullptr;
  CU_OK(cuEventCreate(&e, 0));
  CU_OK(cuEventRecord(e, s));
  std::size_t free_with = 0;
  CU_OK(cuMemGetInfo(&free_with, &total));
  CHECK(free_with + bytes <= free_before);
  CUcontext owner = nullptr;
  CU_OK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, p));

  CU_OK(cuDevicePrimaryCtxReset(dev));

  // The allocation is gone: not CUDA memory any more, not freeable, counted free.
  CHECK(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, p) ==
        CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemFree(p) == CUDA_ERROR_INVALID_VALUE);
  std::size_t free_after = 0;
  CU_OK(cuMemGetInfo(&free_after, &total));
  CHECK(free_after == free_before);
  // The stream and the event are destroyed.
  CHECK(cuStreamSynchronize(s) == CUDA_ERROR_INVALID_HANDLE);
  CHECK(cuEventSynchronize(e) == CUDA_ERROR_INVALID_HANDLE);
  // Failed driver calls leave the runtime's last error alone.
  CHECK(cudaGetLastError() == cudaSuccess);
  // The context works again: memory, launches, copies.
  if (fresh_work(5)) return 1;

  // A kernel's fault sticks until the reset.
  CUdeviceptr q = 0;
  CU_OK(cuMemAlloc(&q, 64 * sizeof(int)));
  store<<<1, 32>>>(reinterpret_cast<int*>(q) + (1 << 28), 1);
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  CUdeviceptr r = 0;
  CHECK(cuMemAlloc(&r, 16) == CUDA_ERROR_ILLEGAL_ADDRESS);
  CU_OK(cuDevicePrimaryCtxReset_v2(dev));
  CHECK(cuMemFree(q) == CUDA_ERROR_INVALID_VALUE);  // freed by the reset
  CHECK(cudaGetLastError() == cudaSuccess);  // the fault no longer sticks
  if (fresh_work(9)) return 1;

  // cudaDeviceReset does the same to the current device.
  int* d = nullptr;
  CUDA_OK(cudaMalloc(&d, 64 * sizeof(int)));
  store<<<1, 32>>>(d + (1 << 28), 1);
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  CHECK(cudaGetLastError() == cudaErrorIllegalAddress);  // sticky: still there
  CUDA_OK(cudaDeviceReset());
  (void)cudaGetLastError();  // whatever the failed calls before left recorded
  CHECK(cudaGetLastError() == cudaSuccess);  // nothing sticks
  CHECK(cudaFree(d) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  if (fresh_work(13)) return 1;

  // Bad devices are refused.
  CHECK(cuDevicePrimaryCtxReset(-1) == CUDA_ERROR_INVALID_DEVICE);
  int count = 0;
  CU_OK(cuDeviceGetCount(&count));
  CHECK(cuDevicePrimaryCtxReset(count) == CUDA_ERROR_INVALID_DEVICE);
  CU_OK(cuDevicePrimaryCtxRelease(dev));
  std::printf("PASS\n");
  return 0;
}
