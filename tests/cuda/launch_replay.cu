// Launch replay under the CUDA runtime: a kernel repeated on the same data
// (the way samples time a kernel) replays its outcome, and every way a
// program changes what the kernel reads makes it execute again: a copy into
// device memory, a host write to managed memory, a host write to mapped
// pinned memory. Each iteration's output is checked against the host.
// Usage: launch_replay [iterations] (default 16; inputs change at 4, 8, 12)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"

constexpr int kN = 1 << 16;
constexpr int kTerms = 48;

// out[i] = sum over k < kTerms of (a[i] + b[i] + c[i])^k / (k + 1)-free
// Horner form: acc = acc * v + 1, so out = 1 + v + ... + v^(kTerms-1).
__global__ void series(const float* a, const float* b, const float* c, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = a[i] + b[i] + c[i];
  float acc = 0.f;
  for (int k = 0; k < kTerms; ++k) acc = acc * v + 1.f;
  out[i] = acc;
}

static double host_series(double v) {
  double acc = 0;
  for (int k = 0; k < kTerms; ++k) acc = acc * v + 1;
  return acc;
}

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::atoi(argv[1]) : 16;
  CHECK(iterations > 0);
  std::vector<float> a(kN), out(kN);
  for (int i = 0; i < kN; ++i) a[i] = 0.1f * static_cast<float>(i % 7) / 7.f;
  float *da = nullptr, *managed = nullptr, *mapped = nullptr, *dmapped = nullptr, *dout = nullptr;
  CUDA_OK(cudaMalloc(&da, kN * sizeof(float)));
  CUDA_OK(cudaMalloc(&dout, kN * sizeof(float)));
  CUDA_OK(cudaMallocManaged(&managed, kN * sizeof(float)));
  CUDA_OK(cudaHostAlloc(&mapped, kN * sizeof(float), cudaHostAllocMapped));
  CUDA_OK(cudaHostGetDevicePointer(&dmapped, mapped, 0));
  CUDA_OK(cudaMemcpy(da, a.data(), kN * sizeof(float), cudaMemcpyHostToDevice));
  for (int i = 0; i < kN; ++i) managed[i] = 0.2f * static_cast<float>(i % 5) / 5.f;
  for (int i = 0; i < kN; ++i) mapped[i] = 0.3f * static_cast<float>(i % 3) / 3.f;
  for (int it = 0; it < iterations; ++it) {
    if (it == 4) {  // a copy into device memory
      a[11] = 0.45f;
      CUDA_OK(cudaMemcpy(da + 11, &a[11], sizeof(float), cudaMemcpyHostToDevice));
    }
    if (it == 8) managed[22] = 0.35f;  // the host writes managed memory
    if (it == 12) mapped[33] = 0.25f;  // ... and mapped pinned memory
    series<<<kN / 256, 256>>>(da, managed, dmapped, dout, kN);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(out.data(), dout, kN * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < kN; i += 11) {
      const double want = host_series(static_cast<double>(a[i] + managed[i] + mapped[i]));
      if (std::fabs(out[i] - want) > 1e-5 * want) {
        std::fprintf(stderr, "iteration %d element %d: %.9g, host %.9g: check failed\n", it, i,
                     out[i], want);
        return 1;
      }
    }
  }
  CUDA_OK(cudaFree(da));
  CUDA_OK(cudaFree(dout));
  CUDA_OK(cudaFree(managed));
  CUDA_OK(cudaFreeHost(mapped));
  std::printf("PASS: %d iterations match the host\n", iterations);
  return 0;
}
