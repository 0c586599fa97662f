// Integer kernels against host references written from the PTX ISA's
// definitions (not from the engine's code).
#include <climits>
#include <cstdint>

#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

std::uint64_t low_mask(unsigned n) {
  return n >= 64 ? ~0ull : (1ull << n) - 1;
}

// bfe: the field [pos, pos+len) of a; bits past the value's width read as the
// sign bit (signed) or zero (unsigned), and the result is sign-extended from the
// field's last existing bit.
std::uint64_t ref_bfe(std::uint64_t a, unsigned pos, unsigned len, unsigned width, bool sgn) {
  a &= low_mask(width);
  if (len == 0) return 0;
  const std::uint64_t field = pos >= width ? 0 : (a >> pos);
  const unsigned have = pos >= width ? 0 : std::min(len, width - pos);
  std::uint64_t d = field & low_mask(have);
  if (sgn) {
    const unsigned top = std::min(pos + len - 1, width - 1);
    if ((a >> top) & 1) d |= ~low_mask(have);
  }
  return d & low_mask(width);
}

std::uint64_t ref_bfi(std::uint64_t a, std::uint64_t b, unsigned pos, unsigned len,
                      unsigned width) {
  if (pos >= width || len == 0) return b & low_mask(width);
  const unsigned n = std::min(len, width - pos);
  const std::uint64_t m = low_mask(n) << pos;
  return ((b & ~m) | ((a << pos) & m)) & low_mask(width);
}

TEST(PtxInteger, DivisionAndRemainderAtEveryEdge32) {
  CNUAS_REQUIRE_NVCC();
  const std::vector<int> values{INT_MIN, INT_MIN + 1, -7, -2, -1, 0, 1, 2, 7, INT_MAX - 1, INT_MAX};
  std::vector<int> a, b;
  for (int x : values)
    for (int y : values)
      if (y != 0) a.push_back(x), b.push_back(y);
  const int n = static_cast<int>(a.size());
  Device dev("integer.ptx");
  auto da = dev.upload(a), db = dev.upload(b);
  auto q = dev.alloc<int>(n), r = dev.alloc<int>(n), uq = dev.alloc<unsigned>(n),
       ur = dev.alloc<unsigned>(n);
  dev.launch("divrem32", {1, 1, 1}, {static_cast<std::uint32_t>(n), 1, 1}, da, db, q, r, uq, ur, n);
  auto hq = dev.download<int>(q, n), hr = dev.download<int>(r, n);
  auto huq = dev.download<unsigned>(uq, n), hur = dev.download<unsigned>(ur, n);
  for (int k = 0; k < n; ++k) {
    const long long x = a[k], y = b[k];
    // In two's complement INT_MIN / -1 overflows: PTX wraps to INT_MIN, remainder 0.
    const long long eq = (x == INT_MIN && y == -1) ? INT_MIN : x / y;
    const long long er = (x == INT_MIN && y == -1) ? 0 : x % y;
    EXPECT_EQ(hq[k], eq) << x << " / " << y;
    EXPECT_EQ(hr[k], er) << x << " % " << y;
    EXPECT_EQ(huq[k], static_cast<unsigned>(x) / static_cast<unsigned>(y)) << x << " /u " << y;
    EXPECT_EQ(hur[k], static_cast<unsigned>(x) % static_cast<unsigned>(y)) << x << " %u " << y;
  }
}

TEST(PtxInteger, DivisionAndRemainderAtEveryEdge64) {
  CNUAS_REQUIRE_NVCC();
  const std::vector<long long> values{LLONG_MIN, LLONG_MIN + 1,   -(1ll << 32) - 3, -7, -1, 0, 1,
                                      3,         (1ll << 32) + 5, LLONG_MAX};
  std::vector<long long> a, b;
  for (long long x : values)
    for (long long y : values)
      if (y != 0) a.push_back(x), b.push_back(y);
  const int n = static_cast<int>(a.size());
  Device dev("integer.ptx");
  auto da = dev.upload(a), db = dev.upload(b);
  auto q = dev.alloc<long long>(n), r = dev.alloc<long long>(n);
  auto uq = dev.alloc<unsigned long long>(n), ur = dev.alloc<unsigned long long>(n);
  dev.launch("divrem64", {1, 1, 1}, {static_cast<std::uint32_t>(n), 1, 1}, da, db, q, r, uq, ur, n);
  auto hq = dev.download<long long>(q, n), hr = dev.download<long long>(r, n);
  auto huq = dev.download<unsigned long long>(uq, n), hur = dev.download<unsigned long long>(ur, n);
  for (int k = 0; k < n; ++k) {
    const long long x = a[k], y = b[k];
    const bool overflow = x == LLONG_MIN && y == -1;
    EXPECT_EQ(hq[k], overflow ? LLONG_MIN : x / y) << x << " / " << y;
    EXPECT_EQ(hr[k], overflow ? 0 : x % y) << x << " % " << y;
    EXPECT_EQ(huq[k], static_cast<unsigned long long>(x) / static_cast<unsigned long long>(y));
    EXPECT_EQ(hur[k], static_cast<unsigned long long>(x) % static_cast<unsigned long long>(y));
  }
}

