// Cube-map textures (cudaArrayCubemap) and cube-map arrays (cudaArrayCubemap |
// cudaArrayLayered), against host references written from the CUDA
// programming guide's cubemap table: the direction's largest component m
// picks the face, the other two (s, t) address it at ((s/|m| + 1) / 2,
// (t/|m| + 1) / 2). Point sampling at each texel's centre direction must give
// that texel exactly; linear sampling in arbitrary directions must match a
// host bilinear filter within a face (edges clamped, 1/256-step weights).
// Surface writes to the faces (surfCubemapLayeredwrite) are seen by texture
// reads, and malformed cube-map arrays are refused.
#include <algorithm>
#include <cmath>
#include <vector>

#include "check.h"

// The direction whose face coordinates are (u, v) in [-1, 1] on face f: the
// guide's table solved for (x, y, z).
__host__ __device__ void face_direction(int f, float u, float v, float& x, float& y, float& z) {
  switch (f) {
    case 0:
      x = 1, y = -v, z = -u;
      break;  // +x: s = -z, t = -y
    case 1:
      x = -1, y = -v, z = u;
      break;  // -x: s = z, t = -y
    case 2:
      x = u, y = 1, z = v;
      break;  // +y: s = x, t = z
    case 3:
      x = u, y = -1, z = -v;
      break;  // -y: s = x, t = -z
    case 4:
      x = u, y = -v, z = 1;
      break;  // +z: s = x, t = -y
    default:
      x = -u, y = -v, z = -1;
      break;  // -z: s = -x, t = -y
  }
}

// One thread per texel of every face (and cube map): the texel's centre direction.
__global__ void centres(cudaTextureObject_t t, float* out, int w, int cubes) {
  const int x = threadIdx.x, y = blockIdx.x, f = blockIdx.y % 6, cube = blockIdx.y / 6;
  float dx, dy, dz;
  face_direction(f, (x + 0.5f) / w * 2 - 1, (y + 0.5f) / w * 2 - 1, dx, dy, dz);
  out[((cube * 6 + f) * w + y) * w + x] =
      cubes ? texCubemapLayered<float>(t, dx, dy, dz, cube) : texCubemap<float>(t, dx, dy, dz);
}

__global__ void directions(cudaTextureObject_t t, const float4* dirs, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = texCubemap<float>(t, dirs[i].x, dirs[i].y, dirs[i].z);
}

__global__ void paint(cudaSurfaceObject_t s, int w) {
  const int x = threadIdx.x, y = blockIdx.x, layer = blockIdx.y;  // layer = cube * 6 + face
  surfCubemapLayeredwrite(float(layer * 1000 + y * w + x), s, x * int(sizeof(float)), y, layer);
}

// Host: face and face coordinates in [0, 1] by the guide's table.
static int host_face(float x, float y, float z, double& u, double& v) {
  const double ax = std::fabs(x), ay = std::fabs(y), az = std::fabs(z);
  int f;
  double m, s, t;
  if (ax > ay && ax > az)
    f = x > 0 ? 0 : 1, m = ax, s = x > 0 ? -z : z, t = -y;
  else if (ay > az)
    f = y > 0 ? 2 : 3, m = ay, s = x, t = y > 0 ? z : -z;
  else
    f = z > 0 ? 4 : 5, m = az, s = z > 0 ? x : -x, t = -y;
  u = (s / m + 1) / 2, v = (t / m + 1) / 2;
  return f;
}

static float host_bilinear(const std::vector<float>& img, int w, int face, double u, double v) {
  auto at = [&](int x, int y) {
    x = x < 0 ? 0 : x >= w ? w - 1 : x;
    y = y < 0 ? 0 : y >= w ? w - 1 : y;
    return double(img[(face * w + y) * w + x]);
  };
  const double xb = u * w - 0.5, yb = v * w - 0.5;
  const int x0 = int(std::floor(xb)), y0 = int(std::floor(yb));
  const double a = std::round((xb - x0) * 256) / 256, b = std::round((yb - y0) * 256) / 256;
  return float((1 - a) * (1 - b) * at(x0, y0) + a * (1 - b) * at(x0 + 1, y0) +
               (1 - a) * b * at(x0, y0 + 1) + a * b * at(x0 + 1, y0 + 1));
}

static cudaTextureObject_t texture_of(cudaArray_t a, cudaTextureFilterMode filter) {
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = a;
  cudaTextureDesc td = {};
  td.normalizedCoords = 1;
  td.filterMode = filter;
  td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = cudaAddressModeWrap;
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t t = 0;
  return cudaCreateTextureObject(&t, &res, &td, nullptr) == cudaSuccess ? t : 0;
}

