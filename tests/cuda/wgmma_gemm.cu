// wgmma GEMMs against a host reference: one warpgroup per CTA computes a
// 64 x N tile of D = A x B (+ D), A M x K row-major and B given as N x K
// (K-major, "column-major B") or K x N (MN-major, with imm-trans-b), staging
// both through shared memory in the canonical layouts of the PTX ISA's
// matrix descriptors, written here the way a TMA box load lays them out:
//   swizzled, rows of W bytes (W = 128, 64, 32): the 16-byte chunk c of row r
//     of an 8-row group lands at chunk c ^ (r % 8) (128B), c ^ ((r % 8) / 2)
//     (64B) or c ^ ((r % 8) / 4) (32B); 8-row groups are 8W bytes apart;
//   no swizzle: 8 x 16-byte core matrices, 128 contiguous bytes each.
// Forms covered: f16 (all four swizzle modes, N = 64 and 256, MN-major B with
// imm-scale-a = -1), bf16 with A in registers, tf32 (N = 24), e4m3 x e5m2 with
// an f16 accumulator and imm-scale-b = -1, s8 x u8 with .satfinite into s32.
// Inputs are small values every type holds exactly, so every sum is exact and
// the comparison is for equality. Prints PASS.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "check.h"

// ---- the instruction forms (inline PTX) ----
__device__ void mma_f16_n64(float* d, uint64_t a, uint64_t b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(a), "l"(b), "r"(scale_d));
}

__device__ void mma_f16_n64_negA_transB(float* d, uint64_t a, uint64_t b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, -1, 1, 0, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(a), "l"(b), "r"(scale_d));
}

__device__ void mma_f16_n256(float* d, uint64_t a, uint64_t b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(a), "l"(b), "r"(scale_d));
}

__device__ void mma_bf16_n32_regA(float* d, const uint32_t* a, uint64_t b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %21, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, p, 1, 1, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scale_d));
}

__device__ void mma_tf32_n24(uint32_t* d, uint64_t a, uint64_t b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %14, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n24k8.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11}, %12, %13, p, 1, 1;\n}\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11])
      : "l"(a), "l"(b), "r"(scale_d));
}

__device__ void mma_e4m3_e5m2_n40_f16acc(uint32_t* d, uint64_t a, uint64_t b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %12, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n40k32.f16.e4m3.e5m2 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9}, %10, %11, p, 1, -1;\n}\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9])
      : "l"(a), "l"(b), "r"(scale_d));
}

__device__ void mma_s8_u8_n48(uint32_t* d, uint64_t a, uint64_t b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %26, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n48k32.satfinite.s32.s8.u8 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23}, %24, %25, p;\n}\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]), "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]), "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23])
      : "l"(a), "l"(b), "r"(scale_d));
}

// ---- operand staging ----
enum Swizzle { kNone = 0, k128 = 1, k64 = 2, k32 = 3 };  // the descriptor's encoding

__host__ __device__ constexpr int row_bytes(int s) {
  return s == k128 ? 128 : s == k64 ? 64 : 32;  // no swizzle: one wgmma's 32 bytes of K
}

// Byte offset of (row r, byte kb of the row's K extent) of a K-major tile of `rows` rows.
__device__ int k_major_offset(int s, int rows, int r, int kb) {
  if (s == kNone)  // core matrix (r / 8, kb / 16): K-adjacent ones rows / 8 * 128 bytes apart
    return (kb / 16) * (rows / 8) * 128 + (r / 8) * 128 + (r % 8) * 16 + kb % 16;
  const int w = row_bytes(s), chunk = kb / 16;
  const int x = s == k128 ? r % 8 : s == k64 ? (r % 8) / 2 : (r % 8) / 4;
  return (r / 8) * 8 * w + (r % 8) * w + ((chunk ^ x) * 16) + kb % 16;
}

__device__ uint64_t descriptor(const void* smem, int leading, int stride, int s) {
  const uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  return (uint64_t(a >> 4) & 0x3fff) | ((uint64_t(leading >> 4) & 0x3fff) << 16) |
         ((uint64_t(stride >> 4) & 0x3fff) << 32) | (uint64_t(s) << 62);
}

// Row and column of element e of a lane's accumulator fragment within the warpgroup's tile.
__device__ void d_position(int e, int& row, int& col) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  row = 16 * warp + lane / 4 + 8 * ((e / 2) % 2);
  col = 8 * (e / 4) + 2 * (lane % 4) + e % 2;
}

__device__ void fence_and_sync() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
}
__device__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ void wgmma_commit_and_wait() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}

constexpr int kThreads = 128;
__shared__ alignas(1024) unsigned char smem_a[64 * 128];
__shared__ alignas(1024) unsigned char smem_b[256 * 128];

