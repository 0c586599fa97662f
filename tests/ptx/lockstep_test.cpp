// Two more shortcuts of the engine (docs/ptx-engine.md, "Lock step"): a CTA's
// converged warps issue together, eight at a time, and a full warp whose
// addresses are one address (a broadcast) or one row (lane l at the first plus
// l times the size) is served without forming 32 addresses. Neither may change
// what a program sees: results and statistics equal those of the warps run one
// at a time (as they run under an instruction observer), loads and stores
// equal a host reference, and bad addresses still fault, naming the lane.
#include <cstring>

#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

// Sees every instruction and does nothing: with one, warps run one at a time.
class NullObserver : public InstructionObserver {
 public:
  void executed(Dim3, std::uint32_t, std::uint32_t, const Function&, const Instruction&,
                const std::uint64_t*) override {}
};

// The kernels of `file` on two devices, the second with warps one at a time.
DevicePair both_orders(const std::string& file, NullObserver& observer) {
  auto alone = std::make_unique<Device>(file);
  alone->set_observer(&observer);
  return DevicePair(std::make_unique<Device>(file), std::move(alone));
}

std::vector<float> ramp(std::size_t n, float scale) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>((i * 7919) % 1000) / 997.f;
  return v;
}

TEST(Lockstep, SameBytesAndStatisticsAsWarpsOneAtATime) {
  CNUAS_REQUIRE_NVCC();
  NullObserver observer;
  DevicePair w = both_orders("workloads.ptx", observer);
  // sgemm: shared-memory tiles and bar.sync in a loop; 48 is not a multiple of
  // the 16x16 tile, so the bounds checks diverge in the edge CTAs.
  constexpr int n = 48;
  const auto a = w.upload(ramp(n * n, 1.f)), b = w.upload(ramp(n * n, 2.f));
  const auto c = w.upload(ramp(n * n, 3.f));
  w.launch([&](Device& d, int k) {
    return d.launch("sgemm", {3, 3, 1}, {16, 16, 1}, k ? a.second : a.first, k ? b.second : b.first,
                    k ? c.second : c.first, n, n, n, 1.5f, 0.5f);
  });
  w.expect_same<float>(c, n * n);
  // triad: rows of loads and stores; the last CTA is partly past the end.
  constexpr int m = 10000;
  const auto x = w.upload(ramp(m, 1.f)), y = w.upload(ramp(m, 4.f));
  const auto z = w.upload(std::vector<float>(m, 0.f)), sum = w.upload(std::vector<float>(1, 0.f));
  w.launch([&](Device& d, int k) {
    return d.launch("triad", {40, 1, 1}, {256, 1, 1}, k ? x.second : x.first,
                    k ? y.second : y.first, k ? z.second : z.first, 3.0f, m);
  });
  w.expect_same<float>(z, m);
  // reduce_sum: a tree in shared memory with barriers, then an atomic per CTA
  // (which leaves lock step).
  w.launch([&](Device& d, int k) {
    return d.launch("reduce_sum", {5, 1, 1}, {256, 1, 1}, k ? x.second : x.first,
                    k ? sum.second : sum.first, m);
  });
  w.expect_same<float>(sum, 1);

  // integer_ops: every integer form with a gang handler (add, sub, mul.lo,
  // mul.wide, mad.lo, shl, and/or/xor, mov) on full warps, 24 results each.
  DevicePair ints = both_orders("integer.ptx", observer);
  constexpr int t = 256;
  std::vector<unsigned> xs(t), ys(t);
  for (int k = 0; k < t; ++k) xs[k] = 0x9e3779b9u * (k + 1), ys[k] = 0x85ebca6bu ^ (k * 7919u);
  const auto ix = ints.upload(xs), iy = ints.upload(ys);
  const auto iout = ints.upload(std::vector<unsigned>(t * 24, 0));
  ints.launch([&](Device& d, int k) {
    return d.launch("integer_ops", {1, 1, 1}, {t, 1, 1}, k ? ix.second : ix.first,
                    k ? iy.second : iy.first, k ? iout.second : iout.first, t);
  });
  ints.expect_same<unsigned>(iout, t * 24);

  DevicePair control = both_orders("control.ptx", observer);
  std::vector<int> in(512);
  for (int i = 0; i < 512; ++i) in[i] = (i * 37) % 101;
  const auto din = control.upload(in), dout = control.upload(std::vector<int>(512, 0));
  control.launch([&](Device& d, int k) {
    return d.launch("diverge", {2, 1, 1}, {256, 1, 1}, k ? din.second : din.first,
                    k ? dout.second : dout.first, 500);
  });
  control.expect_same<int>(dout, 512);
}