int main() {
  const int w = 16, cubes = 3;
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  // Faces of one cube map: texel (x, y) of face f holds f * 1000 + y * w + x,
  // plus a smooth term so that linear filtering has something to blend.
  std::vector<float> img(6 * w * w);
  for (int f = 0; f < 6; ++f)
    for (int y = 0; y < w; ++y)
      for (int x = 0; x < w; ++x)
        img[(f * w + y) * w + x] = f * 1000.0f + y * w + x + 0.25f * std::sin(0.7f * x + 0.3f * y);
  cudaArray_t cube = nullptr;
  CUDA_OK(cudaMalloc3DArray(&cube, &fd, make_cudaExtent(w, w, 6), cudaArrayCubemap));
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(img.data(), w * sizeof(float), w, w);
  p.dstArray = cube;
  p.extent = make_cudaExtent(w, w, 6);
  p.kind = cudaMemcpyHostToDevice;
  CUDA_OK(cudaMemcpy3D(&p));
  float* out = nullptr;
  CUDA_OK(cudaMalloc(&out, cubes * 6 * w * w * sizeof(float)));
  std::vector<float> got(cubes * 6 * w * w);

  // Point sampling at every texel's centre direction gives that texel.
  const cudaTextureObject_t point = texture_of(cube, cudaFilterModePoint);
  CHECK(point != 0);
  centres<<<dim3(w, 6), w>>>(point, out, w, 0);
  CUDA_OK(cudaMemcpy(got.data(), out, 6 * w * w * sizeof(float), cudaMemcpyDeviceToHost));
  for (int k = 0; k < 6 * w * w; ++k) CHECK(got[k] == img[k]);

  // Linear sampling in 4096 pseudo-random directions (ties between the
  // largest components avoided) against the host's face selection and filter.
  const cudaTextureObject_t linear = texture_of(cube, cudaFilterModeLinear);
  CHECK(linear != 0);
  const int n = 4096;
  std::vector<float4> dirs;
  unsigned r = 12345;
  auto uniform = [&] {
    return float((r = r * 1664525u + 1013904223u) >> 8) / float(1 << 23) - 1.0f;
  };
  while (int(dirs.size()) < n) {
    const float x = uniform(), y = uniform(), z = uniform();
    float m[3] = {std::fabs(x), std::fabs(y), std::fabs(z)};
    std::sort(m, m + 3);
    if (m[2] - m[1] > 1e-3f) dirs.push_back(make_float4(x, y, z, 0));
  }
  float4* d_dirs = nullptr;
  CUDA_OK(cudaMalloc(&d_dirs, n * sizeof(float4)));
  CUDA_OK(cudaMemcpy(d_dirs, dirs.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  directions<<<n / 128, 128>>>(linear, d_dirs, out, n);
  CUDA_OK(cudaMemcpy(got.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  int faces_seen = 0;
  for (int i = 0; i < n; ++i) {
    double u, v;
    const int f = host_face(dirs[i].x, dirs[i].y, dirs[i].z, u, v);
    faces_seen |= 1 << f;
    const float want = host_bilinear(img, w, f, u, v);
    if (std::fabs(got[i] - want) > 1e-3f) {
      std::fprintf(stderr, "direction (%g, %g, %g): face %d, %g expected %g\n", dirs[i].x,
                   dirs[i].y, dirs[i].z, f, got[i], want);
      return 1;
    }
  }
  CHECK(faces_seen == 0x3f);

  // A cube-map array written through a surface, read through a texture.
  cudaArray_t layered = nullptr;
  CUDA_OK(cudaMalloc3DArray(&layered, &fd, make_cudaExtent(w, w, 6 * cubes),
                            cudaArrayCubemap | cudaArrayLayered | cudaArraySurfaceLoadStore));
  cudaResourceDesc sres = {};
  sres.resType = cudaResourceTypeArray;
  sres.res.array.array = layered;
  cudaSurfaceObject_t surf = 0;
  CUDA_OK(cudaCreateSurfaceObject(&surf, &sres));
  paint<<<dim3(w, 6 * cubes), w>>>(surf, w);
  const cudaTextureObject_t layers = texture_of(layered, cudaFilterModePoint);
  CHECK(layers != 0);
  centres<<<dim3(w, 6 * cubes), w>>>(layers, out, w, cubes);
  CUDA_OK(cudaMemcpy(got.data(), out, cubes * 6 * w * w * sizeof(float), cudaMemcpyDeviceToHost));
  for (int layer = 0; layer < 6 * cubes; ++layer)
    for (int k = 0; k < w * w; ++k) CHECK(got[layer * w * w + k] == float(layer * 1000 + k));

  // Cube maps need square faces and six of them (six per cube map when layered).
  cudaArray_t bad = nullptr;
  CHECK(cudaMalloc3DArray(&bad, &fd, make_cudaExtent(w, w + 1, 6), cudaArrayCubemap) ==
        cudaErrorInvalidValue);
  CHECK(cudaMalloc3DArray(&bad, &fd, make_cudaExtent(w, w, 5), cudaArrayCubemap) ==
        cudaErrorInvalidValue);
  CHECK(cudaMalloc3DArray(&bad, &fd, make_cudaExtent(w, w, 8),
                          cudaArrayCubemap | cudaArrayLayered) == cudaErrorInvalidValue);

  CUDA_OK(cudaDestroyTextureObject(point));
  CUDA_OK(cudaDestroyTextureObject(linear));
  CUDA_OK(cudaDestroyTextureObject(layers));
  CUDA_OK(cudaDestroySurfaceObject(surf));
  CUDA_OK(cudaFreeArray(cube));
  CUDA_OK(cudaFreeArray(layered));
  CUDA_OK(cudaFree(out));
  CUDA_OK(cudaFree(d_dirs));
  std::printf("PASS\n");
  return 0;
}
