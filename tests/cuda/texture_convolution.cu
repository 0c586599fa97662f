// Separable convolution through 2D textures (the convolutionTexture pattern):
// a row pass that samples a cudaArray with tex2D (linear filtering at texel
// centres) and a column pass over the row result (point filtering), both with
// clamped addressing and a 17-tap kernel in constant memory. Checked against a
// host convolution with the same clamping, to a relative 1e-5.
// Usage: texture_convolution [width] [height] [iterations]   (default 3072 3072 1)
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"

constexpr int kRadius = 8;
constexpr int kTaps = 2 * kRadius + 1;
__constant__ float c_taps[kTaps];

__global__ void rows(float* out, int w, int h, cudaTextureObject_t src) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const float u = x + 0.5f, v = y + 0.5f;
  float sum = 0;
#pragma unroll
  for (int k = -kRadius; k <= kRadius; ++k)
    sum += tex2D<float>(src, u + k, v) * c_taps[kRadius - k];
  out[y * w + x] = sum;
}

__global__ void columns(float* out, int w, int h, cudaTextureObject_t src) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const float u = x + 0.5f, v = y + 0.5f;
  float sum = 0;
#pragma unroll
  for (int k = -kRadius; k <= kRadius; ++k)
    sum += tex2D<float>(src, u, v + k) * c_taps[kRadius - k];
  out[y * w + x] = sum;
}

static cudaTextureObject_t texture_of(cudaArray_t a, cudaTextureFilterMode filter) {
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = a;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = filter;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t t = 0;
  if (cudaCreateTextureObject(&t, &res, &td, nullptr) != cudaSuccess) return 0;
  return t;
}

int main(int argc, char** argv) {
  const int w = argc > 1 ? std::atoi(argv[1]) : 3072;
  const int h = argc > 2 ? std::atoi(argv[2]) : 3072;
  const int iterations = argc > 3 ? std::atoi(argv[3]) : 1;
  CHECK(w > 0 && h > 0 && iterations > 0);
  std::vector<float> taps(kTaps), img(size_t(w) * h);
  float norm = 0;
  for (int k = 0; k < kTaps; ++k)
    norm += taps[k] = std::exp(-float((k - kRadius) * (k - kRadius)) / 18.0f);
  for (float& t : taps) t /= norm;
  unsigned r = 1;
  for (float& p : img) p = float((r = r * 1103515245u + 12345u) >> 16 & 0xff) / 255.0f;
  CUDA_OK(cudaMemcpyToSymbol(c_taps, taps.data(), kTaps * sizeof(float)));
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaArray_t a_in, a_rows;
  CUDA_OK(cudaMallocArray(&a_in, &fd, w, h));
  CUDA_OK(cudaMallocArray(&a_rows, &fd, w, h));
  const size_t pitch = size_t(w) * sizeof(float);
  CUDA_OK(cudaMemcpy2DToArray(a_in, 0, 0, img.data(), pitch, pitch, h, cudaMemcpyHostToDevice));
  float *d_rows, *d_out;
  CUDA_OK(cudaMalloc(&d_rows, pitch * h));
  CUDA_OK(cudaMalloc(&d_out, pitch * h));
  const cudaTextureObject_t t_in = texture_of(a_in, cudaFilterModeLinear);
  const cudaTextureObject_t t_rows = texture_of(a_rows, cudaFilterModePoint);
  CHECK(t_in && t_rows);
  const dim3 block(16, 12), grid((w + 15) / 16, (h + 11) / 12);
  const auto t0 = std::chrono::steady_clock::now();
  for (int it = 0; it < iterations; ++it) {
    rows<<<grid, block>>>(d_rows, w, h, t_in);
    CUDA_OK(cudaMemcpy2DToArray(a_rows, 0, 0, d_rows, pitch, pitch, h, cudaMemcpyDeviceToDevice));
    columns<<<grid, block>>>(d_out, w, h, t_rows);
  }
  CUDA_OK(cudaDeviceSynchronize());
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::vector<float> got(size_t(w) * h), mid(size_t(w) * h);
  CUDA_OK(cudaMemcpy(got.data(), d_out, pitch * h, cudaMemcpyDeviceToHost));
  auto clampi = [](int v, int n) { return v < 0 ? 0 : v >= n ? n - 1 : v; };
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double s = 0;
      for (int k = -kRadius; k <= kRadius; ++k)
        s += double(img[size_t(y) * w + clampi(x + k, w)]) * taps[kRadius - k];
      mid[size_t(y) * w + x] = float(s);
    }
  size_t bad = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double s = 0;
      for (int k = -kRadius; k <= kRadius; ++k)
        s += double(mid[size_t(clampi(y + k, h)) * w + x]) * taps[kRadius - k];
      const float g = got[size_t(y) * w + x];
      if (std::fabs(g - s) > 1e-5 * (1 + std::fabs(s)) && bad++ < 5)
        std::fprintf(stderr, "(%d,%d): %.8g, expected %.8g\n", x, y, g, s);
    }
  CHECK(bad == 0);
  std::printf("texture convolution: %dx%d, %d iterations: %.2f s wall\n", w, h, iterations, wall);
  CUDA_OK(cudaDestroyTextureObject(t_in));
  CUDA_OK(cudaDestroyTextureObject(t_rows));
  CUDA_OK(cudaFreeArray(a_in));
  CUDA_OK(cudaFreeArray(a_rows));
  CUDA_OK(cudaFree(d_rows));
  CUDA_OK(cudaFree(d_out));
  std::printf("PASS\n");
  return 0;
}