// %clock counts the instructions the CTA has issued. Between the two reads a
// warp issues 4 instructions (3 adds and the second mov); in lock step the
// other 7 warps of its gang issue theirs in between, 8 x 4 = 32, and alone
// only its own 4: the difference shows which way the warps ran.
constexpr const char* kClockGap = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry gap(.param .u64 out) {
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %clock;
  add.s32 %r3, %r1, 1;
  add.s32 %r3, %r3, 1;
  add.s32 %r3, %r3, 1;
  mov.u32 %r4, %clock;
  sub.s32 %r5, %r4, %r2;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
}
)";

TEST(Lockstep, WarpsOfAGangIssueEachInstructionInTurn) {
  NullObserver observer;
  for (const bool alone : {false, true}) {
    Device d(Module::parse(kClockGap, "gap.ptx"));
    if (alone) d.set_observer(&observer);
    const std::uint64_t out = d.alloc<std::uint32_t>(256);
    d.launch("gap", {1, 1, 1}, {256, 1, 1}, out);
    const auto got = d.download<std::uint32_t>(out, 256);
    for (int t = 0; t < 256; t += 37) EXPECT_EQ(got[t], alone ? 4u : 32u) << "thread " << t;
  }
}

// Gang handlers with operands every warp reads alike: special registers with
// the same lanes in every warp (%laneid, %lanemask_lt, %ctaid, %ntid,
// %nctaid), immediates in any source position (mov, selp between two
// constants, fma with constant factors). Five words per thread.
constexpr const char* kShared = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry shared_sources(.param .u64 out) {
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %nctaid.x;
  mov.u32 %r5, %laneid;
  mov.u32 %r6, %lanemask_lt;
  mad.lo.s32 %r7, %r2, %r3, %r1;
  mul.lo.s32 %r8, %r4, 1000;
  add.s32 %r8, %r8, %r5;
  mov.u32 %r9, 7;
  setp.lt.u32 %p1, %r5, 16;
  selp.b32 %r10, 11, 22, %p1;
  cvt.rn.f32.u32 %f1, %r7;
  fma.rn.f32 %f2, %f1, 0f40000000, 0f3F800000;
  mov.b32 %r11, %f2;
  add.s32 %r12, %r10, %r9;
  mul.lo.s32 %r13, %r7, 5;
  mul.wide.u32 %rd2, %r13, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r7;
  st.global.u32 [%rd3+4], %r8;
  st.global.u32 [%rd3+8], %r6;
  st.global.u32 [%rd3+12], %r12;
  st.global.u32 [%rd3+16], %r11;
  ret;
}
)";

TEST(Lockstep, SharedSourcesEqualTheHostReferenceInBothOrders) {
  NullObserver observer;
  constexpr unsigned ctas = 3, threads = 256, n = ctas * threads;
  for (const bool alone : {false, true}) {
    Device d(Module::parse(kShared, "shared.ptx"));
    if (alone) d.set_observer(&observer);
    const std::uint64_t out = d.alloc<std::uint32_t>(n * 5);
    d.launch("shared_sources", {ctas, 1, 1}, {threads, 1, 1}, out);
    const auto got = d.download<std::uint32_t>(out, n * 5);
    for (unsigned t = 0; t < n; ++t) {
      const unsigned lane = t % 32;
      const float f = static_cast<float>(t) * 2.0f + 1.0f;
      std::uint32_t f_bits;
      std::memcpy(&f_bits, &f, sizeof f_bits);
      const std::uint32_t want[5] = {t, ctas * 1000 + lane, (1u << lane) - 1,
                                     (lane < 16 ? 11u : 22u) + 7, f_bits};
      for (int k = 0; k < 5; ++k)
        ASSERT_EQ(got[t * 5 + k], want[k]) << "thread " << t << " word " << k << " alone " << alone;
    }
  }
}

