// Checks for the self-checking CUDA test programs: each failure names the file,
// line and expression and makes main() return 1.
#pragma once

#include <cstdio>

#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

#define CUDA_OK(call)                                                           \
  do {                                                                          \
    const cudaError_t e_ = (call);                                              \
    if (e_ != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s -> %s (%s)\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorName(e_), cudaGetErrorString(e_));               \
      return 1;                                                                 \
    }                                                                           \
  } while (0)

// PCIe Gen4 x16 as the default platform declares it: 16 GT/s per lane, 128b/130b.
constexpr double kGen4x16BytesPerSecond = 16e9 * 16 * 128.0 / 130.0 / 8.0;
