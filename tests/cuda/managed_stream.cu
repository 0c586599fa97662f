// Managed memory streamed by kernels (the unified-memory throughput pattern):
// a 16 Mi-float cudaMallocManaged buffer, prefetched and advised as the
// samples do, updated by a grid-stride kernel (x = x * a + b) several times
// with the host reading and changing part of it between launches. Checked
// against the same updates computed on the host (exact: the multiplier and
// addend keep every value an integer below 2^24).
// Usage: managed_stream [elements] [passes]   (default 16 Mi, 8)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"

__global__ void update(float* x, size_t n, float a, float b) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    x[i] = x[i] * a + b;
}

int main(int argc, char** argv) {
  const size_t n = argc > 1 ? size_t(std::atol(argv[1])) : size_t(16) << 20;
  const int passes = argc > 2 ? std::atoi(argv[2]) : 8;
  CHECK(n > 0 && passes > 0);
  float* x = nullptr;
  CUDA_OK(cudaMallocManaged(&x, n * sizeof(float)));
  std::vector<float> want(n);
  for (size_t i = 0; i < n; ++i) want[i] = x[i] = float(i % 1000);
  int device = 0;
  CUDA_OK(cudaGetDevice(&device));
  cudaMemLocation gpu = {};
  gpu.type = cudaMemLocationTypeDevice;
  gpu.id = device;
  CUDA_OK(cudaMemAdvise(x, n * sizeof(float), cudaMemAdviseSetPreferredLocation, gpu));
  CUDA_OK(cudaMemPrefetchAsync(x, n * sizeof(float), gpu, 0, 0));
  cudaStream_t s;
  CUDA_OK(cudaStreamCreate(&s));
  const auto t0 = std::chrono::steady_clock::now();
  for (int p = 0; p < passes; ++p) {
    // a in {1, 2}, b small: values stay integers below 2^24, so float is exact.
    const float a = p % 3 == 0 ? 2.0f : 1.0f, b = float(p + 1);
    update<<<1024, 256, 0, s>>>(x, n, a, b);
    CUDA_OK(cudaStreamSynchronize(s));
    for (size_t i = 0; i < n; ++i) want[i] = want[i] * a + b;
    // The host touches every 4096th element between launches.
    for (size_t i = 0; i < n; i += 4096) {
      if (x[i] != want[i]) {
        std::fprintf(stderr, "pass %d: element %zu is %g, expected %g\n", p, i, x[i], want[i]);
        return 1;
      }
      x[i] = want[i] = float(p);
    }
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (size_t i = 0; i < n; ++i)
    if (x[i] != want[i]) {
      std::fprintf(stderr, "element %zu is %g, expected %g\n", i, x[i], want[i]);
      return 1;
    }
  std::printf("managed stream: %zu floats, %d passes: %.2f s wall (%.1f M elements/s)\n", n, passes,
              wall, double(n) * passes / wall / 1e6);
  CUDA_OK(cudaStreamDestroy(s));
  CUDA_OK(cudaFree(x));
  std::printf("PASS\n");
  return 0;
}