// Thread t of a CTA of 64: a row load (a[t]), a broadcast load (a[5]), a
// sign-extending row load of shorts and a broadcast byte load; a row store of
// their sum, a truncating row store of shorts, and a broadcast store of t
// (every lane of every warp stores to one word: the last lane of the last
// warp stores last).
constexpr const char* kPatterns = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry patterns(.param .u64 a, .param .u64 s, .param .u64 bytes, .param .u64 out,
                         .param .u64 narrow, .param .u64 last) {
  .reg .b32 %r<12>;
  .reg .b64 %rd<20>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [s];
  ld.param.u64 %rd3, [bytes];
  ld.param.u64 %rd4, [out];
  ld.param.u64 %rd5, [narrow];
  ld.param.u64 %rd6, [last];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd7, %r1, 4;
  add.s64 %rd8, %rd1, %rd7;
  ld.global.u32 %r2, [%rd8];
  ld.global.u32 %r3, [%rd1+20];
  mul.wide.u32 %rd9, %r1, 2;
  add.s64 %rd10, %rd2, %rd9;
  ld.global.s16 %r4, [%rd10];
  ld.global.u8 %r5, [%rd3+3];
  add.s32 %r6, %r2, %r3;
  add.s32 %r6, %r6, %r4;
  add.s32 %r6, %r6, %r5;
  add.s64 %rd11, %rd4, %rd7;
  st.global.u32 [%rd11], %r6;
  add.s64 %rd12, %rd5, %rd9;
  st.global.u16 [%rd12], %r6;
  st.global.u32 [%rd6], %r1;
  ret;
}
)";

TEST(WarpAccess, RowsAndBroadcastsEqualTheHostReference) {
  Device d(Module::parse(kPatterns, "patterns.ptx"));
  constexpr int n = 64;
  std::vector<std::uint32_t> a(n);
  std::vector<std::int16_t> s(n);
  for (int t = 0; t < n; ++t) a[t] = 1000u * t + 17, s[t] = static_cast<std::int16_t>(-300 * t);
  const std::vector<std::uint8_t> bytes = {1, 2, 3, 0xf7};
  const auto da = d.upload(a), ds = d.upload(s), db = d.upload(bytes);
  const auto out = d.alloc<std::uint32_t>(n), narrow = d.alloc<std::uint16_t>(n);
  const auto last = d.upload(std::vector<std::uint32_t>{12345});
  d.launch("patterns", {1, 1, 1}, {n, 1, 1}, da, ds, db, out, narrow, last);
  const auto got = d.download<std::uint32_t>(out, n);
  const auto got16 = d.download<std::uint16_t>(narrow, n);
  for (int t = 0; t < n; ++t) {
    // a[t] + a[5] + sign-extended s[t] + zero-extended 0xf7, modulo 2^32.
    const std::uint32_t want =
        a[t] + a[5] + static_cast<std::uint32_t>(static_cast<std::int32_t>(s[t])) + 0xf7u;
    EXPECT_EQ(got[t], want) << "thread " << t;
    EXPECT_EQ(got16[t], static_cast<std::uint16_t>(want)) << "thread " << t;
  }
  EXPECT_EQ(d.download<std::uint32_t>(last, 1)[0], 63u);
}

