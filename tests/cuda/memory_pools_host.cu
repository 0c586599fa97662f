// Stream-ordered pools of pinned host memory (CUDA 12.2+: cudaMemPoolCreate at
// cudaMemLocationTypeHost or HostNuma): allocations come from host pages the
// host reads and writes directly and kernels reach as they reach
// cudaMallocHost's; they cost no device memory; freeing returns them to the
// pool and trimming gives the pages back.
#include <cuda_runtime.h>

#include "check.h"

__global__ void triple_plus(int* x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = 3 * x[i] + 1;
}

static cudaMemPoolProps host_props(cudaMemLocationType type, int id) {
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = cudaMemHandleTypeNone;
  props.location.type = type;
  props.location.id = id;
  return props;
}

static unsigned long long attribute(cudaMemPool_t pool, cudaMemPoolAttr attr) {
  unsigned long long v = ~0ull;
  if (cudaMemPoolGetAttribute(pool, attr, &v) != cudaSuccess) return ~0ull;
  return v;
}

int main() {
  std::size_t free_before = 0, total = 0;
  CUDA_OK(cudaMemGetInfo(&free_before, &total));
  cudaStream_t s;
  CUDA_OK(cudaStreamCreate(&s));
  for (cudaMemLocationType type : {cudaMemLocationTypeHost, cudaMemLocationTypeHostNuma}) {
    const cudaMemPoolProps props = host_props(type, 0);
    cudaMemPool_t pool;
    CUDA_OK(cudaMemPoolCreate(&pool, &props));
    const int n = 100000;  // 400000 bytes: one 2 MiB chunk
    int* x = nullptr;
    CUDA_OK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&x), n * sizeof(int), pool, s));
    CUDA_OK(cudaStreamSynchronize(s));
    CHECK(x != nullptr);
    cudaPointerAttributes a;
    CUDA_OK(cudaPointerGetAttributes(&a, x));
    CHECK(a.type == cudaMemoryTypeHost);
    // Host memory: the host writes it directly, a kernel updates it, the host reads it.
    for (int i = 0; i < n; ++i) x[i] = i;
    triple_plus<<<64, 256, 0, s>>>(x, n);
    CUDA_OK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) CHECK(x[i] == 3 * i + 1);
    // A copy from it to device memory and back through the device.
    int* d = nullptr;
    CUDA_OK(cudaMalloc(&d, n * sizeof(int)));
    CUDA_OK(cudaMemcpyAsync(d, x, n * sizeof(int), cudaMemcpyDefault, s));
    triple_plus<<<64, 256, 0, s>>>(d, n);
    CUDA_OK(cudaMemcpyAsync(x, d, n * sizeof(int), cudaMemcpyDefault, s));
    CUDA_OK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) CHECK(x[i] == 3 * (3 * i + 1) + 1);
    CUDA_OK(cudaFree(d));
    // The pool holds one 2 MiB chunk and uses the request rounded to its alignment.
    CHECK(attribute(pool, cudaMemPoolAttrReservedMemCurrent) == 2u << 20);
    CHECK(attribute(pool, cudaMemPoolAttrUsedMemCurrent) >= n * sizeof(int));
    CHECK(attribute(pool, cudaMemPoolAttrUsedMemCurrent) < n * sizeof(int) + 1024);
    // No device memory was spent on it (the cudaMalloc above was freed).
    std::size_t free_now = 0;
    CUDA_OK(cudaMemGetInfo(&free_now, &total));
    CHECK(free_now == free_before);
    // Not a device's pool, and not for cudaFreeHost.
    CHECK(cudaDeviceSetMemPool(0, pool) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaFreeHost(x) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CUDA_OK(cudaFreeAsync(x, s));
    CUDA_OK(cudaStreamSynchronize(s));
    CHECK(attribute(pool, cudaMemPoolAttrUsedMemCurrent) == 0);
    CUDA_OK(cudaMemPoolTrimTo(pool, 0));
    CHECK(attribute(pool, cudaMemPoolAttrReservedMemCurrent) == 0);
    CUDA_OK(cudaMemPoolDestroy(pool));
  }
  // The host's default pool (CUDA 13): the current host pool until another is set.
  cudaMemLocation host = {};
  host.type = cudaMemLocationTypeHost;
  cudaMemPool_t host_default = nullptr, current = nullptr, device_default = nullptr;
  CUDA_OK(cudaMemGetDefaultMemPool(&host_default, &host, cudaMemAllocationTypePinned));
  CUDA_OK(cudaDeviceGetDefaultMemPool(&device_default, 0));
  CHECK(host_default != nullptr && host_default != device_default);
  CUDA_OK(cudaMemGetMemPool(&current, &host, cudaMemAllocationTypePinned));
  CHECK(current == host_default);
  int* y = nullptr;
  CUDA_OK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&y), 4096, host_default, s));
  CUDA_OK(cudaStreamSynchronize(s));
  cudaPointerAttributes ya;
  CUDA_OK(cudaPointerGetAttributes(&ya, y));
  CHECK(ya.type == cudaMemoryTypeHost);
  y[1023] = 7;  // the host writes it directly
  CUDA_OK(cudaFreeAsync(y, s));
  const cudaMemPoolProps mine_props = host_props(cudaMemLocationTypeHost, 0);
  cudaMemPool_t mine;
  CUDA_OK(cudaMemPoolCreate(&mine, &mine_props));
  CUDA_OK(cudaMemSetMemPool(&host, cudaMemAllocationTypePinned, mine));
  CUDA_OK(cudaMemGetMemPool(&current, &host, cudaMemAllocationTypePinned));
  CHECK(current == mine);
  // A device pool is not the host's; the default pool cannot be destroyed.
  CHECK(cudaMemSetMemPool(&host, cudaMemAllocationTypePinned, device_default) ==
        cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaMemPoolDestroy(host_default) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  // Destroying the current host pool makes the default current again.
  CUDA_OK(cudaMemPoolDestroy(mine));
  CUDA_OK(cudaMemGetMemPool(&current, &host, cudaMemAllocationTypePinned));
  CHECK(current == host_default);
  CUDA_OK(cudaStreamSynchronize(s));

  // The simulated host has one NUMA node, 0.
  const cudaMemPoolProps numa1 = host_props(cudaMemLocationTypeHostNuma, 1);
  cudaMemPool_t pool;
  CHECK(cudaMemPoolCreate(&pool, &numa1) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CUDA_OK(cudaStreamDestroy(s));
  std::printf("PASS\n");
  return 0;
}
