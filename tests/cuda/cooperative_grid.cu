// A cooperative launch: every CTA is resident, so CTAs wait for each other at
// cooperative_groups' grid barrier. A Jacobi-style iteration over a 1-D array,
// one grid.sync() between sweeps and one around a grid-wide sum each sweep,
// checked step for step against the host. Before cooperative launches ran
// their CTAs together, the kernel stopped at %envreg (the barrier's address)
// and could never pass a grid barrier with CTAs run one after another.
#include <cooperative_groups.h>

#include <cmath>
#include <vector>

#include "check.h"

namespace cg = cooperative_groups;

__global__ void sweeps(float* a, float* b, double* sums, int n, int iterations) {
  cg::grid_group grid = cg::this_grid();
  for (int it = 0; it < iterations; ++it) {
    for (int i = grid.thread_rank(); i < n; i += grid.size()) {
      const float left = i > 0 ? a[i - 1] : 0.0f, right = i + 1 < n ? a[i + 1] : 0.0f;
      b[i] = 0.25f * left + 0.5f * a[i] + 0.25f * right;
    }
    grid.sync();  // every b[] written before anyone reads it
    if (grid.thread_rank() == 0) {
      double s = 0;
      for (int i = 0; i < n; ++i) s += b[i];
      sums[it] = s;
    }
    for (int i = grid.thread_rank(); i < n; i += grid.size()) a[i] = b[i];
    grid.sync();  // a[] complete for the next sweep
  }
}

int main() {
  const int n = 2048, iterations = 10;
  std::vector<float> a(n);
  for (int i = 0; i < n; ++i) a[i] = static_cast<float>((i * 37) % 101);
  float *da = nullptr, *db = nullptr;
  double* dsums = nullptr;
  CUDA_OK(cudaMalloc(&da, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&db, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&dsums, iterations * sizeof(double)));
  CUDA_OK(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  int device = 0, attribute = 0, sms = 0, per_sm = 0;
  CUDA_OK(cudaDeviceGetAttribute(&attribute, cudaDevAttrCooperativeLaunch, device));
  CHECK(attribute == 1);
  CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const int block = 128;
  CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sweeps, block, 0));
  // One CTA per SM: many CTAs, each waiting at every barrier for the others.
  const int ctas = sms;
  int nn = n, its = iterations;
  void* args[] = {&da, &db, &dsums, &nn, &its};
  CUDA_OK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(sweeps), dim3(ctas), dim3(block),
                                      args, 0, nullptr));
  CUDA_OK(cudaDeviceSynchronize());

  // A grid larger than can be resident is refused.
  CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(sweeps), dim3(sms * per_sm + 1),
                                    dim3(block), args, 0, nullptr) ==
        cudaErrorCooperativeLaunchTooLarge);
  (void)cudaGetLastError();

  std::vector<float> got(n), b(n);
  std::vector<double> sums(iterations);
  CUDA_OK(cudaMemcpy(got.data(), da, n * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(sums.data(), dsums, iterations * sizeof(double), cudaMemcpyDeviceToHost));
  for (int it = 0; it < iterations; ++it) {
    for (int i = 0; i < n; ++i) {
      const float left = i > 0 ? a[i - 1] : 0.0f, right = i + 1 < n ? a[i + 1] : 0.0f;
      b[i] = 0.25f * left + 0.5f * a[i] + 0.25f * right;
    }
    double s = 0;
    for (int i = 0; i < n; ++i) s += b[i];
    CHECK(sums[it] == s);  // the same float operations in the same order
    a = b;
  }
  for (int i = 0; i < n; ++i) CHECK(got[i] == a[i]);
  std::printf("PASS\n");
  return 0;
}