// The loads above for the lanes t % 3 != 0 only (a guard), the others' address
// registers pointing nowhere: the inactive lanes neither fault nor change.
// Lanes 16-31 of each warp then read a[t - 16] after a branch: in warp 0 a row
// whose lane 0 would lie before the allocation.
constexpr const char* kDivergedPatterns = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry diverged(.param .u64 a, .param .u64 s, .param .u64 bytes, .param .u64 out) {
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<20>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [s];
  ld.param.u64 %rd3, [bytes];
  ld.param.u64 %rd4, [out];
  mov.u32 %r1, %tid.x;
  rem.u32 %r7, %r1, 3;
  setp.ne.u32 %p1, %r7, 0;
  mul.wide.u32 %rd7, %r1, 4;
  add.s64 %rd8, %rd1, %rd7;
  selp.b64 %rd9, %rd8, 0xdead00000000, %p1;
  mul.wide.u32 %rd10, %r1, 2;
  add.s64 %rd11, %rd2, %rd10;
  selp.b64 %rd11, %rd11, 0xbeef00000000, %p1;
  selp.b64 %rd12, %rd1, 0xfeed00000000, %p1;
  mov.u32 %r2, 0x22222222;
  mov.u32 %r3, 0x33333333;
  mov.u32 %r4, 0x44444444;
  mov.u32 %r5, 0x55555555;
  mov.u32 %r6, 0x66666666;
  @%p1 ld.global.u32 %r2, [%rd9];
  @%p1 ld.global.u32 %r3, [%rd12+20];
  @%p1 ld.global.s16 %r4, [%rd11];
  @%p1 ld.global.u8 %r5, [%rd3+3];
  and.b32 %r9, %r1, 31;
  setp.lt.u32 %p2, %r9, 16;
  @%p2 bra $Lstore;
  add.s64 %rd13, %rd8, -64;
  ld.global.u32 %r6, [%rd13];
$Lstore:
  mul.lo.u32 %r8, %r1, 5;
  mul.wide.u32 %rd14, %r8, 4;
  add.s64 %rd15, %rd4, %rd14;
  st.global.u32 [%rd15], %r2;
  st.global.u32 [%rd15+4], %r3;
  st.global.u32 [%rd15+8], %r4;
  st.global.u32 [%rd15+12], %r5;
  st.global.u32 [%rd15+16], %r6;
  ret;
}
)";

TEST(WarpAccess, DivergedRowsAndBroadcastsTouchOnlyTheActiveLanes) {
  Device d(Module::parse(kDivergedPatterns, "diverged.ptx"));
  constexpr int n = 64;
  std::vector<std::uint32_t> a(n);
  std::vector<std::int16_t> s(n);
  for (int t = 0; t < n; ++t) a[t] = 1000u * t + 17, s[t] = static_cast<std::int16_t>(-300 * t);
  const std::vector<std::uint8_t> bytes = {1, 2, 3, 0xf7};
  const auto da = d.upload(a), ds = d.upload(s), db = d.upload(bytes);
  const auto out = d.alloc<std::uint32_t>(n * 5);
  d.launch("diverged", {1, 1, 1}, {n, 1, 1}, da, ds, db, out);
  const auto got = d.download<std::uint32_t>(out, n * 5);
  for (int t = 0; t < n; ++t) {
    const bool active = t % 3 != 0;
    const std::uint32_t want[5] = {
        active ? a[t] : 0x22222222u, active ? a[5] : 0x33333333u,
        active ? static_cast<std::uint32_t>(static_cast<std::int32_t>(s[t])) : 0x44444444u,
        active ? 0xf7u : 0x55555555u, t % 32 >= 16 ? a[t - 16] : 0x66666666u};
    for (int k = 0; k < 5; ++k)
      EXPECT_EQ(got[t * 5 + k], want[k]) << "thread " << t << " word " << k;
  }
}

// Vector loads: a row of uint4 (lane t at a[4t]), a broadcast uint2 (a[2..3]),
// a row of sign-extended short2 for the lanes t % 3 != 0 only (the others keep
// their values), and the same uint4 row in the diverged lanes.
constexpr const char* kVectorPatterns = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry vectors(.param .u64 a, .param .u64 s, .param .u64 out) {
  .reg .pred %p<2>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [s];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 16;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd5];
  ld.global.v2.u32 {%r6, %r7}, [%rd1+8];
  rem.u32 %r19, %r1, 3;
  setp.ne.u32 %p1, %r19, 0;
  mul.wide.u32 %rd6, %r1, 4;
  add.s64 %rd7, %rd2, %rd6;
  mov.u32 %r8, 0x88888888;
  mov.u32 %r9, 0x99999999;
  @%p1 ld.global.v2.s16 {%r8, %r9}, [%rd7];
  mov.u32 %r10, 0xaaaaaaaa;
  mov.u32 %r11, 0xbbbbbbbb;
  mov.u32 %r12, 0xcccccccc;
  mov.u32 %r13, 0xdddddddd;
  @%p1 ld.global.v4.u32 {%r10, %r11, %r12, %r13}, [%rd5];
  mul.wide.u32 %rd8, %r1, 48;
  add.s64 %rd9, %rd3, %rd8;
  st.global.v4.u32 [%rd9], {%r2, %r3, %r4, %r5};
  st.global.v4.u32 [%rd9+16], {%r6, %r7, %r8, %r9};
  st.global.v4.u32 [%rd9+32], {%r10, %r11, %r12, %r13};
  ret;
}
)";

