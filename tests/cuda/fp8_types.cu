// cuda_fp8.h on the simulated GPU: the device converts with the cvt
// instructions nvcc emits for sm_89+ (cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32,
// cvt.rn.f16x2.{e4m3x2,e5m2x2}), the host with the header's own software
// conversion; both must give the same bits for every input, and the values
// back in float must agree too.
#include <cuda_fp8.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "check.h"

__global__ void to_fp8(const float* in, int n, unsigned char* e4m3, unsigned char* e5m2,
                       float* e4m3_back, float* e5m2_back) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const __nv_fp8_e4m3 a(in[i]);
    const __nv_fp8_e5m2 b(in[i]);
    e4m3[i] = a.__x;
    e5m2[i] = b.__x;
    e4m3_back[i] = static_cast<float>(a);
    e5m2_back[i] = static_cast<float>(b);
  }
}

static bool same_float(float x, float y) {
  return (std::isnan(x) && std::isnan(y)) || std::memcmp(&x, &y, sizeof x) == 0;
}

int main() {
  std::vector<float> in;
  const float specials[] = {0.0f, -0.0f, 448.0f, 464.0f, 465.0f, 57344.0f, 61440.0f, 1e30f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), 0x1p-9f, 0x1p-10f,
                            0x3p-11f, 0x1p-16f, 0x1p-17f, 0x3p-17f, 1.0625f, 1.1875f};
  for (float f : specials) in.push_back(f);
  // Every exponent both formats reach and beyond, 64 mantissas each, both signs.
  for (int e = -20; e <= 17; ++e)
    for (int m = 0; m < 64; ++m)
      for (float sign : {1.0f, -1.0f}) in.push_back(sign * std::ldexp(1.0f + m / 64.0f, e));
  const int n = static_cast<int>(in.size());
  float *d_in = nullptr, *d_b4 = nullptr, *d_b5 = nullptr;
  unsigned char *d_e4 = nullptr, *d_e5 = nullptr;
  CUDA_OK(cudaMalloc(&d_in, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_b4, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_b5, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&d_e4, n));
  CUDA_OK(cudaMalloc(&d_e5, n));
  CUDA_OK(cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  to_fp8<<<8, 256>>>(d_in, n, d_e4, d_e5, d_b4, d_b5);
  CUDA_OK(cudaGetLastError());
  std::vector<unsigned char> e4(n), e5(n);
  std::vector<float> b4(n), b5(n);
  CUDA_OK(cudaMemcpy(e4.data(), d_e4, n, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(e5.data(), d_e5, n, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(b4.data(), d_b4, n * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(b5.data(), d_b5, n * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n && bad < 10; ++i) {
    const __nv_fp8_e4m3 a(in[i]);  // the header's host conversion
    const __nv_fp8_e5m2 b(in[i]);
    const bool ok = e4[i] == a.__x && e5[i] == b.__x && same_float(b4[i], float(a)) &&
                    same_float(b5[i], float(b));
    if (!ok) {
      std::fprintf(stderr, "%a: device e4m3 %02x e5m2 %02x (%g %g), host %02x %02x (%g %g)\n",
                   in[i], e4[i], e5[i], b4[i], b5[i], a.__x, b.__x, float(a), float(b));
      ++bad;
    }
  }
  CHECK(bad == 0);
  // Hand-checked: 448 and +infinity give e4m3's largest finite, 0x7e (saturating);
  // 57344 is e5m2's largest finite, 0x7b.
  CHECK(e4[2] == 0x7e && e4[8] == 0x7e && e5[5] == 0x7b);
  for (void* p : {static_cast<void*>(d_in), static_cast<void*>(d_b4), static_cast<void*>(d_b5),
                  static_cast<void*>(d_e4), static_cast<void*>(d_e5)})
    CUDA_OK(cudaFree(p));
  std::printf("PASS\n");
  return 0;
}
