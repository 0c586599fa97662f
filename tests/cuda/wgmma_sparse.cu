// wgmma.mma_async.sp against a host reference: one warpgroup computes the
// 64 x N tile D = A x B of a 2:4 sparse A (tf32: one element of each pair).
// The host draws a dense A with the ISA's structured sparsity, packs its
// non-zero elements (64 x K/2) and the metadata, and computes the product of
// the unpacked A in double / int64; the kernel stages the packed A (32B
// swizzle, rows of K/2 elements) and B (64B swizzle, N x K, K-major) in
// shared memory, or gives A from registers in the m16n8 fragment layout of
// the dense K/2 shape, and passes each lane's metadata word.
// Metadata (ISA "Sparse matrix storage", the mma.sp figures the wgmma .sp
// section refers to): in each group of four lanes (g = lane / 4) of a warp,
// the lanes the selector names hold the chunks of rows 16w + g (bits 0-15) and
// 16w + g + 8 (bits 16-31), four 4-bit chunks each: nibble = i0 | i1 << 2, the
// unit indices of the chunk's two non-zeros (tf32: 0x4 or 0xe). The lanes the
// selector does not name hold 0xffffffff, invalid metadata the engine would
// stop on if it read it.
// Forms: f16 (selector 1), bf16 with A in registers (selector 0), tf32
// (selector 1), e4m3 x e5m2 (selector 0), s8 x u8 with A in registers.
// Prints PASS.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "check.h"

// ---- the instruction forms (inline PTX); scale-d = 0: D = A x B ----
__device__ void sp_f16(float* d, uint64_t a, uint64_t b, uint32_t meta) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
      "wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, "
      "%8, %9, %10, 1, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7])
      : "l"(a), "l"(b), "r"(meta));
}

__device__ void sp_bf16_regs(float* d, const uint32_t* a, uint64_t b, uint32_t meta) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
      "wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, "
      "%7}, {%8, %9, %10, %11}, %12, %13, 0, p, 1, 1, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(meta));
}

__device__ void sp_tf32(float* d, uint64_t a, uint64_t b, uint32_t meta) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
      "wgmma.mma_async.sp.sync.aligned.m64n16k16.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, "
      "%7}, %8, %9, %10, 1, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7])
      : "l"(a), "l"(b), "r"(meta));
}

__device__ void sp_e4m3_e5m2(float* d, uint64_t a, uint64_t b, uint32_t meta) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
      "wgmma.mma_async.sp.sync.aligned.m64n16k64.f32.e4m3.e5m2 {%0, %1, %2, %3, %4, %5, %6, "
      "%7}, %8, %9, %10, 0, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7])
      : "l"(a), "l"(b), "r"(meta));
}

__device__ void sp_s8_u8_regs(uint32_t* d, const uint32_t* a, uint64_t b, uint32_t meta) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
      "wgmma.mma_async.sp.sync.aligned.m64n16k64.s32.s8.u8 {%0, %1, %2, %3, %4, %5, %6, %7}, "
      "{%8, %9, %10, %11}, %12, %13, 0, p;\n}\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]),
        "+r"(d[7])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(meta));
}

// ---- staging ----
constexpr int kThreads = 128, N = 16;
__shared__ alignas(1024) unsigned char smem_a[64 * 32];
__shared__ alignas(1024) unsigned char smem_b[N * 64];

// Byte kb of row r in a K-major tile with rows of `w` bytes (32 or 64) swizzled at that width:
// the 16-byte chunk c of row r % 8 of an 8-row group lands at c ^ ((r % 8) / (128 / w)).
__device__ int swizzled(int w, int r, int kb) {
  const int x = (r % 8) / (128 / w), chunk = kb / 16;
  return (r / 8) * 8 * w + (r % 8) * w + ((chunk ^ x) * 16) + kb % 16;
}

__device__ uint64_t descriptor(const void* smem, int stride, int swizzle_code) {
  const uint32_t a = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  return (uint64_t(a >> 4) & 0x3fff) | (uint64_t(1) << 16) |
         ((uint64_t(stride >> 4) & 0x3fff) << 32) | (uint64_t(swizzle_code) << 62);
}

__device__ void wgmma_sync() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}

