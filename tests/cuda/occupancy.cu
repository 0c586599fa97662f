// Occupancy and function attributes. Expected values are worked out by hand
// from the H100's limits (32 CTAs, 2048 threads, 64 K registers and 228 KiB
// shared memory per SM, 1 KiB reserved per CTA) and the simulator's stated
// assumption of 32 registers per thread.
#include "check.h"

__global__ void plain(float* x) {
  x[threadIdx.x] += 1.0f;
}

__global__ void tiled(float* x) {
  __shared__ float tile[256];
  tile[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = tile[255 - threadIdx.x];
}

__global__ void dynamic(float* x) {
  extern __shared__ float buffer[];
  buffer[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = buffer[0];
}

int main() {
  int blocks = 0;
  CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, plain, 256, 0));
  CHECK(blocks == 8);  // 2048 threads / 256
  CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, plain, 1024, 0));
  CHECK(blocks == 2);
  CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, plain, 32, 0));
  CHECK(blocks == 32);  // the CTA limit binds before warps (64) and registers (64)
  CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, plain, 48, 0));
  CHECK(blocks == 32);  // 2 warps per CTA: 32 CTAs by every limit
  CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, dynamic, 128, 48 << 10));
  CHECK(blocks == 4);  // 228 KiB / (48 KiB + 1 KiB) = 4.65
  CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tiled, 256, 0));
  CHECK(blocks == 8);  // 1 KiB static + 1 KiB reserved: 114 by shared memory, 8 by threads

  int min_grid = 0, block = 0;
  CUDA_OK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, plain, 0, 0));
  std::printf("max potential block size %d, min grid %d\n", block, min_grid);
  CHECK(block > 0 && block <= 1024 && min_grid == 132 * (2048 / block));

  cudaFuncAttributes attr;
  CUDA_OK(cudaFuncGetAttributes(&attr, tiled));
  CHECK(attr.sharedSizeBytes == 1024);
  CHECK(attr.maxThreadsPerBlock == 1024);
  CHECK(attr.ptxVersion == 90);
  CHECK(attr.maxDynamicSharedSizeBytes == 48 * 1024 - 1024);

  // More than 48 KiB of dynamic shared memory needs the opt-in attribute.
  float* x = nullptr;
  CUDA_OK(cudaMalloc(&x, 1024 * sizeof(float)));
  dynamic<<<1, 128, 64 << 10>>>(x);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CUDA_OK(cudaFuncSetAttribute(dynamic, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 << 10));
  dynamic<<<1, 128, 64 << 10>>>(x);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  CHECK(cudaFuncSetAttribute(dynamic, cudaFuncAttributeMaxDynamicSharedMemorySize, 300 << 10) ==
        cudaErrorInvalidValue);

  int sms = 0, major = 0;
  CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CUDA_OK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  CHECK(sms == 132 && major == 9);
  std::printf("PASS\n");
  return 0;
}
