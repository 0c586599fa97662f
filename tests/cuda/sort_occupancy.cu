// Occupancy of kernels whose module holds many kernels with large shared
// memory (issue 13): CUB's radix sort module declares more .shared in all its
// kernels together than an SM has, and each kernel used to be charged for all
// of it, so occupancy came out 0 and the sort launched an empty grid. Each
// kernel is charged for the module's .shared plus its own only.
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <algorithm>
#include <cstdio>
#include <cub/device/device_radix_sort.cuh>
#include <vector>

#include "check.h"

constexpr int kTile = 10240;  // floats: 40 KiB of shared memory per kernel

// Five kernels of 40 KiB each here and reverse_counted below: 240 KiB
// together, more than the 228 KiB of an SM.
#define REVERSING_KERNEL(NAME, ADD)                                                         \
  __global__ void NAME(float* x) {                                                          \
    __shared__ float tile[kTile];                                                           \
    for (int i = threadIdx.x; i < kTile; i += blockDim.x) tile[i] = x[i];                   \
    __syncthreads();                                                                        \
    for (int i = threadIdx.x; i < kTile; i += blockDim.x) x[i] = tile[kTile - 1 - i] + ADD; \
  }
REVERSING_KERNEL(reverse0, 0)
REVERSING_KERNEL(reverse1, 1)
REVERSING_KERNEL(reverse2, 2)
REVERSING_KERNEL(reverse3, 3)
REVERSING_KERNEL(reverse4, 4)

// A file-scope __shared__ variable lives in the module's region; a kernel's
// own tile must not overlap it.
__shared__ int g_count;
__global__ void reverse_counted(float* x, int* count) {
  __shared__ float tile[kTile];
  if (threadIdx.x == 0) g_count = 0;
  for (int i = threadIdx.x; i < kTile; i += blockDim.x) tile[i] = x[i];
  __syncthreads();
  atomicAdd(&g_count, 1);
  __syncthreads();
  for (int i = threadIdx.x; i < kTile; i += blockDim.x) x[i] = tile[kTile - 1 - i];
  if (threadIdx.x == 0) *count = g_count;
}

int main() {
  // H100: 228 KiB = 233472 bytes of shared memory per SM, 1 KiB reserved per
  // CTA: floor(233472 / (40960 + 1024)) = 5 CTAs of 128 threads.
  const void* kernels[] = {(const void*)reverse0, (const void*)reverse1, (const void*)reverse2,
                           (const void*)reverse3, (const void*)reverse4};
  for (const void* k : kernels) {
    int blocks = 0;
    CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, 128, 0));
    CHECK(blocks == 5);
    CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, k, 128, 0, 0));
    CHECK(blocks == 5);
    cudaFuncAttributes a;
    CUDA_OK(cudaFuncGetAttributes(&a, k));
    CHECK(a.sharedSizeBytes == kTile * sizeof(float));
  }

  std::vector<float> host(kTile);
  for (int i = 0; i < kTile; ++i) host[i] = static_cast<float>(i);
  float* x = nullptr;
  int* count = nullptr;
  CUDA_OK(cudaMalloc(&x, kTile * sizeof(float)));
  CUDA_OK(cudaMalloc(&count, sizeof(int)));
  CUDA_OK(cudaMemcpy(x, host.data(), kTile * sizeof(float), cudaMemcpyHostToDevice));
  // x[i] = i; reverse1: (kTile-1-i) + 1; reverse4: i + 1 + 4;
  // reverse_counted: (kTile-1-i) + 5.
  reverse1<<<1, 128>>>(x);
  reverse4<<<1, 128>>>(x);
  reverse_counted<<<1, 256>>>(x, count);  // a third reversal; 256 threads count themselves
  int counted = 0;
  CUDA_OK(cudaMemcpy(host.data(), x, kTile * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(&counted, count, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(counted == 256);
  for (int i = 0; i < kTile; ++i) CHECK(host[i] == static_cast<float>(kTile - 1 - i) + 5.0f);
  CUDA_OK(cudaFree(x));
  CUDA_OK(cudaFree(count));

  // CUB's radix sort and thrust::sort of 1e5 keys against std::sort.
  const int n = 100000;
  std::vector<unsigned> keys(n);
  unsigned state = 12345u;
  for (unsigned& k : keys) k = state = state * 1664525u + 1013904223u;  // LCG
  std::vector<unsigned> want = keys;
  std::sort(want.begin(), want.end());

  thrust::device_vector<unsigned> in(keys.begin(), keys.end()), out(n);
  std::size_t temp_bytes = 0;
  CUDA_OK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, thrust::raw_pointer_cast(in.data()),
                                         thrust::raw_pointer_cast(out.data()), n));
  thrust::device_vector<unsigned char> temp(temp_bytes);
  CUDA_OK(cub::DeviceRadixSort::SortKeys(thrust::raw_pointer_cast(temp.data()), temp_bytes,
                                         thrust::raw_pointer_cast(in.data()),
                                         thrust::raw_pointer_cast(out.data()), n));
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<unsigned> got(n);
  thrust::copy(out.begin(), out.end(), got.begin());
  CHECK(got == want);

  thrust::sort(in.begin(), in.end());
  CUDA_OK(cudaDeviceSynchronize());
  thrust::copy(in.begin(), in.end(), got.begin());
  CHECK(got == want);
  std::printf("PASS\n");
  return 0;
}