TEST(PtxInteger, BitFieldExtractAndInsertOverEveryPositionAndLength) {
  CNUAS_REQUIRE_NVCC();
  Device dev("integer.ptx");
  const unsigned a32 = 0xb4c3d2e1u;
  const unsigned long long a64 = 0x9f8e7d6c5b4a3928ull;
  const int n = 64 * 64;
  auto u32 = dev.alloc<unsigned>(n), s32 = dev.alloc<int>(n),
       u64 = dev.alloc<unsigned long long>(n), s64 = dev.alloc<long long>(n),
       i32 = dev.alloc<unsigned>(n), i64 = dev.alloc<unsigned long long>(n);
  dev.launch("bitfield", {64, 1, 1}, {64, 1, 1}, a32, a64, u32, s32, u64, s64, i32, i64);
  auto hu32 = dev.download<unsigned>(u32, n);
  auto hs32 = dev.download<int>(s32, n);
  auto hu64 = dev.download<unsigned long long>(u64, n);
  auto hs64 = dev.download<long long>(s64, n);
  auto hi32 = dev.download<unsigned>(i32, n);
  auto hi64 = dev.download<unsigned long long>(i64, n);
  for (unsigned len = 0; len < 64; ++len)
    for (unsigned pos = 0; pos < 64; ++pos) {
      const unsigned k = len * 64 + pos;
      EXPECT_EQ(hu32[k], ref_bfe(a32, pos, len, 32, false))
          << "bfe.u32 pos " << pos << " len " << len;
      EXPECT_EQ(static_cast<unsigned>(hs32[k]), ref_bfe(a32, pos, len, 32, true))
          << "bfe.s32 pos " << pos << " len " << len;
      EXPECT_EQ(hu64[k], ref_bfe(a64, pos, len, 64, false))
          << "bfe.u64 pos " << pos << " len " << len;
      EXPECT_EQ(static_cast<unsigned long long>(hs64[k]), ref_bfe(a64, pos, len, 64, true))
          << "bfe.s64 pos " << pos << " len " << len;
      EXPECT_EQ(hi32[k], ref_bfi(a32, 0x5a5a5a5au, pos, len, 32))
          << "bfi.b32 pos " << pos << " len " << len;
      EXPECT_EQ(hi64[k], ref_bfi(a64, 0x5a5a5a5a5a5a5a5aull, pos, len, 64))
          << "bfi.b64 pos " << pos << " len " << len;
    }
}

TEST(PtxInteger, PermuteOverEverySelector) {
  CNUAS_REQUIRE_NVCC();
  Device dev("integer.ptx");
  const unsigned a = 0x83a2c1f0u, b = 0x17e6957cu;
  auto out = dev.alloc<unsigned>(65536);
  dev.launch("permute", {256, 1, 1}, {256, 1, 1}, a, b, out);
  auto h = dev.download<unsigned>(out, 65536);
  const unsigned char bytes[8] = {0xf0, 0xc1, 0xa2, 0x83, 0x7c, 0x95, 0xe6, 0x17};
  for (unsigned sel = 0; sel < 65536; ++sel) {
    unsigned expect = 0;
    for (unsigned k = 0; k < 4; ++k) {
      const unsigned nib = (sel >> (4 * k)) & 0xf;
      unsigned char v = bytes[nib & 7];
      if (nib & 8) v = (v & 0x80) ? 0xff : 0x00;
      expect |= static_cast<unsigned>(v) << (8 * k);
    }
    ASSERT_EQ(h[sel], expect) << "selector " << std::hex << sel;
  }
  dev.launch("byte_perm", {256, 1, 1}, {256, 1, 1}, a, b, out);
  h = dev.download<unsigned>(out, 65536);
  for (unsigned sel = 0; sel < 65536; ++sel) {
    unsigned expect = 0;
    for (unsigned k = 0; k < 4; ++k) expect |= unsigned{bytes[(sel >> (4 * k)) & 7]} << (8 * k);
    ASSERT_EQ(h[sel], expect) << "__byte_perm selector " << std::hex << sel;
  }
}

