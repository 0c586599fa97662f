// Monte Carlo option pricing with cuRAND's device API (the MonteCarloMultiGPU
// pattern): an init kernel gives every thread its own XORWOW subsequence
// (curand_init with skip-ahead), then each block prices one European call by
// averaging max(S exp((r - v^2/2) T + v sqrt(T) z) - X, 0) over its paths with
// z from curand_normal, and reduces the sums in shared memory. The estimates
// are checked against the Black-Scholes closed form within four standard
// errors (computed from the paths' own second moment).
// Usage: monte_carlo [options] [paths]   (default 256 options, 262144 paths)
#include <curand_kernel.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"

constexpr int kThreads = 256;

struct Option {
  float s, x, t;
};

__global__ void init_rng(curandState* states, unsigned long long seed) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  curand_init(seed, id, 0, &states[id]);
}

// Block b prices option b; thread k of every block uses RNG state k.
__global__ void price(const Option* options, curandState* states, int paths, float r, float v,
                      double* sum, double* sum_sq) {
  __shared__ double s1[kThreads], s2[kThreads];
  const Option o = options[blockIdx.x];
  curandState rng = states[threadIdx.x];
  for (int skip = 0; skip < blockIdx.x; ++skip) curand(&rng);  // decorrelate options
  const float drift = (r - 0.5f * v * v) * o.t, vol = v * sqrtf(o.t);
  double a = 0, b = 0;
  for (int p = threadIdx.x; p < paths; p += blockDim.x) {
    const float z = curand_normal(&rng);
    const float payoff = fmaxf(o.s * __expf(drift + vol * z) - o.x, 0.0f);
    a += payoff;
    b += double(payoff) * payoff;
  }
  s1[threadIdx.x] = a;
  s2[threadIdx.x] = b;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      s1[threadIdx.x] += s1[threadIdx.x + half];
      s2[threadIdx.x] += s2[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    sum[blockIdx.x] = s1[0];
    sum_sq[blockIdx.x] = s2[0];
  }
}

static double normal_cdf(double d) {
  return 0.5 * std::erfc(-d / std::sqrt(2.0));
}

int main(int argc, char** argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : 256;
  const int paths = argc > 2 ? std::atoi(argv[2]) : 262144;
  CHECK(count > 0 && paths > 0);
  const float r = 0.06f, v = 0.10f;
  std::vector<Option> options(count);
  for (int i = 0; i < count; ++i)
    options[i] = {5.0f + i % 26, 1.0f + (i * 7) % 100, 0.25f + (i % 40) * 0.25f};
  Option* d_options;
  curandState* d_states;
  double *d_sum, *d_sq;
  CUDA_OK(cudaMalloc(&d_options, count * sizeof(Option)));
  CUDA_OK(cudaMalloc(&d_states, kThreads * sizeof(curandState)));
  CUDA_OK(cudaMalloc(&d_sum, count * sizeof(double)));
  CUDA_OK(cudaMalloc(&d_sq, count * sizeof(double)));
  CUDA_OK(cudaMemcpy(d_options, options.data(), count * sizeof(Option), cudaMemcpyHostToDevice));
  const auto t0 = std::chrono::steady_clock::now();
  init_rng<<<1, kThreads>>>(d_states, 1234);
  price<<<count, kThreads>>>(d_options, d_states, paths, r, v, d_sum, d_sq);
  CUDA_OK(cudaDeviceSynchronize());
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<double> sum(count), sq(count);
  CUDA_OK(cudaMemcpy(sum.data(), d_sum, count * sizeof(double), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(sq.data(), d_sq, count * sizeof(double), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < count; ++i) {
    const Option& o = options[i];
    const double mean = sum[i] / paths, var = sq[i] / paths - mean * mean;
    const double stderr_ = std::sqrt(std::fmax(var, 0.0) / paths);
    const double est = std::exp(-double(r) * o.t) * mean;
    const double d1 =
        (std::log(double(o.s) / o.x) + (r + 0.5 * v * v) * o.t) / (v * std::sqrt(double(o.t)));
    const double d2 = d1 - v * std::sqrt(double(o.t));
    const double exact = o.s * normal_cdf(d1) - o.x * std::exp(-double(r) * o.t) * normal_cdf(d2);
    // Four standard errors, plus the float rounding of each payoff.
    const double tol = 4 * std::exp(-double(r) * o.t) * stderr_ + 1e-4 * (1 + exact);
    if (std::fabs(est - exact) > tol && bad++ < 5)
      std::fprintf(stderr, "option %d: Monte Carlo %.6f, closed form %.6f (tolerance %.2g)\n", i,
                   est, exact, tol);
  }
  CHECK(bad == 0);
  std::printf("monte carlo: %d options x %d paths: %.2f s wall\n", count, paths, wall);
  CUDA_OK(cudaFree(d_options));
  CUDA_OK(cudaFree(d_states));
  CUDA_OK(cudaFree(d_sum));
  CUDA_OK(cudaFree(d_sq));
  std::printf("PASS\n");
  return 0;
}