// Copies a K-major tile (rows x `w` bytes of K starting at byte k0 of each row) into `dst`.
__device__ void stage_k_major(unsigned char* dst, const unsigned char* src, int ld_bytes,
                              int rows, int k0, int w, int s) {
  for (int i = threadIdx.x; i < rows * w; i += kThreads) {
    const int r = i / w, kb = i % w;
    dst[k_major_offset(s, rows, r, kb)] = src[r * ld_bytes + k0 + kb];
  }
}

// f16 GEMM with A and B through descriptors, any swizzle mode; N = 64 or 256.
// trans_b: B is K x N row-major and staged MN-major (128B swizzle), with imm-scale-a = -1.
template <int N, bool TransB>
__global__ void gemm_f16(const uint16_t* a, const uint16_t* b, float* d, int k_total, int s) {
  float acc[N / 2];
  for (int e = 0; e < N / 2; ++e) acc[e] = 0;
  const int m0 = blockIdx.x * 64, w = TransB ? 128 : row_bytes(s);
  const int k_stage = TransB ? 64 : w / 2;  // elements of K per stage
  for (int k0 = 0; k0 < k_total; k0 += k_stage) {
    stage_k_major(smem_a, reinterpret_cast<const unsigned char*>(a + m0 * k_total), 2 * k_total,
                  64, 2 * k0, 2 * k_stage, TransB ? k128 : s);
    if (!TransB) {
      stage_k_major(smem_b, reinterpret_cast<const unsigned char*>(b), 2 * k_total, N, 2 * k0,
                    w, s);
    } else {  // (k, n) -> k / 8 * 1024 + k % 8 * 128 + swizzled 16-byte chunk of n (N = 64)
      for (int i = threadIdx.x; i < k_stage * N; i += kThreads) {
        const int k = i / N, n = i % N, chunk = (2 * n) / 16;
        const int off = (k / 8) * 1024 + (k % 8) * 128 + ((chunk ^ (k % 8)) * 16) + (2 * n) % 16;
        reinterpret_cast<uint16_t*>(smem_b)[off / 2] = b[(k0 + k) * N + n];
      }
    }
    fence_and_sync();
    wgmma_fence();
    const int a_lead = s == kNone ? 64 / 8 * 128 : 16, a_stride = s == kNone ? 128 : 8 * w;
    const int b_lead = s == kNone ? N / 8 * 128 : 16, b_stride = s == kNone ? 128 : 8 * w;
    for (int step = 0; step < k_stage / 16; ++step) {  // each wgmma takes 16 of K: 32 bytes
      const uint64_t da =
          descriptor(smem_a + 32 * step, a_lead, a_stride, TransB ? int(k128) : s);
      if (TransB) {  // 16 rows of K further: two 8-row groups of 1024 bytes
        const uint64_t db = descriptor(smem_b + 2048 * step, 1 << 14, 1024, k128);
        mma_f16_n64_negA_transB(acc, da, db, 1);
      } else if (N == 64) {
        mma_f16_n64(acc, da, descriptor(smem_b + 32 * step, b_lead, b_stride, s), 1);
      } else {
        mma_f16_n256(acc, da, descriptor(smem_b + 32 * step, b_lead, b_stride, s), 1);
      }
    }
    wgmma_commit_and_wait();
    __syncthreads();
  }
  for (int e = 0; e < N / 2; ++e) {
    int r, c;
    d_position(e, r, c);
    d[(m0 + r) * N + c] = acc[e];
  }
}

// bf16 with A from registers (the m16n8k16 A fragment of each warp's 16 rows), B 32B-swizzled.
__global__ void gemm_bf16_regs(const uint16_t* a, const uint16_t* b, float* d, int k_total) {
  constexpr int N = 32;
  float acc[N / 2];
  for (int e = 0; e < N / 2; ++e) acc[e] = 1.0f;  // accumulates onto D = 1
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  for (int k0 = 0; k0 < k_total; k0 += 16) {
    stage_k_major(smem_b, reinterpret_cast<const unsigned char*>(b), 2 * k_total, N, 2 * k0, 32,
                  k32);
    uint32_t frag[4];
    for (int i = 0; i < 4; ++i) {
      const int r = 16 * warp + g + 8 * (i % 2), c = k0 + 2 * t + 8 * (i / 2);
      frag[i] = a[r * k_total + c] | (uint32_t(a[r * k_total + c + 1]) << 16);
    }
    fence_and_sync();
    wgmma_fence();
    mma_bf16_n32_regA(acc, frag, descriptor(smem_b, 16, 256, k32), 1);
    wgmma_commit_and_wait();
    __syncthreads();
  }
  for (int e = 0; e < N / 2; ++e) {
    int r, c;
    d_position(e, r, c);
    d[r * N + c] = acc[e];
  }
}