// Kinds: 0 f16, 1 bf16 (A in registers), 2 tf32, 3 e4m3 x e5m2, 4 s8 x u8 (A in registers).
// a: packed A, 64 rows of 32 bytes; b: N rows of 64 bytes; meta: one word per thread.
__global__ void sparse_tile(int kind, const unsigned char* a, const unsigned char* b,
                            const uint32_t* meta, uint32_t* d) {
  for (int i = threadIdx.x; i < 64 * 32; i += kThreads) smem_a[swizzled(32, i / 32, i % 32)] = a[i];
  for (int i = threadIdx.x; i < N * 64; i += kThreads) smem_b[swizzled(64, i / 64, i % 64)] = b[i];
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  // The A fragment of the dense K/2 shape: register i holds row g + 8 (i % 2) of the warp's
  // 16, bytes 4t .. 4t + 3 of the 16-byte half i / 2 of the row (16-bit: columns 2t, 2t + 1
  // (+ 8); 8-bit: columns 4t .. 4t + 3 (+ 16)).
  uint32_t frag[4];
  for (int i = 0; i < 4; ++i) {
    const int row = 16 * warp + g + 8 * (i % 2), byte = 16 * (i / 2) + 4 * t;
    std::memcpy(&frag[i], a + row * 32 + byte, 4);
  }
  const uint64_t da = descriptor(smem_a, 8 * 32, 3), db = descriptor(smem_b, 8 * 64, 2);
  const uint32_t m = meta[threadIdx.x];
  float acc[8];
  uint32_t iacc[8];
  for (int e = 0; e < 8; ++e) acc[e] = 7.0f, iacc[e] = 7;  // scale-d = 0 drops these
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  if (kind == 0) sp_f16(acc, da, db, m);
  if (kind == 1) sp_bf16_regs(acc, frag, db, m);
  if (kind == 2) sp_tf32(acc, da, db, m);
  if (kind == 3) sp_e4m3_e5m2(acc, da, db, m);
  if (kind == 4) sp_s8_u8_regs(iacc, frag, db, m);
  wgmma_sync();
  for (int e = 0; e < 8; ++e) {
    const int row = 16 * warp + g + 8 * ((e / 2) % 2), col = 8 * (e / 4) + 2 * t + e % 2;
    uint32_t bits;
    std::memcpy(&bits, &acc[e], 4);
    d[row * N + col] = kind == 4 ? iacc[e] : bits;
  }
}

// ---- host ----
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

template <class T>
static T* to_device(const std::vector<T>& v) {
  T* p = nullptr;
  if (cudaMalloc(&p, v.size() * sizeof(T)) != cudaSuccess) return nullptr;
  cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice);
  return p;
}

struct Kind {
  const char* name;
  int eb;  // bytes per element
  bool tf32;
  int selector;
  void (*put)(unsigned char*, double);
  double (*value)(std::mt19937&);
  bool integer;
};

static void put_f16(unsigned char* p, double v) {
  const __half h = __float2half(static_cast<float>(v));
  std::memcpy(p, &h, 2);
}
static void put_bf16(unsigned char* p, double v) {
  const __nv_bfloat16 h = __float2bfloat16(static_cast<float>(v));
  std::memcpy(p, &h, 2);
}
static void put_f32(unsigned char* p, double v) {
  const float f = static_cast<float>(v);
  std::memcpy(p, &f, 4);
}
static void put_e4m3(unsigned char* p, double v) {
  *p = __nv_fp8_e4m3(static_cast<float>(v)).__x;
}
static void put_e5m2(unsigned char* p, double v) {
  *p = __nv_fp8_e5m2(static_cast<float>(v)).__x;
}
static void put_byte(unsigned char* p, double v) {
  *p = static_cast<unsigned char>(static_cast<int>(v));
}
static double halves(std::mt19937& r) {  // -3 .. 3 in steps of 0.5
  return (int(r() % 13) - 6) * 0.5;
}
static double quarters(std::mt19937& r) {  // -2 .. 2 in steps of 0.25
  return (int(r() % 17) - 8) * 0.25;
}
static double s8(std::mt19937& r) {
  return int(r() % 256) - 128;
}
static double u8(std::mt19937& r) {
  return r() % 256;
}

