// Integer and bit-manipulation kernels; each thread handles one case so the
// host can compare every result with its own reference.
#include <cstdint>

extern "C" __global__ void divrem32(const int* a, const int* b, int* q, int* r, unsigned* uq,
                                    unsigned* ur, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  q[i] = a[i] / b[i];
  r[i] = a[i] % b[i];
  uq[i] = unsigned(a[i]) / unsigned(b[i]);
  ur[i] = unsigned(a[i]) % unsigned(b[i]);
}

extern "C" __global__ void divrem64(const long long* a, const long long* b, long long* q,
                                    long long* r, unsigned long long* uq, unsigned long long* ur,
                                    int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  q[i] = a[i] / b[i];
  r[i] = a[i] % b[i];
  uq[i] = (unsigned long long)a[i] / (unsigned long long)b[i];
  ur[i] = (unsigned long long)a[i] % (unsigned long long)b[i];
}

// Every pos and len from 0 to 63 (the hardware reads 8 bits of each).
extern "C" __global__ void bitfield(unsigned a32, unsigned long long a64, unsigned* bfe_u32,
                                    int* bfe_s32, unsigned long long* bfe_u64, long long* bfe_s64,
                                    unsigned* bfi_b32, unsigned long long* bfi_b64) {
  unsigned pos = threadIdx.x, len = blockIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned u;
  int s;
  unsigned long long u64;
  long long s64;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(u) : "r"(a32), "r"(pos), "r"(len));
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(s) : "r"(a32), "r"(pos), "r"(len));
  asm("bfe.u64 %0, %1, %2, %3;" : "=l"(u64) : "l"(a64), "r"(pos), "r"(len));
  asm("bfe.s64 %0, %1, %2, %3;" : "=l"(s64) : "l"(a64), "r"(pos), "r"(len));
  bfe_u32[i] = u;
  bfe_s32[i] = s;
  bfe_u64[i] = u64;
  bfe_s64[i] = s64;
  unsigned f;
  unsigned long long f64;
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(f) : "r"(a32), "r"(0x5a5a5a5au), "r"(pos), "r"(len));
  asm("bfi.b64 %0, %1, %2, %3, %4;"
      : "=l"(f64)
      : "l"(a64), "l"(0x5a5a5a5a5a5a5a5aull), "r"(pos), "r"(len));
  bfi_b32[i] = f;
  bfi_b64[i] = f64;
}

// Default mode: every 16-bit selector (65536 threads), sign replication included
// (CUDA's __byte_perm masks it off, so this is inline PTX).
extern "C" __global__ void permute(unsigned a, unsigned b, unsigned* out) {
  unsigned sel = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(sel));
  out[sel] = r;
}

// __byte_perm: only the low three bits of each selector nibble count.
extern "C" __global__ void byte_perm(unsigned a, unsigned b, unsigned* out) {
  unsigned sel = blockIdx.x * blockDim.x + threadIdx.x;
  out[sel] = __byte_perm(a, b, sel);
}

// The named modes, each with selectors 0..7.
extern "C" __global__ void permute_modes(unsigned a, unsigned b, unsigned* out) {
  unsigned s = threadIdx.x;
  unsigned r;
  asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(s));
  out[s * 6 + 0] = r;
  asm("prmt.b32.b4e %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(s));
  out[s * 6 + 1] = r;
  asm("prmt.b32.rc8 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(s));
  out[s * 6 + 2] = r;
  asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(s));
  out[s * 6 + 3] = r;
  asm("prmt.b32.ecr %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(s));
  out[s * 6 + 4] = r;
  asm("prmt.b32.rc16 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(s));
  out[s * 6 + 5] = r;
}

// One value per thread through the unary and binary integer operations.
extern "C" __global__ void integer_ops(const unsigned* x, const unsigned* y, unsigned* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned a = x[i], b = y[i];
  int sa = int(a), sb = int(b);
  unsigned long long wa = (unsigned long long)a << 32 | b;
  unsigned* o = out + i * 24;
  o[0] = __popc(a);
  o[1] = __clz(a);
  o[2] = __ffs(a);
  o[3] = __brev(a);
  o[4] = __umulhi(a, b);
  o[5] = unsigned(__mulhi(sa, sb));
  o[6] = __sad(sa, sb, 7u);
  o[7] = unsigned(__dp4a(sa, sb, 11));
  o[8] = __dp4a(a, b, 13u);
  o[9] = unsigned(__dp2a_lo(sa, sb, 5));
  o[10] = __dp2a_hi(a, b, 3u);
  o[11] = __funnelshift_l(a, b, b & 63);
  o[12] = __funnelshift_r(a, b, b & 63);
  o[13] = __funnelshift_lc(a, b, b & 63);
  o[14] = __funnelshift_rc(a, b, b & 63);
  o[15] = unsigned(min(sa, sb)) ^ max(a, b);
  o[16] = unsigned(abs(sa));
  o[17] = a << (b & 31);
  o[18] = unsigned(sa >> (b & 31));
  o[19] = __clzll(wa);
  o[20] = __popcll(wa);
  unsigned lo, hi;  // a 64-bit add from 32-bit halves with the carry flag
  asm("add.cc.u32 %0, %2, %3;\n\taddc.u32 %1, %4, %5;"
      : "=r"(lo), "=r"(hi)
      : "r"(a), "r"(b), "r"(b), "r"(a));
  o[21] = lo ^ (hi * 3u);
  unsigned bf;
  asm("bfind.u32 %0, %1;" : "=r"(bf) : "r"(a));
  o[22] = bf;
  asm("bfind.shiftamt.s32 %0, %1;" : "=r"(bf) : "r"(a));
  o[23] = bf;
}

// lop3 for every lookup table.
extern "C" __global__ void logic3(unsigned a, unsigned b, unsigned c, unsigned* out) {
  unsigned r;
  switch (threadIdx.x) {
#define LOP(n)                                                                  \
  case n:                                                                       \
    asm("lop3.b32 %0, %1, %2, %3, " #n ";" : "=r"(r) : "r"(a), "r"(b), "r"(c)); \
    break;
#define LOP8(n) LOP(n) LOP(n + 1) LOP(n + 2) LOP(n + 3) LOP(n + 4) LOP(n + 5) LOP(n + 6) LOP(n + 7)
    LOP8(0)
    LOP8(8)
    LOP8(16)
    LOP8(24) LOP8(32) LOP8(40) LOP8(48) LOP8(56) LOP8(64) LOP8(72) LOP8(80) LOP8(88) LOP8(96)
        LOP8(104) LOP8(112) LOP8(120) LOP8(128) LOP8(136) LOP8(144) LOP8(152) LOP8(160) LOP8(168)
            LOP8(176) LOP8(184) LOP8(192) LOP8(200) LOP8(208) LOP8(216) LOP8(224) LOP8(232)
                LOP8(240) LOP8(248) default : r = 0;
  }
  out[threadIdx.x] = r;
}

// 64-bit multiply high/wide and 128-bit style products.
extern "C" __global__ void wide_mul(const long long* x, const long long* y, long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long a = x[i], b = y[i];
  out[i * 4 + 0] = __mul64hi(a, b);
  out[i * 4 + 1] = (long long)__umul64hi((unsigned long long)a, (unsigned long long)b);
  out[i * 4 + 2] = (long long)(int)a * (long long)(int)b;  // mul.wide.s32
  out[i * 4 + 3] = a * b;
}
