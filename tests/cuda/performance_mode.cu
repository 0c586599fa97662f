// Kernels under the GPU's performance model: a shared-memory reduction and a
// tiled transpose, checked against host references, with the event-timed
// kernel duration printed for performance_mode.sh to compare with the model's.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "check.h"

__global__ void reduce_kernel(const int* in, int n, int* total) {
  __shared__ int partial[256];
  int v = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, partial[0]);
}

__global__ void transpose_kernel(const float* in, float* out, int n) {
  __shared__ float tile[32][33];
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * n + x];
  __syncthreads();
  const int tx = blockIdx.y * 32 + threadIdx.x, ty = blockIdx.x * 32 + threadIdx.y;
  out[ty * n + tx] = tile[threadIdx.x][threadIdx.y];
}

int main() {
  const int n = 1 << 16;
  std::vector<int> values(n);
  long long expect = 0;
  for (int i = 0; i < n; ++i) expect += values[i] = (i * 7) % 13 - 6;
  int *d_in, *d_total;
  CUDA_OK(cudaMalloc(&d_in, n * sizeof(int)));
  CUDA_OK(cudaMalloc(&d_total, sizeof(int)));
  CUDA_OK(cudaMemcpy(d_in, values.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(d_total, 0, sizeof(int)));
  cudaEvent_t start, stop;
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&stop));
  CUDA_OK(cudaEventRecord(start));
  reduce_kernel<<<32, 256>>>(d_in, n, d_total);
  CUDA_OK(cudaEventRecord(stop));
  CUDA_OK(cudaEventSynchronize(stop));
  float ms = 0;
  CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
  int total = 0;
  CUDA_OK(cudaMemcpy(&total, d_total, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(total == expect);
  std::printf("reduce_ms=%.9f\n", ms);

  const int m = 128;
  std::vector<float> a(m * m), t(m * m);
  for (int i = 0; i < m * m; ++i) a[i] = static_cast<float>(i) * 0.5f;
  float *d_a, *d_t;
  CUDA_OK(cudaMalloc(&d_a, m * m * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_t, m * m * sizeof(float)));
  CUDA_OK(cudaMemcpy(d_a, a.data(), m * m * sizeof(float), cudaMemcpyHostToDevice));
  transpose_kernel<<<dim3(m / 32, m / 32), dim3(32, 32)>>>(d_a, d_t, m);
  CUDA_OK(cudaMemcpy(t.data(), d_t, m * m * sizeof(float), cudaMemcpyDeviceToHost));
  for (int y = 0; y < m; ++y)
    for (int x = 0; x < m; ++x) CHECK(t[x * m + y] == a[y * m + x]);
  std::printf("PASS\n");
  return 0;
}