TEST(PtxInteger, PermuteModesMatchTheIsaTable) {
  CNUAS_REQUIRE_NVCC();
  Device dev("integer.ptx");
  const unsigned a = 0x33221100u, b = 0x77665544u;  // byte k holds 0xkk
  auto out = dev.alloc<unsigned>(8 * 6);
  dev.launch("permute_modes", {1, 1, 1}, {8, 1, 1}, a, b, out);
  auto h = dev.download<unsigned>(out, 48);
  // The PTX ISA's tables: for selector 0..3, the source byte of d.b3 d.b2 d.b1 d.b0.
  const char* table[6][4] = {{"3210", "4321", "5432", "6543"}, {"5670", "6701", "7012", "0123"},
                             {"0000", "1111", "2222", "3333"}, {"3210", "3211", "3222", "3333"},
                             {"0000", "1110", "2210", "3210"}, {"1010", "3232", "1010", "3232"}};
  const char* names[6] = {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
  for (unsigned s = 0; s < 8; ++s)
    for (unsigned m = 0; m < 6; ++m) {
      const char* t = table[m][s & 3];
      unsigned expect = 0;
      for (unsigned k = 0; k < 4; ++k) {
        const unsigned src = static_cast<unsigned>(t[3 - k] - '0');
        expect |= (src * 0x11u) << (8 * k);
      }
      EXPECT_EQ(h[s * 6 + m], expect) << names[m] << " selector " << s;
    }
}

unsigned ref_funnel(unsigned lo, unsigned hi, unsigned n, bool left, bool clamp) {
  n = clamp ? std::min(n, 32u) : n & 31;
  const unsigned long long both = (static_cast<unsigned long long>(hi) << 32) | lo;
  return left ? static_cast<unsigned>((both << n) >> 32) : static_cast<unsigned>(both >> n);
}

TEST(PtxInteger, ScalarOperationsMatchHostReferences) {
  CNUAS_REQUIRE_NVCC();
  std::vector<unsigned> x{0,           1,  0x80000000u, 0xffffffffu, 0x12345678u, 0x0f0f0f0fu,
                          0xdeadbeefu, 40, 7,           0x80000001u, 0x7fffffffu, 12345};
  std::vector<unsigned> y{0,           31, 0xffffffffu, 1, 0x9abcdef0u, 33,
                          0x01020304u, 63, 0xfffffff9u, 2, 32,          0x80808080u};
  const int n = static_cast<int>(x.size());
  Device dev("integer.ptx");
  auto dx = dev.upload(x), dy = dev.upload(y);
  auto out = dev.alloc<unsigned>(n * 24);
  dev.launch("integer_ops", {1, 1, 1}, {32, 1, 1}, dx, dy, out, n);
  auto h = dev.download<unsigned>(out, n * 24);
  for (int i = 0; i < n; ++i) {
    const unsigned a = x[i], b = y[i];
    const int sa = static_cast<int>(a), sb = static_cast<int>(b);
    const unsigned* o = &h[i * 24];
    const unsigned long long wa = (static_cast<unsigned long long>(a) << 32) | b;
    EXPECT_EQ(o[0], static_cast<unsigned>(__builtin_popcount(a))) << i;
    EXPECT_EQ(o[1], a ? static_cast<unsigned>(__builtin_clz(a)) : 32u) << i;
    EXPECT_EQ(o[2], static_cast<unsigned>(__builtin_ffs(sa))) << i;
    unsigned rev = 0;
    for (int k = 0; k < 32; ++k) rev |= ((a >> k) & 1u) << (31 - k);
    EXPECT_EQ(o[3], rev) << i;
    EXPECT_EQ(o[4], static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32)) << i;
    EXPECT_EQ(o[5], static_cast<unsigned>((static_cast<long long>(sa) * sb) >> 32)) << i;
    EXPECT_EQ(o[6], static_cast<unsigned>(std::llabs(static_cast<long long>(sa) - sb) + 7)) << i;
    int dp = 11;
    unsigned udp = 13;
    for (int k = 0; k < 4; ++k) {
      dp += static_cast<signed char>(a >> (8 * k)) * static_cast<signed char>(b >> (8 * k));
      udp += ((a >> (8 * k)) & 0xff) * ((b >> (8 * k)) & 0xff);
    }
    EXPECT_EQ(o[7], static_cast<unsigned>(dp)) << i;
    EXPECT_EQ(o[8], udp) << i;
    int dlo = 5;
    unsigned dhi = 3;
    for (int k = 0; k < 2; ++k) {
      dlo += static_cast<short>(a >> (16 * k)) * static_cast<signed char>(b >> (8 * k));
      dhi += ((a >> (16 * k)) & 0xffff) * ((b >> (8 * (k + 2))) & 0xff);
    }
    EXPECT_EQ(o[9], static_cast<unsigned>(dlo)) << i;
    EXPECT_EQ(o[10], dhi) << i;
    EXPECT_EQ(o[11], ref_funnel(a, b, b & 63, true, false)) << i;
    EXPECT_EQ(o[12], ref_funnel(a, b, b & 63, false, false)) << i;
    EXPECT_EQ(o[13], ref_funnel(a, b, b & 63, true, true)) << i;
    EXPECT_EQ(o[14], ref_funnel(a, b, b & 63, false, true)) << i;
    EXPECT_EQ(o[15], static_cast<unsigned>(std::min(sa, sb)) ^ std::max(a, b)) << i;
    EXPECT_EQ(o[16], sa == INT_MIN ? 0x80000000u : static_cast<unsigned>(std::abs(sa))) << i;
    EXPECT_EQ(o[17], a << (b & 31)) << i;
    EXPECT_EQ(o[18], static_cast<unsigned>(sa >> (b & 31))) << i;
    EXPECT_EQ(o[19], wa ? static_cast<unsigned>(__builtin_clzll(wa)) : 64u) << i;
    EXPECT_EQ(o[20], static_cast<unsigned>(__builtin_popcountll(wa))) << i;
    const unsigned long long sum = static_cast<unsigned long long>(a) + b;
    const unsigned lo = static_cast<unsigned>(sum), hi = b + a + static_cast<unsigned>(sum >> 32);
    EXPECT_EQ(o[21], lo ^ (hi * 3u)) << i;
    EXPECT_EQ(o[22], a ? 31u - static_cast<unsigned>(__builtin_clz(a)) : 0xffffffffu) << i;
    // bfind.shiftamt.s32: the first bit that differs from the sign, counted from the top.
    const unsigned v = (sa < 0) ? ~a : a;
    EXPECT_EQ(o[23], v ? static_cast<unsigned>(__builtin_clz(v)) : 0xffffffffu) << i;
  }
}

