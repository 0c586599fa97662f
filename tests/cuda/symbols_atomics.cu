// Constant memory and symbol copies, __device__ variables, atomics and device printf.
#include <cmath>
#include <vector>

#include "check.h"

__constant__ float coeffs[4];
__device__ unsigned long long total;
__device__ int maximum;
__device__ int histogram[8];

__global__ void poly(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  y[i] = ((coeffs[3] * v + coeffs[2]) * v + coeffs[1]) * v + coeffs[0];
}

__global__ void reduce(const int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(&total, static_cast<unsigned long long>(v[i]));
  atomicMax(&maximum, v[i]);
  atomicAdd(&histogram[v[i] & 7], 1);
  if (i == n - 1) printf("device says: last value %d from block %d\n", v[i], blockIdx.x);
}

int main() {
  const float c[4] = {1.0f, -2.0f, 0.5f, 0.25f};
  CUDA_OK(cudaMemcpyToSymbol(coeffs, c, sizeof c));
  float back[4] = {};
  CUDA_OK(cudaMemcpyFromSymbol(back, coeffs, sizeof back));
  for (int i = 0; i < 4; ++i) CHECK(back[i] == c[i]);
  size_t size = 0;
  CUDA_OK(cudaGetSymbolSize(&size, coeffs));
  CHECK(size == sizeof c);
  // Writing past a symbol's end is refused.
  CHECK(cudaMemcpyToSymbol(coeffs, c, sizeof c, 4) == cudaErrorInvalidValue);

  const int n = 3000;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) x[i] = (i - 1500) / 300.0f;
  float *dx = nullptr, *dy = nullptr;
  CUDA_OK(cudaMalloc(&dx, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&dy, n * sizeof(float)));
  CUDA_OK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  poly<<<(n + 255) / 256, 256>>>(dx, dy, n);
  CUDA_OK(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    const float v = x[i];
    const float want = ((c[3] * v + c[2]) * v + c[1]) * v + c[0];
    if (std::fabs(y[i] - want) > 1e-5f * (1 + std::fabs(want))) {
      std::fprintf(stderr, "y[%d] = %g, expected %g\n", i, y[i], want);
      return 1;
    }
  }

  std::vector<int> v(n);
  unsigned long long sum = 0;
  int mx = 0, hist[8] = {};
  for (int i = 0; i < n; ++i) {
    v[i] = (i * 7919) % 10007;
    sum += v[i];
    mx = v[i] > mx ? v[i] : mx;
    ++hist[v[i] & 7];
  }
  int* dv = nullptr;
  CUDA_OK(cudaMalloc(&dv, n * sizeof(int)));
  CUDA_OK(cudaMemcpy(dv, v.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  const unsigned long long zero = 0;
  CUDA_OK(cudaMemcpyToSymbol(total, &zero, sizeof zero));
  reduce<<<(n + 127) / 128, 128>>>(dv, n);
  CUDA_OK(cudaDeviceSynchronize());
  std::printf("host after sync\n");
  unsigned long long got_sum = 0;
  int got_max = 0, got_hist[8] = {};
  CUDA_OK(cudaMemcpyFromSymbol(&got_sum, total, sizeof got_sum));
  CUDA_OK(cudaMemcpyFromSymbol(&got_max, maximum, sizeof got_max));
  CUDA_OK(cudaMemcpyFromSymbol(got_hist, histogram, sizeof got_hist));
  CHECK(got_sum == sum);
  CHECK(got_max == mx);
  for (int b = 0; b < 8; ++b) CHECK(got_hist[b] == hist[b]);
  // The symbol's address works like any device pointer.
  int* hist_ptr = nullptr;
  CUDA_OK(cudaGetSymbolAddress(reinterpret_cast<void**>(&hist_ptr), histogram));
  int first = -1;
  CUDA_OK(cudaMemcpy(&first, hist_ptr, sizeof first, cudaMemcpyDeviceToHost));
  CHECK(first == hist[0]);
  std::printf("PASS\n");
  return 0;
}
