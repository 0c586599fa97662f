// 8-bit floats (sm_89+): the cuda_fp8.h conversions, which nvcc turns into
// cvt.rn.satfinite.{e4m3x2,e5m2x2}.{f32,f16x2} and cvt.rn.f16x2.{e4m3x2,e5m2x2},
// and mma.sync with e4m3/e5m2 operands written as inline PTX.
#include <cuda_fp16.h>
#include <cuda_fp8.h>

// Pair i of the input becomes one packed e4m3x2 and one e5m2x2 (x low, y high),
// each converted back to f16x2; the f16x2 input pair converts to both formats.
extern "C" __global__ void fp8_convert(const float2* in, const __half2* halves, int n,
                                       unsigned short* e4m3, unsigned short* e5m2,
                                       unsigned* e4m3_back, unsigned* e5m2_back,
                                       unsigned short* e4m3_from_half,
                                       unsigned short* e5m2_from_half) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __nv_fp8x2_e4m3 a(in[i]);
  const __nv_fp8x2_e5m2 b(in[i]);
  e4m3[i] = a.__x;
  e5m2[i] = b.__x;
  const __half2_raw ha = static_cast<__half2_raw>(static_cast<__half2>(a));
  const __half2_raw hb = static_cast<__half2_raw>(static_cast<__half2>(b));
  e4m3_back[i] = ha.x | (static_cast<unsigned>(ha.y) << 16);
  e5m2_back[i] = hb.x | (static_cast<unsigned>(hb.y) << 16);
  e4m3_from_half[i] = __nv_fp8x2_e4m3(halves[i]).__x;
  e5m2_from_half[i] = __nv_fp8x2_e5m2(halves[i]).__x;
}

// cvt with .relu, written directly: negative results become +0.
extern "C" __global__ void fp8_relu(const float2* in, int n, unsigned short* out,
                                    unsigned* back) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned short p;
  asm("cvt.rn.satfinite.relu.e4m3x2.f32 %0, %1, %2;" : "=h"(p) : "f"(in[i].y), "f"(in[i].x));
  out[i] = p;
  unsigned w;
  const unsigned short q = static_cast<unsigned short>(p ^ 0x8080);  // both negated
  asm("cvt.rn.relu.f16x2.e4m3x2 %0, %1;" : "=r"(w) : "h"(q));
  back[i] = w;
}

// Fragments of the PTX ISA's m16n8k32 8-bit layouts (groupID g = lane / 4,
// t = lane % 4): A row-major 16 x 32, B given K-major (column j at b[j * 32 + k]).
__device__ unsigned a_register(const unsigned char* a, unsigned lane, int r, int k) {
  const unsigned g = lane / 4, t = lane % 4;
  unsigned v = 0;
  for (int p = 0; p < 4; ++p)
    v |= static_cast<unsigned>(a[(g + (r & 1 ? 8 : 0)) * k + 4 * t + p + (r & 2 ? 16 : 0)])
         << (8 * p);
  return v;
}
__device__ unsigned b_register(const unsigned char* b, unsigned lane, int r, int k) {
  const unsigned g = lane / 4, t = lane % 4;
  unsigned v = 0;
  for (int p = 0; p < 4; ++p)
    v |= static_cast<unsigned>(b[g * k + 4 * t + p + (r ? 16 : 0)]) << (8 * p);
  return v;
}
__device__ void store_c(float* c, unsigned lane, const float d[4]) {
  const unsigned g = lane / 4, t = lane % 4;
  for (int i = 0; i < 4; ++i) c[(g + (i & 2 ? 8 : 0)) * 8 + 2 * t + (i & 1)] = d[i];
}

// D = A x B + C for m16n8k32 e4m3 x e4m3 and e5m2 x e4m3 with f32 accumulators,
// m16n8k16 e4m3 x e5m2 (the first 16 columns of A, rows of B) with f32, and
// m16n8k32 e4m3 x e4m3 with f16 accumulators. C starts at 0.25 everywhere.
extern "C" __global__ void fp8_mma(const unsigned char* a4, const unsigned char* a5,
                                   const unsigned char* b4, const unsigned char* b5, float* c44,
                                   float* c54, float* c45_k16, __half* c44_f16) {
  const unsigned lane = threadIdx.x, g = lane / 4, t = lane % 4;
  unsigned fa[4], fa5[4], fb[2], fb5[2];
  for (int r = 0; r < 4; ++r) fa[r] = a_register(a4, lane, r, 32), fa5[r] = a_register(a5, lane, r, 32);
  for (int r = 0; r < 2; ++r) fb[r] = b_register(b4, lane, r, 32), fb5[r] = b_register(b5, lane, r, 32);
  float d[4] = {0.25f, 0.25f, 0.25f, 0.25f};
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(fa[0]), "r"(fa[1]), "r"(fa[2]), "r"(fa[3]), "r"(fb[0]), "r"(fb[1]));
  store_c(c44, lane, d);
  float e[4] = {0.25f, 0.25f, 0.25f, 0.25f};
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};"
      : "+f"(e[0]), "+f"(e[1]), "+f"(e[2]), "+f"(e[3])
      : "r"(fa5[0]), "r"(fa5[1]), "r"(fa5[2]), "r"(fa5[3]), "r"(fb[0]), "r"(fb[1]));
  store_c(c54, lane, e);
  // k16: A is 2 registers (rows g and g + 8, columns 4t..4t+3), B one (rows 4t..4t+3).
  float f[4] = {0.25f, 0.25f, 0.25f, 0.25f};
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e5m2.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
      "{%0, %1, %2, %3};"
      : "+f"(f[0]), "+f"(f[1]), "+f"(f[2]), "+f"(f[3])
      : "r"(a_register(a4, lane, 0, 32)), "r"(a_register(a4, lane, 1, 32)), "r"(fb5[0]));
  store_c(c45_k16, lane, f);
  // f16 accumulators: two registers of two halves each, rows g and g + 8.
  const __half2 quarter = __floats2half2_rn(0.25f, 0.25f);
  unsigned h[2] = {*reinterpret_cast<const unsigned*>(&quarter),
                   *reinterpret_cast<const unsigned*>(&quarter)};
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, "
      "{%0, %1};"
      : "+r"(h[0]), "+r"(h[1])
      : "r"(fa[0]), "r"(fa[1]), "r"(fa[2]), "r"(fa[3]), "r"(fb[0]), "r"(fb[1]));
  for (int r = 0; r < 2; ++r) {
    __half2 v = *reinterpret_cast<__half2*>(&h[r]);
    c44_f16[(g + 8 * r) * 8 + 2 * t] = __low2half(v);
    c44_f16[(g + 8 * r) * 8 + 2 * t + 1] = __high2half(v);
  }
}
