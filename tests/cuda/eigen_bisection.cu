// Eigenvalues of a symmetric tridiagonal matrix by bisection (the eigenvalues
// sample's pattern): each block loads the diagonal and the squared
// off-diagonal into shared memory, then each thread narrows the interval of
// one eigenvalue with Sturm counts (a loop of float divisions and compares
// over the whole matrix, with a pivot guard). Checked against the same
// bisection on the host in double precision: each interval must contain the
// host's eigenvalue within the float rounding of the Sturm sequence.
// Usage: eigen_bisection [n]   (default 2048)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"

constexpr int kBlock = 256;

// Eigenvalues below x: sign changes of the Sturm sequence, from shared memory.
__device__ int count_below(const float* d, const float* e2, int n, float x) {
  int count = 0;
  float q = 1.0f;
  for (int i = 0; i < n; ++i) {
    q = d[i] - x - (i ? e2[i - 1] / q : 0.0f);
    if (fabsf(q) < 1e-30f) q = -1e-30f;  // pivot guard
    count += q < 0.0f;
  }
  return count;
}

// Thread k finds eigenvalue k (ascending) in [lo, hi] to within tol.
__global__ void bisect(const float* diag, const float* off2, int n, float lo, float hi, float tol,
                       float* lower, float* upper) {
  extern __shared__ float s[];
  float* d = s;
  float* e2 = s + n;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    d[i] = diag[i];
    e2[i] = i < n - 1 ? off2[i] : 0.0f;
  }
  __syncthreads();
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  float a = lo, b = hi;
  while (b - a > tol * fmaxf(1.0f, fmaxf(fabsf(a), fabsf(b)))) {
    const float mid = 0.5f * (a + b);
    if (mid <= a || mid >= b) break;
    if (count_below(d, e2, n, mid) > k)
      b = mid;
    else
      a = mid;
  }
  lower[k] = a;
  upper[k] = b;
}

static int host_count(const std::vector<double>& d, const std::vector<double>& e2, double x) {
  int count = 0;
  double q = 1.0;
  for (size_t i = 0; i < d.size(); ++i) {
    q = d[i] - x - (i ? e2[i - 1] / q : 0.0);
    if (std::fabs(q) < 1e-300) q = -1e-300;
    count += q < 0.0;
  }
  return count;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2048;
  CHECK(n > 1);
  std::vector<float> diag(n), off2(n - 1);
  unsigned r = 7;
  auto uniform = [&] { return float((r = r * 1664525u + 1013904223u) >> 8) / float(1 << 24); };
  for (float& v : diag) v = 4.0f * uniform() - 2.0f;
  for (float& v : off2) {
    const float e = 2.0f * uniform() - 1.0f;
    v = e * e;
  }
  // Gershgorin bounds.
  float lo = 1e30f, hi = -1e30f;
  for (int i = 0; i < n; ++i) {
    const float rad = (i ? std::sqrt(off2[i - 1]) : 0.0f) + (i < n - 1 ? std::sqrt(off2[i]) : 0.0f);
    lo = std::fmin(lo, diag[i] - rad);
    hi = std::fmax(hi, diag[i] + rad);
  }
  float *d_diag, *d_off2, *d_lower, *d_upper;
  CUDA_OK(cudaMalloc(&d_diag, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_off2, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_lower, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_upper, n * sizeof(float)));
  CUDA_OK(cudaMemcpy(d_diag, diag.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_off2, off2.data(), (n - 1) * sizeof(float), cudaMemcpyHostToDevice));
  const float tol = 1e-6f;
  const auto t0 = std::chrono::steady_clock::now();
  bisect<<<(n + kBlock - 1) / kBlock, kBlock, 2 * n * sizeof(float)>>>(d_diag, d_off2, n, lo, hi,
                                                                       tol, d_lower, d_upper);
  CUDA_OK(cudaDeviceSynchronize());
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<float> lower(n), upper(n);
  CUDA_OK(cudaMemcpy(lower.data(), d_lower, n * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(upper.data(), d_upper, n * sizeof(float), cudaMemcpyDeviceToHost));
  // Host: bisection in double to 1e-12, then the device interval (widened by
  // the float Sturm sequence's rounding, a few ulps of the spectrum's scale)
  // must hold eigenvalue k, and intervals must be ascending.
  std::vector<double> dd(diag.begin(), diag.end()), ee(off2.begin(), off2.end());
  const double slack = 1e-4 * std::fmax(std::fabs(lo), std::fabs(hi));
  int bad = 0;
  for (int k = 0; k < n; ++k) {
    double a = lo, b = hi;
    while (b - a > 1e-12) {
      const double m = 0.5 * (a + b);
      (host_count(dd, ee, m) > k ? b : a) = m;
    }
    const double ev = 0.5 * (a + b);
    const bool ok = lower[k] <= upper[k] && ev >= lower[k] - slack && ev <= upper[k] + slack &&
                    (k == 0 || lower[k] >= lower[k - 1]);
    if (!ok && bad++ < 5)
      std::fprintf(stderr, "eigenvalue %d: host %.9g, device [%.9g, %.9g]\n", k, ev, lower[k],
                   upper[k]);
  }
  CHECK(bad == 0);
  std::printf("eigenvalues by bisection: n = %d in %.2f s wall\n", n, wall);
  CUDA_OK(cudaFree(d_diag));
  CUDA_OK(cudaFree(d_off2));
  CUDA_OK(cudaFree(d_lower));
  CUDA_OK(cudaFree(d_upper));
  std::printf("PASS\n");
  return 0;
}
