// Launch replay (ptx/src/launch_replay.h): kernels whose outcome depends on
// their arguments and memory only, one that keeps state in memory across
// launches, and one with an effect outside memory (printf).
#include <cstdio>

// y[i] = sum over k < terms of (k + 1) x[i]^(terms - 1 - k), by Horner's rule.
extern "C" __global__ void polynomial(const float* x, float* y, int n, int terms) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i], acc = 0.f;
  for (int k = 0; k < terms; ++k) acc = acc * v + static_cast<float>(k + 1);
  y[i] = acc;
}

// y[i] += x[i] * terms, one addition per term: every launch changes y.
extern "C" __global__ void accumulate(const float* x, float* y, int n, int terms) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = y[i];
  for (int k = 0; k < terms; ++k) acc += x[i];
  y[i] = acc;
}

// Thread 0 spins `rounds` times, then prints how many it counted.
extern "C" __global__ void spin_and_print(int rounds) {
  if (threadIdx.x != 0) return;
  volatile int count = 0;
  for (int k = 0; k < rounds; ++k) count = count + 1;
  printf("counted %d\n", count);
}
