// European option pricing with the Black-Scholes formula (the BlackScholes
// sample's pattern): 4 M options, two per thread through float2 loads in a
// grid-stride loop, each priced with the polynomial approximation of the
// cumulative normal: expf, logf, sqrtf, reciprocals and divisions. Checked
// against the formula on the host in double precision (L1 error below 1e-6,
// the sample's own criterion).
// Usage: black_scholes [options] [iterations]   (default 4000000, 1)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"

// Cumulative normal distribution, polynomial approximation (Abramowitz-Stegun 26.2.17).
__device__ inline float cnd(float d) {
  const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f,
              a5 = 1.330274429f, rsqrt2pi = 0.39894228040143267794f;
  const float k = __fdividef(1.0f, 1.0f + 0.2316419f * fabsf(d));
  float c = rsqrt2pi * __expf(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
  if (d > 0) c = 1.0f - c;
  return c;
}

__device__ inline void price(float& call, float& put, float s, float x, float t, float r, float v) {
  const float sqrt_t = sqrtf(t);
  const float d1 = (logf(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
  const float d2 = d1 - v * sqrt_t;
  const float cnd1 = cnd(d1), cnd2 = cnd(d2);
  const float exp_rt = expf(-r * t);
  call = s * cnd1 - x * exp_rt * cnd2;
  put = x * exp_rt * (1.0f - cnd2) - s * (1.0f - cnd1);
}

__global__ void black_scholes(float2* call, float2* put, const float2* s, const float2* x,
                              const float2* t, float r, float v, int n) {
  const int pairs = n / 2;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < pairs; i += blockDim.x * gridDim.x) {
    const float2 s2 = s[i], x2 = x[i], t2 = t[i];
    float c1, p1, c2, p2;
    price(c1, p1, s2.x, x2.x, t2.x, r, v);
    price(c2, p2, s2.y, x2.y, t2.y, r, v);
    call[i] = make_float2(c1, c2);
    put[i] = make_float2(p1, p2);
  }
}

static double host_cnd(double d) {
  return 0.5 * std::erfc(-d / std::sqrt(2.0));
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4000000;
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 1;
  CHECK(n > 0 && n % 2 == 0 && iterations > 0);
  const float r = 0.02f, v = 0.30f;
  std::vector<float> s(n), x(n), t(n), call(n), put(n);
  unsigned seed = 5347;
  auto uniform = [&](float lo, float hi) {
    const float u = float((seed = seed * 1103515245u + 12345u) >> 8) / float(1 << 24);
    return (1.0f - u) * lo + u * hi;
  };
  for (int i = 0; i < n; ++i)
    s[i] = uniform(5, 30), x[i] = uniform(1, 100), t[i] = uniform(0.25f, 10);
  const size_t bytes = size_t(n) * sizeof(float);
  float *d_s, *d_x, *d_t, *d_call, *d_put;
  for (float** p : {&d_s, &d_x, &d_t, &d_call, &d_put}) CUDA_OK(cudaMalloc(p, bytes));
  CUDA_OK(cudaMemcpy(d_s, s.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_x, x.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_t, t.data(), bytes, cudaMemcpyHostToDevice));
  const auto t0 = std::chrono::steady_clock::now();
  for (int it = 0; it < iterations; ++it)
    black_scholes<<<(n / 2 + 127) / 128, 128>>>(
        reinterpret_cast<float2*>(d_call), reinterpret_cast<float2*>(d_put),
        reinterpret_cast<float2*>(d_s), reinterpret_cast<float2*>(d_x),
        reinterpret_cast<float2*>(d_t), r, v, n);
  CUDA_OK(cudaDeviceSynchronize());
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CUDA_OK(cudaMemcpy(call.data(), d_call, bytes, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(put.data(), d_put, bytes, cudaMemcpyDeviceToHost));
  double sum_delta = 0, sum_ref = 0, max_delta = 0;
  for (int i = 0; i < n; ++i) {
    const double sq = std::sqrt(double(t[i]));
    const double d1 = (std::log(double(s[i]) / x[i]) + (r + 0.5 * v * v) * t[i]) / (v * sq);
    const double d2 = d1 - v * sq;
    const double e = std::exp(-double(r) * t[i]);
    const double c = s[i] * host_cnd(d1) - x[i] * e * host_cnd(d2);
    const double p = x[i] * e * host_cnd(-d2) - s[i] * host_cnd(-d1);
    const double dc = std::fabs(c - call[i]), dp = std::fabs(p - put[i]);
    sum_delta += dc + dp;
    sum_ref += std::fabs(c) + std::fabs(p);
    max_delta = std::fmax(max_delta, std::fmax(dc, dp));
  }
  const double l1 = sum_delta / sum_ref;
  std::printf("black-scholes: %d options, %d iterations: %.2f s wall; L1 %.3g, max error %.3g\n", n,
              iterations, wall, l1, max_delta);
  CHECK(l1 < 1e-6);
  for (float* p : {d_s, d_x, d_t, d_call, d_put}) CUDA_OK(cudaFree(p));
  std::printf("PASS\n");
  return 0;
}
