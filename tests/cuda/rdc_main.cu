// A program of two translation units built with nvcc -rdc=true (issue 13):
// its kernels call device functions and use device variables defined in
// rdc_lib.cu, so only the device-linked program has all of its code; the
// simulator links the PTX of both units. Checks against the host:
//  - main_kernel: out[i] = shifted(i) + weighted(i, i) = (i + 1000) + i * w[i % 4]
//    with w = {0.5, 1, 2, 4} as rdc_lib.cu initializes it, truncated to int;
//  - the library's own kernel: out[i] = i + 1000;
//  - `calls` counts every shifted() call of both kernels (n + 32), read through
//    cudaMemcpyFromSymbol from this unit, where it is only declared extern;
//    `offset` written with cudaMemcpyToSymbol here is what the library reads.
// With the argument `no-image` (a build with cubins only) the first launch must
// fail with cudaErrorNoKernelImageForDevice and the program prints PASS after it.
#include <cstdio>
#include <cstring>
#include <vector>

#include "check.h"

extern __device__ int offset;
extern __device__ unsigned long long calls;
extern __device__ int shifted(int x);
extern __device__ float weighted(float x, int k);
__global__ void lib_kernel(int* out);

static __device__ __noinline__ int unit_id() {
  return 1;
}

__global__ void main_kernel(int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) printf("main unit %d\n", unit_id());
  if (i < n) out[i] = shifted(i) + static_cast<int>(weighted(static_cast<float>(i), i));
}

int main(int argc, char** argv) {
  const bool no_image = argc > 1 && std::strcmp(argv[1], "no-image") == 0;
  const int n = 200;
  int* d = nullptr;
  CUDA_OK(cudaMalloc(&d, n * sizeof(int)));
  main_kernel<<<(n + 63) / 64, 64>>>(d, n);
  if (no_image) {
    CHECK(cudaGetLastError() == cudaErrorNoKernelImageForDevice);
    std::printf("no image: the launch fails with cudaErrorNoKernelImageForDevice\nPASS\n");
    return 0;
  }
  CUDA_OK(cudaGetLastError());
  std::vector<int> out(n);
  CUDA_OK(cudaMemcpy(out.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  const float w[4] = {0.5f, 1.0f, 2.0f, 4.0f};
  for (int i = 0; i < n; ++i)
    CHECK(out[i] == (i + 1000) + static_cast<int>(static_cast<float>(i) * w[i % 4]));

  const int new_offset = 7;
  CUDA_OK(cudaMemcpyToSymbol(offset, &new_offset, sizeof new_offset));
  lib_kernel<<<1, 32>>>(d);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaMemcpy(out.data(), d, 32 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i) CHECK(out[i] == i + 7);
  unsigned long long count = 0;
  CUDA_OK(cudaMemcpyFromSymbol(&count, calls, sizeof count));
  CHECK(count == static_cast<unsigned long long>(n + 32));
  CUDA_OK(cudaFree(d));
  std::printf("both units' kernels match the host; shifted() ran %llu times\nPASS\n", count);
  return 0;
}
