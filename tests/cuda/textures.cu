// Texture objects (1D linear, 2D layered array; normalized and unnormalized
// coordinates, point and linear filtering) and surface objects, against host
// samplers written from the CUDA programming guide's addressing rules.
#include <cmath>
#include <vector>

#include "check.h"

__global__ void fetch_linear(cudaTextureObject_t t, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(t, i);
}

__global__ void sample_layered(cudaTextureObject_t t, float* out, int w, int h, int layers,
                               bool normalized) {
  int x = threadIdx.x, y = blockIdx.x, l = blockIdx.y;
  float u = x + 0.25f, v = y + 0.75f;
  if (normalized) u /= w, v /= h;
  out[(l * h + y) * w + x] = tex2DLayered<float>(t, u, v, l);
}

__global__ void surface_square(cudaSurfaceObject_t s, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x >= w || y >= h) return;
  float v = surf2Dread<float>(s, x * sizeof(float), y);
  surf2Dwrite(v * v, s, x * sizeof(float), y);
}

// Linear filtering with clamped addressing: the four texels around
// (u - 0.5, v - 0.5) weighted by 1/256-step fractions (9-bit fixed point).
static float host_bilinear(const std::vector<float>& img, int w, int h, int layer, float u,
                           float v) {
  auto texel = [&](int x, int y) {
    x = x < 0 ? 0 : (x >= w ? w - 1 : x);
    y = y < 0 ? 0 : (y >= h ? h - 1 : y);
    return img[(layer * h + y) * w + x];
  };
  const float xb = u - 0.5f, yb = v - 0.5f;
  const int x0 = static_cast<int>(std::floor(xb)), y0 = static_cast<int>(std::floor(yb));
  const float a = std::round((xb - x0) * 256.0f) / 256.0f, b = std::round((yb - y0) * 256.0f) / 256.0f;
  return (1 - a) * (1 - b) * texel(x0, y0) + a * (1 - b) * texel(x0 + 1, y0) +
         (1 - a) * b * texel(x0, y0 + 1) + a * b * texel(x0 + 1, y0 + 1);
}

int main() {
  // 1D over linear memory.
  const int n = 1000;
  std::vector<float> data(n);
  for (int i = 0; i < n; ++i) data[i] = 0.5f * i - 3.0f;
  float *lin = nullptr, *out = nullptr;
  CUDA_OK(cudaMalloc(&lin, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&out, 64 * 64 * 4 * sizeof(float)));
  CUDA_OK(cudaMemcpy(lin, data.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = lin;
  res.res.linear.desc = cudaCreateChannelDesc<float>();
  res.res.linear.sizeInBytes = n * sizeof(float);
  cudaTextureDesc td = {};
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t t1 = 0;
  CUDA_OK(cudaCreateTextureObject(&t1, &res, &td, nullptr));
  fetch_linear<<<(n + 127) / 128, 128>>>(t1, out, n);
  std::vector<float> got(64 * 64 * 4);
  CUDA_OK(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(got[i] == data[i]);

  // 2D layered array, 3 layers of 16 x 8.
  const int w = 16, h = 8, layers = 3;
  std::vector<float> img(w * h * layers);
  for (size_t i = 0; i < img.size(); ++i) img[i] = std::sin(0.37f * i) * 10.0f;
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaArray_t arr = nullptr;
  CUDA_OK(cudaMalloc3DArray(&arr, &fd, make_cudaExtent(w, h, layers), cudaArrayLayered));
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(img.data(), w * sizeof(float), w, h);
  p.dstArray = arr;
  p.extent = make_cudaExtent(w, h, layers);
  p.kind = cudaMemcpyHostToDevice;
  CUDA_OK(cudaMemcpy3D(&p));
  cudaResourceDesc ares = {};
  ares.resType = cudaResourceTypeArray;
  ares.res.array.array = arr;
  for (int normalized = 0; normalized < 2; ++normalized) {
    cudaTextureDesc ld = {};
    ld.addressMode[0] = ld.addressMode[1] = cudaAddressModeClamp;
    ld.filterMode = cudaFilterModeLinear;
    ld.normalizedCoords = normalized;
    cudaTextureObject_t t2 = 0;
    CUDA_OK(cudaCreateTextureObject(&t2, &ares, &ld, nullptr));
    sample_layered<<<dim3(h, layers), w>>>(t2, out, w, h, layers, normalized != 0);
    CUDA_OK(cudaMemcpy(got.data(), out, img.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int l = 0; l < layers; ++l)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const float want = host_bilinear(img, w, h, l, x + 0.25f, y + 0.75f);
          const float g = got[(l * h + y) * w + x];
          if (std::fabs(g - want) > 1e-4f * (1 + std::fabs(want))) {
            std::fprintf(stderr, "layer %d (%d,%d) normalized=%d: %g, expected %g\n", l, x, y,
                         normalized, g, want);
            return 1;
          }
        }
    CUDA_OK(cudaDestroyTextureObject(t2));
  }

  // Surface: square every texel of a 2D array in place.
  cudaArray_t sarr = nullptr;
  CUDA_OK(cudaMallocArray(&sarr, &fd, w, h, cudaArraySurfaceLoadStore));
  CUDA_OK(cudaMemcpy2DToArray(sarr, 0, 0, img.data(), w * sizeof(float), w * sizeof(float), h,
                              cudaMemcpyHostToDevice));
  cudaResourceDesc sres = {};
  sres.resType = cudaResourceTypeArray;
  sres.res.array.array = sarr;
  cudaSurfaceObject_t surf = 0;
  CUDA_OK(cudaCreateSurfaceObject(&surf, &sres));
  surface_square<<<h, w>>>(surf, w, h);
  std::vector<float> sq(w * h);
  CUDA_OK(cudaMemcpy2DFromArray(sq.data(), w * sizeof(float), sarr, 0, 0, w * sizeof(float), h,
                                cudaMemcpyDeviceToHost));
  for (int i = 0; i < w * h; ++i) CHECK(sq[i] == img[i] * img[i]);
  // A surface needs an array created for load/store.
  cudaSurfaceObject_t bad = 0;
  CHECK(cudaCreateSurfaceObject(&bad, &ares) == cudaErrorInvalidValue);

  CUDA_OK(cudaDestroySurfaceObject(surf));
  CUDA_OK(cudaDestroyTextureObject(t1));
  CUDA_OK(cudaFreeArray(arr));
  CUDA_OK(cudaFreeArray(sarr));
  std::printf("PASS\n");
  return 0;
}