TEST(WarpAccess, VectorRowsAndBroadcastsEqualTheHostReference) {
  Device d(Module::parse(kVectorPatterns, "vectors.ptx"));
  constexpr int n = 64;
  std::vector<std::uint32_t> a(4 * n);
  std::vector<std::int16_t> s(2 * n);
  for (int k = 0; k < 4 * n; ++k) a[k] = 7919u * k + 3;
  for (int k = 0; k < 2 * n; ++k) s[k] = static_cast<std::int16_t>(-250 * k + 77);
  const auto da = d.upload(a), ds = d.upload(s);
  const auto out = d.alloc<std::uint32_t>(12 * n);
  d.launch("vectors", {1, 1, 1}, {n, 1, 1}, da, ds, out);
  const auto got = d.download<std::uint32_t>(out, 12 * n);
  const auto sext = [](std::int16_t v) { return static_cast<std::uint32_t>(std::int32_t{v}); };
  for (int t = 0; t < n; ++t) {
    const bool active = t % 3 != 0;
    const std::uint32_t want[12] = {a[4 * t],
                                    a[4 * t + 1],
                                    a[4 * t + 2],
                                    a[4 * t + 3],
                                    a[2],
                                    a[3],
                                    active ? sext(s[2 * t]) : 0x88888888u,
                                    active ? sext(s[2 * t + 1]) : 0x99999999u,
                                    active ? a[4 * t] : 0xaaaaaaaau,
                                    active ? a[4 * t + 1] : 0xbbbbbbbbu,
                                    active ? a[4 * t + 2] : 0xccccccccu,
                                    active ? a[4 * t + 3] : 0xddddddddu};
    for (int k = 0; k < 12; ++k)
      EXPECT_EQ(got[t * 12 + k], want[k]) << "thread " << t << " word " << k;
  }
}

// A row load from base + offset for threads 0-31: `rows` words allocated.
constexpr const char* kRowLoad = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry row(.param .u64 a, .param .u64 out, .param .u32 skew) {
  .reg .b32 %r<6>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [skew];
  cvt.u64.u32 %rd3, %r1;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd4, %rd5;
  ld.global.u32 %r3, [%rd6];
  add.s64 %rd7, %rd2, %rd5;
  st.global.u32 [%rd7], %r3;
  ret;
}
)";

std::string fault_of(std::uint32_t words, std::uint32_t skew, Dim3* thread) {
  Device d(Module::parse(kRowLoad, "row.ptx"));
  const auto a = d.upload(std::vector<std::uint32_t>(words, 7));
  const auto out = d.alloc<std::uint32_t>(32);
  try {
    d.launch("row", {1, 1, 1}, {32, 1, 1}, a, out, skew);
  } catch (const ExecutionError& e) {
    *thread = e.thread;
    return e.what();
  }
  return "";
}

TEST(WarpAccess, ARowPastTheAllocationFaultsAtItsFirstBadLane) {
  // 31 words: lanes 0-30 read inside, lane 31 one word past the end.
  Dim3 thread{};
  const std::string what = fault_of(31, 0, &thread);
  EXPECT_NE(what.find("outside"), std::string::npos) << what;
  EXPECT_EQ(thread.x, 31u) << what;
}

TEST(WarpAccess, AMisalignedRowFaultsAtLaneZero) {
  // Every lane's address is 2 bytes past a word: lane 0 is the first misaligned.
  Dim3 thread{};
  const std::string what = fault_of(40, 2, &thread);
  EXPECT_NE(what.find("misaligned address"), std::string::npos) << what;
  EXPECT_EQ(thread.x, 0u) << what;
}

}  // namespace
}  // namespace cnuas::ptx::testing
