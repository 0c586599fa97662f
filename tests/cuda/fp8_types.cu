// cuda_fp8.h on the simulated GPU: the device converts with the cvt
// instructions nvcc emits for sm_89+ (cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32,
// cvt.rn.f16x2.{e4m3x2,e5m2x2}), the host with the header's own software
// conversion; both must give the same bits for every input, and the values
// back in float must agree too. An e4m3 mma.sync product is checked against
// the host product of the values the header decodes.
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

// One m16n8k32 e4m3 x e4m3 + f32 tensor-core product (PTX ISA fragment layout,
// groupID g = lane / 4, t = lane % 4): A row-major 16 x 32, B column j at b[j * 32 + k].
__global__ void mma_e4m3(const unsigned char* a, const unsigned char* b, float* c) {
  const unsigned lane = threadIdx.x, g = lane / 4, t = lane % 4;
  unsigned fa[4] = {0, 0, 0, 0}, fb[2] = {0, 0};
  for (int r = 0; r < 4; ++r)
    for (int p = 0; p < 4; ++p)
      fa[r] |= static_cast<unsigned>(a[(g + (r & 1 ? 8 : 0)) * 32 + 4 * t + p + (r & 2 ? 16 : 0)])
               << (8 * p);
  for (int r = 0; r < 2; ++r)
    for (int p = 0; p < 4; ++p)
      fb[r] |= static_cast<unsigned>(b[g * 32 + 4 * t + p + (r ? 16 : 0)]) << (8 * p);
  float d[4] = {0, 0, 0, 0};
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(fa[0]), "r"(fa[1]), "r"(fa[2]), "r"(fa[3]), "r"(fb[0]), "r"(fb[1]));
  for (int i = 0; i < 4; ++i) c[(g + (i & 2 ? 8 : 0)) * 8 + 2 * t + (i & 1)] = d[i];
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
  // The tensor-core product of e4m3 operands the header encodes on the host,
  // against the host product of their float values (small values: exact sums).
  std::vector<unsigned char> a(16 * 32), b(8 * 32);
  std::vector<float> af(a.size()), bf(b.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    const __nv_fp8_e4m3 v(static_cast<float>(static_cast<int>(k * 7 % 13) - 6) * 0.25f);
    a[k] = v.__x;
    af[k] = float(v);
  }
  for (std::size_t k = 0; k < b.size(); ++k) {
    const __nv_fp8_e4m3 v(static_cast<float>(static_cast<int>(k * 5 % 11) - 5) * 0.5f);
    b[k] = v.__x;
    bf[k] = float(v);
  }
  unsigned char *d_a = nullptr, *d_b = nullptr;
  float* d_c = nullptr;
  CUDA_OK(cudaMalloc(&d_a, a.size()));
  CUDA_OK(cudaMalloc(&d_b, b.size()));
  CUDA_OK(cudaMalloc(&d_c, 128 * sizeof(float)));
  CUDA_OK(cudaMemcpy(d_a, a.data(), a.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_b, b.data(), b.size(), cudaMemcpyHostToDevice));
  mma_e4m3<<<1, 32>>>(d_a, d_b, d_c);
  CUDA_OK(cudaGetLastError());
  std::vector<float> c(128);
  CUDA_OK(cudaMemcpy(c.data(), d_c, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      double sum = 0;
      for (int k = 0; k < 32; ++k) sum += double{af[i * 32 + k]} * bf[j * 32 + k];
      if (c[i * 8 + j] != static_cast<float>(sum)) {
        std::fprintf(stderr, "mma c[%d][%d] = %g, expected %g\n", i, j, c[i * 8 + j], sum);
        return 1;
      }
    }
  for (void* p : {static_cast<void*>(d_a), static_cast<void*>(d_b), static_cast<void*>(d_c)})
    CUDA_OK(cudaFree(p));
  for (void* p : {static_cast<void*>(d_in), static_cast<void*>(d_b4), static_cast<void*>(d_b5),
                  static_cast<void*>(d_e4), static_cast<void*>(d_e5)})
    CUDA_OK(cudaFree(p));
  std::printf("PASS\n");
  return 0;
}