TEST(PtxInteger, Lop3ForEveryLookupTable) {
  CNUAS_REQUIRE_NVCC();
  Device dev("integer.ptx");
  const unsigned a = 0xf0f0f0f0u, b = 0xccccccccu, c = 0xaaaaaaaau;
  auto out = dev.alloc<unsigned>(256);
  dev.launch("logic3", {1, 1, 1}, {256, 1, 1}, a, b, c, out);
  auto h = dev.download<unsigned>(out, 256);
  // With these canonical inputs the result is the lookup table repeated.
  for (unsigned lut = 0; lut < 256; ++lut) EXPECT_EQ(h[lut], lut * 0x01010101u) << "lut " << lut;
}

TEST(PtxInteger, WideAndHighProducts) {
  CNUAS_REQUIRE_NVCC();
  std::vector<long long> x{LLONG_MIN, -1, 3, LLONG_MAX, 0x123456789abcdefll, -987654321012345ll};
  std::vector<long long> y{-1, LLONG_MIN, LLONG_MAX, LLONG_MAX, -0x0fedcba987654321ll, 77};
  const int n = static_cast<int>(x.size());
  Device dev("integer.ptx");
  auto dx = dev.upload(x), dy = dev.upload(y);
  auto out = dev.alloc<long long>(n * 4);
  dev.launch("wide_mul", {1, 1, 1}, {8, 1, 1}, dx, dy, out, n);
  auto h = dev.download<long long>(out, n * 4);
  __extension__ typedef __int128 i128;
  __extension__ typedef unsigned __int128 u128;
  for (int i = 0; i < n; ++i) {
    const i128 p = static_cast<i128>(x[i]) * y[i];
    const u128 up = static_cast<u128>(static_cast<unsigned long long>(x[i])) *
                    static_cast<unsigned long long>(y[i]);
    EXPECT_EQ(h[i * 4 + 0], static_cast<long long>(p >> 64)) << i;
    EXPECT_EQ(static_cast<unsigned long long>(h[i * 4 + 1]),
              static_cast<unsigned long long>(up >> 64))
        << i;
    EXPECT_EQ(h[i * 4 + 2], static_cast<long long>(static_cast<int>(x[i])) * static_cast<int>(y[i]))
        << i;
    EXPECT_EQ(static_cast<unsigned long long>(h[i * 4 + 3]),
              static_cast<unsigned long long>(x[i]) * static_cast<unsigned long long>(y[i]))
        << i;
  }
}

}  // namespace
}  // namespace cnuas::ptx::testing