// One form: A 64 x K (K = 32 / eb * 2 elements: packed rows of 32 bytes), B N x K.
static int check(int kind, const Kind& ka, void (*put_b)(unsigned char*, double),
                 double (*value_b)(std::mt19937&), unsigned seed) {
  std::mt19937 rng(seed);
  const int K = 2 * 32 / ka.eb, KP = K / 2;
  const int chunk = ka.tf32 ? 2 : 4, chunks = K / chunk, threads = chunks / 4;
  std::vector<double> a(64 * K, 0.0), b(N * K);
  std::vector<unsigned char> packed(64 * 32), bb(N * 64);
  std::vector<uint32_t> meta(kThreads, 0xffffffffu);
  for (int w = 0; w < 4; ++w)
    for (int lane = 0; lane < 32; ++lane)
      if (lane % 4 >= ka.selector * threads && lane % 4 < (ka.selector + 1) * threads)
        meta[32 * w + lane] = 0;
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < chunks; ++c) {
      int keep[2], kept;
      uint32_t nibble;
      if (ka.tf32) {
        keep[0] = rng() % 2, kept = 1;
        nibble = keep[0] ? 0xe : 0x4;
      } else {
        keep[0] = rng() % 3, keep[1] = keep[0] + 1 + rng() % (3 - keep[0]), kept = 2;
        nibble = keep[0] | (keep[1] << 2);
      }
      for (int s = 0; s < kept; ++s) {
        const double v = ka.value(rng);
        a[r * K + c * chunk + keep[s]] = v;
        ka.put(&packed[(r * KP + c * kept + s) * ka.eb], v);
      }
      const int wr = r % 16, lane = 4 * (wr % 8) + ka.selector * threads + c / 4;
      meta[32 * (r / 16) + lane] |= nibble << ((wr >= 8 ? 16 : 0) + 4 * (c % 4));
    }
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) {
      b[n * K + k] = value_b(rng);
      put_b(&bb[(n * K + k) * ka.eb], b[n * K + k]);
    }
  unsigned char *da = to_device(packed), *db = to_device(bb);
  uint32_t* dm = to_device(meta);
  uint32_t* dd = nullptr;
  CUDA_OK(cudaMalloc(&dd, 64 * N * 4));
  sparse_tile<<<1, kThreads>>>(kind, da, db, dm, dd);
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<uint32_t> got(64 * N);
  CUDA_OK(cudaMemcpy(got.data(), dd, got.size() * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int r = 0; r < 64; ++r)
    for (int n = 0; n < N; ++n) {
      double sum = 0;
      for (int k = 0; k < K; ++k) sum += a[r * K + k] * b[n * K + k];
      const uint32_t raw = got[r * N + n];
      float f;
      std::memcpy(&f, &raw, 4);
      const double have = ka.integer ? double(int32_t(raw)) : double(f);
      if (have != sum && ++bad <= 3)
        std::fprintf(stderr, "%s: D[%d][%d] is %g, expected %g\n", ka.name, r, n, have, sum);
    }
  if (bad) std::fprintf(stderr, "%s: %d elements wrong\n", ka.name, bad);
  cudaFree(da), cudaFree(db), cudaFree(dm), cudaFree(dd);
  return bad;
}

int main() {
  int bad = 0;
  bad += check(0, {"f16 m64n16k32, selector 1", 2, false, 1, put_f16, halves, false}, put_f16,
               halves, 1);
  bad += check(1, {"bf16 m64n16k32, A in registers", 2, false, 0, put_bf16, halves, false},
               put_bf16, halves, 2);
  bad += check(2, {"tf32 m64n16k16, selector 1", 4, true, 1, put_f32, quarters, false}, put_f32,
               quarters, 3);
  bad += check(3, {"e4m3 x e5m2 m64n16k64", 1, false, 0, put_e4m3, quarters, false}, put_e5m2,
               quarters, 4);
  bad += check(4, {"s8 x u8 m64n16k64, A in registers", 1, false, 0, put_byte, s8, true}, put_byte,
               u8, 5);
  CHECK(bad == 0);
  std::printf("PASS\n");
  return 0;
}
