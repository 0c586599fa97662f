// Tiled matrix multiply fed by asynchronous global-to-shared copies (the
// globalToShmemAsyncCopy pattern): 16x16 tiles, (1) a four-stage
// cuda::pipeline in which a quarter of the threads copy 16-byte chunks with
// cuda::memcpy_async, and (2) a single-stage version in which every thread
// copies one float with __pipeline_memcpy_async (cp.async of 4 bytes). Both
// results are checked against a host multiply (double sums) to a relative 1e-4.
// Usage: async_copy_matmul [n] [iterations]   (default 1280, 1; n a multiple of 16)
#include <cuda_pipeline.h>
#include <cuda/pipeline>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"

constexpr int kTile = 16, kStages = 4;

__global__ void multiply_staged(float* c, const float* a, const float* b, int n) {
  __shared__ alignas(16) float as[kStages][kTile][kTile];
  __shared__ alignas(16) float bs[kStages][kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * kTile, col = blockIdx.x * kTile;
  const int tiles = n / kTile;
  const bool copier = tx * 4 < kTile;
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  const auto chunk = cuda::aligned_size_t<16>(16);
  int fetched = 0;
  float sum = 0;
  for (int t = 0; t < tiles; ++t) {
    for (; fetched < tiles && fetched < t + kStages; ++fetched) {
      pipe.producer_acquire();
      if (copier) {
        const int s = fetched % kStages;
        cuda::memcpy_async(&as[s][ty][tx * 4], &a[(row + ty) * n + fetched * kTile + tx * 4], chunk,
                           pipe);
        cuda::memcpy_async(&bs[s][ty][tx * 4], &b[(fetched * kTile + ty) * n + col + tx * 4], chunk,
                           pipe);
      }
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    __syncthreads();
    const int s = t % kStages;
#pragma unroll
    for (int k = 0; k < kTile; ++k) sum += as[s][ty][k] * bs[s][k][tx];
    pipe.consumer_release();
    __syncthreads();  // stage s is refilled kStages tiles later
  }
  c[(row + ty) * n + col + tx] = sum;
}

__global__ void multiply_single(float* c, const float* a, const float* b, int n) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * kTile, col = blockIdx.x * kTile;
  float sum = 0;
  for (int t = 0; t < n; t += kTile) {
    __pipeline_memcpy_async(&as[ty][tx], &a[(row + ty) * n + t + tx], sizeof(float));
    __pipeline_memcpy_async(&bs[ty][tx], &b[(t + ty) * n + col + tx], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) sum += as[ty][k] * bs[k][tx];
    __syncthreads();
  }
  c[(row + ty) * n + col + tx] = sum;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1280;
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 1;
  CHECK(n > 0 && n % kTile == 0 && iterations > 0);
  const size_t bytes = size_t(n) * n * sizeof(float);
  std::vector<float> a(size_t(n) * n), b(size_t(n) * n), got(size_t(n) * n);
  unsigned r = 1;
  auto next = [&] { return float((r = r * 1664525u + 1013904223u) >> 9) / float(1 << 23) - 0.5f; };
  for (float& v : a) v = next();
  for (float& v : b) v = next();
  float *d_a, *d_b, *d_c;
  CUDA_OK(cudaMalloc(&d_a, bytes));
  CUDA_OK(cudaMalloc(&d_b, bytes));
  CUDA_OK(cudaMalloc(&d_c, bytes));
  CUDA_OK(cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_b, b.data(), bytes, cudaMemcpyHostToDevice));
  // Host reference, rows in order, k inner in double.
  std::vector<double> want(size_t(n) * n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      const double x = a[size_t(i) * n + k];
      const float* brow = &b[size_t(k) * n];
      double* out = &want[size_t(i) * n];
      for (int j = 0; j < n; ++j) out[j] += x * brow[j];
    }
  const dim3 block(kTile, kTile), grid(n / kTile, n / kTile);
  for (int variant = 0; variant < 2; ++variant) {
    CUDA_OK(cudaMemset(d_c, 0, bytes));
    const auto t0 = std::chrono::steady_clock::now();
    for (int it = 0; it < iterations; ++it) {
      if (variant == 0)
        multiply_staged<<<grid, block>>>(d_c, d_a, d_b, n);
      else
        multiply_single<<<grid, block>>>(d_c, d_a, d_b, n);
    }
    CUDA_OK(cudaDeviceSynchronize());
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CUDA_OK(cudaMemcpy(got.data(), d_c, bytes, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t k = 0; k < got.size(); ++k)
      if (std::fabs(got[k] - want[k]) > 1e-4 * (1 + std::fabs(want[k])) && bad++ < 5)
        std::fprintf(stderr, "%s: C[%zu] = %.8g, expected %.8g\n", variant ? "single" : "staged", k,
                     got[k], want[k]);
    CHECK(bad == 0);
    std::printf("async-copy matmul (%s): %dx%d, %d iterations: %.2f s wall\n",
                variant ? "cp.async 4 B, single stage" : "memcpy_async 16 B, 4 stages", n, n,
                iterations, wall);
  }
  CUDA_OK(cudaFree(d_a));
  CUDA_OK(cudaFree(d_b));
  CUDA_OK(cudaFree(d_c));
  std::printf("PASS\n");
  return 0;
}
