// Allocation rounding: a kernel with an off-by-one writes one element past a
// 1 KiB cudaMalloc buffer. The GPU does not fault (the driver rounds
// allocations to 512 bytes and maps them in 2 MiB pages); the simulator lets
// it through with a memory-check warning, unless run with --strict-memory
// (argument "strict"), where it is an illegal address as a memory checker
// would make it. An access outside every mapped page faults in both.
#include <cstdint>
#include <cstring>

#include "check.h"

// The bug: `i <= n` where `i < n` was meant.
__global__ void fill_off_by_one(int* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) a[i] = i;
}

__global__ void read_at(const int* a, long long index, int* out) {
  *out = a[index];
}

__global__ void write_at(int* a, long long index) {
  a[index] = 1;
}

int main(int argc, char** argv) {
  const bool strict = argc > 1 && std::strcmp(argv[1], "strict") == 0;
  // Two 1-byte allocations in a row are one 512-byte granule apart.
  char *x = nullptr, *y = nullptr;
  CUDA_OK(cudaMalloc(&x, 1));
  CUDA_OK(cudaMalloc(&y, 1));
  CHECK(reinterpret_cast<std::uintptr_t>(x) % 512 == 0);
  CHECK(reinterpret_cast<std::uintptr_t>(y) - reinterpret_cast<std::uintptr_t>(x) == 512);

  const int n = 256;  // 1 KiB of ints
  int *a = nullptr, *out = nullptr;
  // `a` last: the bytes after it are the unused rest of its page, not another
  // allocation (as on the GPU, where the next allocation would follow at once).
  CUDA_OK(cudaMalloc(&out, sizeof(int)));
  CUDA_OK(cudaMalloc(&a, n * sizeof(int)));
  fill_off_by_one<<<3, 128>>>(a, n);  // 384 threads; thread 256 (CTA 2, thread 0) is one past
  const cudaError_t e = cudaDeviceSynchronize();
  if (strict) {
    CHECK(e == cudaErrorIllegalAddress);
    std::printf("strict: %s\nPASS\n", cudaGetErrorName(e));
    return 0;
  }
  CUDA_OK(e);
  int host[n];
  CUDA_OK(cudaMemcpy(host, a, sizeof host, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(host[i] == i);
  // The element past the end holds what thread 256 wrote: the memory is there.
  read_at<<<1, 1>>>(a, n, out);
  int past = -1;
  CUDA_OK(cudaMemcpy(&past, out, sizeof past, cudaMemcpyDeviceToHost));
  CHECK(past == n);
  // Host copies stay bounded by the allocation: 1 KiB + 4 bytes is refused.
  int more[n + 1];
  CHECK(cudaMemcpy(more, a, sizeof more, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  cudaGetLastError();
  // 2 MiB further on lies outside every mapped page: a fault, as on the GPU.
  write_at<<<1, 1>>>(a, (2 << 20) / sizeof(int));
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  std::printf("PASS\n");
  return 0;
}
