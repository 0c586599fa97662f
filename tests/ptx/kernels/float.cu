// Floating-point kernels: every rounding mode through the CUDA intrinsics,
// the approximate functions, half and bfloat16, comparisons with NaN.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void rounding_f32(const float* x, const float* y, const float* z, float* out,
                                        int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i], b = y[i], c = z[i];
  float* o = out + i * 20;
  o[0] = __fadd_rn(a, b);
  o[1] = __fadd_rz(a, b);
  o[2] = __fadd_rd(a, b);
  o[3] = __fadd_ru(a, b);
  o[4] = __fmul_rn(a, b);
  o[5] = __fmul_rz(a, b);
  o[6] = __fmul_rd(a, b);
  o[7] = __fmul_ru(a, b);
  o[8] = __fmaf_rn(a, b, c);
  o[9] = __fmaf_rz(a, b, c);
  o[10] = __fmaf_rd(a, b, c);
  o[11] = __fmaf_ru(a, b, c);
  o[12] = __fdiv_rn(a, b);
  o[13] = __fdiv_rz(a, b);
  o[14] = __fdiv_rd(a, b);
  o[15] = __fdiv_ru(a, b);
  o[16] = __fsqrt_rn(fabsf(a));
  o[17] = __fsqrt_rz(fabsf(a));
  o[18] = __frcp_rd(b);
  o[19] = __frcp_ru(b);
}

extern "C" __global__ void rounding_f64(const double* x, const double* y, const double* z,
                                        double* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double a = x[i], b = y[i], c = z[i];
  double* o = out + i * 12;
  o[0] = __dadd_rn(a, b);
  o[1] = __dadd_rz(a, b);
  o[2] = __dmul_rd(a, b);
  o[3] = __dmul_ru(a, b);
  o[4] = __fma_rn(a, b, c);
  o[5] = __fma_rz(a, b, c);
  o[6] = __ddiv_rn(a, b);
  o[7] = __ddiv_ru(a, b);
  o[8] = __dsqrt_rn(fabs(a));
  o[9] = __dsqrt_rd(fabs(a));
  o[10] = __drcp_rn(b);
  o[11] = fmin(a, b) + fmax(a, c);
}

// The approximate (SFU) functions, one input per thread.
extern "C" __global__ void approx_f32(const float* x, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i];
  float* o = out + i * 7;
  o[0] = __sinf(a);
  o[1] = __cosf(a);
  o[2] = __log2f(fabsf(a) + 1.0f);
  o[3] = exp2f(a * 0.25f);
  o[4] = rsqrtf(fabsf(a) + 0.5f);
  float t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(a * 0.5f));
  o[5] = t;
  o[6] = __fdividef(a, 3.0f);
}

// NaN-aware min/max, comparisons, classification, copysign.
extern "C" __global__ void classify(const float* x, const float* y, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i], b = y[i];
  unsigned* o = out + i * 10;
  o[0] = __float_as_uint(fminf(a, b));
  o[1] = __float_as_uint(fmaxf(a, b));
  o[2] = (a < b) | (a <= b) << 1 | (a > b) << 2 | (a >= b) << 3 | (a == b) << 4 | (a != b) << 5;
  o[3] = !(a < b) | !(a >= b) << 1;  // unordered forms
  o[4] = isnan(a) | isinf(a) << 1 | isfinite(a) << 2;
  o[5] = __float_as_uint(copysignf(a, b));
  unsigned p;
  asm("{ .reg .pred q; testp.subnormal.f32 q, %1; selp.u32 %0, 1, 0, q; }" : "=r"(p) : "f"(a));
  o[6] = p;
  asm("{ .reg .pred q; testp.normal.f32 q, %1; selp.u32 %0, 1, 0, q; }" : "=r"(p) : "f"(a));
  o[7] = p;
  float m;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(m) : "f"(a), "f"(b));
  o[8] = __float_as_uint(m);
  asm("add.ftz.sat.f32 %0, %1, %2;" : "=f"(m) : "f"(a), "f"(b));
  o[9] = __float_as_uint(m);
}

extern "C" __global__ void halves(const float* x, const float* y, unsigned short* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half a = __float2half_rn(x[i]), b = __float2half_rn(y[i]);
  __nv_bfloat16 c = __float2bfloat16_rn(x[i]), d = __float2bfloat16_rn(y[i]);
  unsigned short* o = out + i * 10;
  o[0] = __half_as_ushort(a);
  o[1] = __half_as_ushort(__hadd(a, b));
  o[2] = __half_as_ushort(__hmul(a, b));
  o[3] = __half_as_ushort(__hfma(a, b, a));
  __half2 p = __hmul2(__halves2half2(a, b), __halves2half2(b, a));
  o[4] = __half_as_ushort(__low2half(p));
  o[5] = __half_as_ushort(__high2half(p));
  o[6] = __bfloat16_as_ushort(c);
  o[7] = __bfloat16_as_ushort(__hadd(c, d));
  o[8] = __bfloat16_as_ushort(__hfma(c, d, c));
  o[9] = __half_as_ushort(__hmax(a, b));
}

// Conversions: float to integer with every rounding and saturation,
// integer to float with every rounding, saturating integer narrowing.
extern "C" __global__ void conversions(const float* x, const long long* w, int* out, float* fout,
                                       int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i];
  long long v = w[i];
  int* o = out + i * 12;
  o[0] = __float2int_rn(a);
  o[1] = __float2int_rz(a);
  o[2] = __float2int_rd(a);
  o[3] = __float2int_ru(a);
  o[4] = int(__float2uint_rz(a));
  long long ll = __float2ll_rn(a);
  o[5] = int(ll >> 32);
  o[6] = int(ll);
  int s8;
  asm("cvt.sat.s8.s32 %0, %1;" : "=r"(s8) : "r"(int(v)));
  o[7] = s8;
  unsigned short u16;
  asm("cvt.sat.u16.s64 %0, %1;" : "=h"(u16) : "l"(v));
  o[8] = u16;
  o[9] = __double2int_rz(double(a) * 3.0);
  o[10] = int(__double2uint_ru(double(a)));
  o[11] = __half2int_rn(__float2half_rz(a));
  float* f = fout + i * 8;
  f[0] = __ll2float_rn(v);
  f[1] = __ll2float_rz(v);
  f[2] = __ll2float_rd(v);
  f[3] = __ll2float_ru(v);
  f[4] = __int2float_rz(int(v));
  f[5] = __ull2float_ru((unsigned long long)v);
  f[6] = __double2float_rz(double(v) + 0.1);
  f[7] = __half2float(__float2half_ru(a));
}
