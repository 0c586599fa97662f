// Tensor-core paths nvcc emits for the WMMA API: f16 and bf16 with f32
// accumulation, f16 accumulation, tf32, int8, f64, in both layouts.
#include <mma.h>
using namespace nvcuda;

// One 16x16x16 tile per warp; C = 2 (A x B) + 1 (element-wise on the fragment).
extern "C" __global__ void wmma_f16(const half* a, const half* b, float* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  for (int i = 0; i < fc.num_elements; ++i) fc.x[i] = 2.0f * fc.x[i] + 1.0f;
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

// A 32x8x16 tile: A column-major, B row-major, accumulate onto a loaded C, store column-major.
extern "C" __global__ void wmma_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c) {
  wmma::fragment<wmma::matrix_a, 32, 8, 16, __nv_bfloat16, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, __nv_bfloat16, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, float> fc;
  wmma::load_matrix_sync(fa, a, 32);
  wmma::load_matrix_sync(fb, b, 8);
  wmma::load_matrix_sync(fc, c, 32, wmma::mem_col_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 32, wmma::mem_col_major);
}

extern "C" __global__ void wmma_half_acc(const half* a, const half* b, half* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, half> fc;
  wmma::fill_fragment(fc, __float2half(0.5f));
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_tf32(const float* a, const float* b, float* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 8);
  wmma::load_matrix_sync(fb, b, 16);
  for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
  for (int i = 0; i < fb.num_elements; ++i) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_s8(const signed char* a, const signed char* b, int* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
  wmma::fill_fragment(fc, 7);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

extern "C" __global__ void wmma_f64(const double* a, const double* b, double* c) {
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
  wmma::fill_fragment(fc, 0.25);
  wmma::load_matrix_sync(fa, a, 4);
  wmma::load_matrix_sync(fb, b, 8);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 8, wmma::mem_row_major);
}

// mma.sync with the architected fragment layouts, fed the way CUTLASS-style
// code feeds it: ldmatrix from shared memory (A row-major with .x4, B
// row-major K x N through .x2.trans), results stored from the C layout.
extern "C" __global__ void mma_ldmatrix_f16(const half* a, const half* b, float* c) {
  __shared__ __align__(16) half sa[16 * 16];
  __shared__ __align__(16) half sb[16 * 8];
  const unsigned lane = threadIdx.x;
  for (int k = lane; k < 256; k += 32) sa[k] = a[k];
  for (int k = lane; k < 128; k += 32) sb[k] = b[k];
  __syncwarp();
  unsigned ra[4], rb[2];
  const unsigned a_row = static_cast<unsigned>(__cvta_generic_to_shared(&sa[(lane % 16) * 16 + (lane / 16) * 8]));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(ra[0]), "=r"(ra[1]), "=r"(ra[2]), "=r"(ra[3]) : "r"(a_row));
  const unsigned b_row = static_cast<unsigned>(__cvta_generic_to_shared(&sb[(lane % 16) * 8]));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
               : "=r"(rb[0]), "=r"(rb[1]) : "r"(b_row));
  float d[4] = {0, 0, 0, 0};
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
  const unsigned g = lane / 4, t = lane % 4;
  for (int i = 0; i < 4; ++i) c[(g + (i & 2 ? 8 : 0)) * 8 + 2 * t + (i & 1)] = d[i];
}

// tf32 m16n8k8 and s8 m16n8k32, fragments gathered in registers by the ISA's formulas.
extern "C" __global__ void mma_tf32_s8(const float* a, const float* b, float* c, const signed char* ia,
                                       const signed char* ib, int* ic) {
  const unsigned lane = threadIdx.x, g = lane / 4, t = lane % 4;
  unsigned fa[4], fb[2];
  for (int i = 0; i < 4; ++i) {
    const float v = a[(g + (i & 1 ? 8 : 0)) * 8 + t + (i & 2 ? 4 : 0)];
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(fa[i]) : "f"(v));
  }
  for (int i = 0; i < 2; ++i) {
    const float v = b[(t + (i ? 4 : 0)) * 8 + g];
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(fb[i]) : "f"(v));
  }
  float d[4] = {1, 1, 1, 1};
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(fa[0]), "r"(fa[1]), "r"(fa[2]), "r"(fa[3]), "r"(fb[0]), "r"(fb[1]));
  for (int i = 0; i < 4; ++i) c[(g + (i & 2 ? 8 : 0)) * 8 + 2 * t + (i & 1)] = d[i];
  unsigned qa[4] = {0, 0, 0, 0}, qb[2] = {0, 0};
  for (int r = 0; r < 4; ++r)
    for (int p = 0; p < 4; ++p)
      qa[r] |= static_cast<unsigned>(static_cast<unsigned char>(ia[(g + (r & 1 ? 8 : 0)) * 32 + 4 * t + p + (r & 2 ? 16 : 0)])) << (8 * p);
  for (int r = 0; r < 2; ++r)
    for (int p = 0; p < 4; ++p)
      qb[r] |= static_cast<unsigned>(static_cast<unsigned char>(ib[(4 * t + p + (r ? 16 : 0)) * 8 + g])) << (8 * p);
  int e[4] = {-3, -3, -3, -3};
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+r"(e[0]), "+r"(e[1]), "+r"(e[2]), "+r"(e[3])
               : "r"(qa[0]), "r"(qa[1]), "r"(qa[2]), "r"(qa[3]), "r"(qb[0]), "r"(qb[1]));
  for (int i = 0; i < 4; ++i) ic[(g + (i & 2 ? 8 : 0)) * 8 + 2 * t + (i & 1)] = e[i];
}

// movmatrix transposes an 8x8 b16 matrix held one pair per lane.
extern "C" __global__ void transpose8(const unsigned short* in, unsigned short* out) {
  const unsigned lane = threadIdx.x, r = lane / 4, c0 = 2 * (lane % 4);
  const unsigned v = in[r * 8 + c0] | (static_cast<unsigned>(in[r * 8 + c0 + 1]) << 16);
  unsigned w;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(w) : "r"(v));
  out[r * 8 + c0] = static_cast<unsigned short>(w);
  out[r * 8 + c0 + 1] = static_cast<unsigned short>(w >> 16);
}

// m16n8k4 tf32 (the PTX ISA's layout: A a0 at (g, t), a1 at (g + 8, t); B b0 at (t, g)).
extern "C" __global__ void mma_tf32_k4(const float* a, const float* b, float* c) {
  const unsigned lane = threadIdx.x, g = lane / 4, t = lane % 4;
  unsigned fa[2], fb;
  for (int i = 0; i < 2; ++i) asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(fa[i]) : "f"(a[(g + 8 * i) * 4 + t]));
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(fb) : "f"(b[t * 8 + g]));
  float d[4] = {2, 2, 2, 2};
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(fa[0]), "r"(fa[1]), "r"(fb));
  for (int i = 0; i < 4; ++i) c[(g + (i & 2 ? 8 : 0)) * 8 + 2 * t + (i & 1)] = d[i];
}