// Two wgmmas of 32 bytes of K per 64-byte stage, A and B through descriptors with the 64B
// swizzle; the first with scale-d = 0 (D = A x B whatever the registers held). D comes back
// as raw register bits: f32 or s32 whole, f16 as the half of its register.
template <int N, int Regs, void (*Mma)(uint32_t*, uint64_t, uint64_t, int)>
__global__ void gemm_64b(const unsigned char* a, const unsigned char* b, uint32_t* d,
                         int k_bytes) {
  uint32_t acc[Regs];
  for (int e = 0; e < Regs; ++e) acc[e] = 0x3c003c00u;  // garbage scale-d = 0 must drop
  for (int k0 = 0; k0 < k_bytes; k0 += 64) {
    stage_k_major(smem_a, a, k_bytes, 64, k0, 64, k64);
    stage_k_major(smem_b, b, k_bytes, N, k0, 64, k64);
    fence_and_sync();
    wgmma_fence();
    for (int step = 0; step < 2; ++step)
      Mma(acc, descriptor(smem_a + 32 * step, 16, 512, k64),
          descriptor(smem_b + 32 * step, 16, 512, k64), k0 + step > 0);
    wgmma_commit_and_wait();
    __syncthreads();
  }
  for (int e = 0; e < N / 2; ++e) {
    int r, c;
    d_position(e, r, c);
    d[r * N + c] = Regs == N / 2 ? acc[e] : (acc[e / 2] >> (16 * (e % 2))) & 0xffff;
  }
}

// ---- host ----
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

static double value(int r, int c, int salt, int span) {  // small multiples of 0.5
  return (((r * 7 + c * 3 + salt) % span) - span / 2) * 0.5;
}
static uint16_t f16(double v) {
  const __half h = __float2half(static_cast<float>(v));
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}
static uint16_t bf16(double v) {
  const __nv_bfloat16 h = __float2bfloat16(static_cast<float>(v));
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}
static float f16_value(uint32_t bits) {
  __half h;
  const uint16_t u = static_cast<uint16_t>(bits);
  std::memcpy(&h, &u, 2);
  return __half2float(h);
}
static float f32_value(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

template <class T>
static T* to_device(const std::vector<T>& v) {
  T* p = nullptr;
  if (cudaMalloc(&p, v.size() * sizeof(T)) != cudaSuccess) return nullptr;
  cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
  return p;
}
template <class T>
static std::vector<T> to_host(const T* p, size_t n) {
  std::vector<T> v(n);
  cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost);
  return v;
}

// Counts the elements of got that differ from want, printing the first few.
template <class T>
static int mismatches(const char* what, const std::vector<T>& got, const std::vector<double>& want) {
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i)
    if (static_cast<double>(got[i]) != want[i] && ++bad <= 3)
      std::fprintf(stderr, "%s: element %zu is %g, expected %g\n", what, i,
                   static_cast<double>(got[i]), want[i]);
  if (bad) std::fprintf(stderr, "%s: %d of %zu elements wrong\n", what, bad, want.size());
  return bad;
}

// f16 inputs: A M x K row-major, B N x K (K-major) or K x N (trans_b), D = (trans_b ? -A : A) x B.
template <int N, bool TransB>
static int check_f16(int s, const char* what) {
  const int M = 128, K = 128;
  std::vector<uint16_t> a(M * K), b(N * K);
  std::vector<double> want(M * N, 0.0);
  for (int r = 0; r < M; ++r)
    for (int k = 0; k < K; ++k) a[r * K + k] = f16(value(r, k, 1, 9));
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k)
      b[TransB ? k * N + n : n * K + k] = f16(value(k, n, 2, 7));
  for (int r = 0; r < M; ++r)
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < K; ++k)
        want[r * N + n] += (TransB ? -1 : 1) * value(r, k, 1, 9) * value(k, n, 2, 7);
  uint16_t *da = to_device(a), *db = to_device(b);
  float* dd = nullptr;
  CUDA_OK(cudaMalloc(&dd, M * N * sizeof(float)));
  gemm_f16<N, TransB><<<M / 64, kThreads>>>(da, db, dd, K, s);
  CUDA_OK(cudaDeviceSynchronize());
  const int bad = mismatches(what, to_host(dd, M * N), want);
  cudaFree(da), cudaFree(db), cudaFree(dd);
  return bad;
}

