// Test data for the CUDA library programs: deterministic values, copies to and
// from the device, and NCHW-style indexing.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

// Deterministic values in [-1, 1): a 32-bit LCG (Numerical Recipes' constants).
struct Lcg {
  unsigned state;
  float next() {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 8388608.0f - 1.0f;
  }
};

inline std::vector<float> random_vector(std::size_t n, unsigned seed) {
  Lcg g{seed};
  std::vector<float> v(n);
  for (float& x : v) x = g.next();
  return v;
}

// A device copy of `h` (nullptr when cudaMalloc fails).
template <typename T>
T* to_device(const std::vector<T>& h) {
  T* d = nullptr;
  if (cudaMalloc(&d, h.size() * sizeof(T)) != cudaSuccess) return nullptr;
  cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
  return d;
}

template <typename T>
std::vector<T> to_host(const T* d, std::size_t n) {
  std::vector<T> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
  return h;
}

// The offset of [a][b][c][d] in an array of dims {_, B, C, D}.
inline std::size_t at4(int a, int b, int c, int d, int B, int C, int D) {
  return ((static_cast<std::size_t>(a) * B + b) * C + c) * D + d;
}