static int check_bf16_registers() {
  const int M = 64, N = 32, K = 64;
  std::vector<uint16_t> a(M * K), b(N * K);
  std::vector<double> want(M * N, 1.0);
  for (int r = 0; r < M; ++r)
    for (int k = 0; k < K; ++k) a[r * K + k] = bf16(value(r, k, 3, 9));
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) b[n * K + k] = bf16(value(k, n, 4, 5));
  for (int r = 0; r < M; ++r)
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < K; ++k) want[r * N + n] += value(r, k, 3, 9) * value(k, n, 4, 5);
  uint16_t *da = to_device(a), *db = to_device(b);
  float* dd = nullptr;
  CUDA_OK(cudaMalloc(&dd, M * N * sizeof(float)));
  gemm_bf16_regs<<<1, kThreads>>>(da, db, dd, K);
  CUDA_OK(cudaDeviceSynchronize());
  const int bad = mismatches("bf16, A in registers", to_host(dd, M * N), want);
  cudaFree(da), cudaFree(db), cudaFree(dd);
  return bad;
}

// One of the 32-byte-K forms with the 64B swizzle: A 64 x K and B N x K bytes from `enc`,
// want = sign * A x B; D read back with `decode`.
template <int N, int Regs, void (*Mma)(uint32_t*, uint64_t, uint64_t, int), class EncA,
          class EncB, class ValA, class ValB, class Dec>
static int check_64b(const char* what, int eb, EncA enc_a, EncB enc_b, ValA val_a, ValB val_b,
                     double sign, Dec decode) {
  const int M = 64, K = 128 / eb;  // two 64-byte stages
  std::vector<unsigned char> a(M * K * eb), b(N * K * eb);
  std::vector<double> want(M * N, 0.0);
  for (int r = 0; r < M; ++r)
    for (int k = 0; k < K; ++k) enc_a(&a[(r * K + k) * eb], val_a(r, k));
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) enc_b(&b[(n * K + k) * eb], val_b(k, n));
  for (int r = 0; r < M; ++r)
    for (int n = 0; n < N; ++n)
      for (int k = 0; k < K; ++k) want[r * N + n] += sign * val_a(r, k) * val_b(k, n);
  unsigned char *da = to_device(a), *db = to_device(b);
  uint32_t* dd = nullptr;
  CUDA_OK(cudaMalloc(&dd, M * N * sizeof(uint32_t)));
  gemm_64b<N, Regs, Mma><<<1, kThreads>>>(da, db, dd, K * eb);
  CUDA_OK(cudaDeviceSynchronize());
  const std::vector<uint32_t> raw = to_host(dd, M * N);
  std::vector<double> got(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) got[i] = decode(raw[i]);
  const int bad = mismatches(what, got, want);
  cudaFree(da), cudaFree(db), cudaFree(dd);
  return bad;
}

int main() {
  int bad = 0;
  bad += check_f16<64, false>(k128, "f16 m64n64k16, 128B swizzle");
  bad += check_f16<64, false>(k64, "f16 m64n64k16, 64B swizzle");
  bad += check_f16<64, false>(k32, "f16 m64n64k16, 32B swizzle");
  bad += check_f16<64, false>(kNone, "f16 m64n64k16, no swizzle");
  bad += check_f16<256, false>(k128, "f16 m64n256k16, 128B swizzle");
  bad += check_f16<64, true>(k128, "f16 m64n64k16, -A, MN-major B");
  bad += check_bf16_registers();
  auto put_f32 = [](unsigned char* p, double v) {
    const float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
  };
  bad += check_64b<24, 12, mma_tf32_n24>(
      "tf32 m64n24k8", 4, put_f32, put_f32, [](int r, int k) { return value(r, k, 5, 9); },
      [](int k, int n) { return value(k, n, 6, 7) * 0.25; }, 1.0, f32_value);
  auto put_e4m3 = [](unsigned char* p, double v) {
    *p = __nv_fp8_e4m3(static_cast<float>(v)).__x;
  };
  auto put_e5m2 = [](unsigned char* p, double v) {
    *p = __nv_fp8_e5m2(static_cast<float>(v)).__x;
  };
  bad += check_64b<40, 10, mma_e4m3_e5m2_n40_f16acc>(
      "e4m3 x e5m2 m64n40k32, f16 accumulator, -B", 1, put_e4m3, put_e5m2,
      [](int r, int k) { return value(r, k, 7, 5); }, [](int k, int n) { return value(k, n, 8, 5); },
      -1.0, f16_value);
  auto put_byte = [](unsigned char* p, double v) { *p = static_cast<unsigned char>(int(v)); };
  bad += check_64b<48, 24, mma_s8_u8_n48>(
      "s8 x u8 m64n48k32", 1, put_byte, put_byte,
      [](int r, int k) { return double((r * 37 + k * 11) % 256 - 128); },
      [](int k, int n) { return double((k * 13 + n * 29) % 256); }, 1.0,
      [](uint32_t bits) { return double(int32_t(bits)); });
  CHECK(bad == 0);
  std::printf("PASS\n");
  return 0;
}
