// The engine's two shortcuts for frequent work (ptx/src/fast_paths.h,
// ptx/src/register_init.h): instructions tagged with a FastForm run their
// handler directly, and a new CTA zeroes only the registers a thread may read
// before writing them. Both must change nothing a program can see: the same
// kernels run on a copy of the module with both shortcuts off (no tags, every
// register zeroed, as before they existed) give the same bytes and statistics.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

std::shared_ptr<const Module> parse_kernels(const std::string& file) {
  return Module::parse(read_text(std::string(CNUAS_PTX_DIR) + "/" + file), file);
}

// The module as the engine ran it before the shortcuts.
std::shared_ptr<const Module> without_shortcuts(const Module& m) {
  auto copy = std::make_shared<Module>(m);
  for (Function& f : copy->functions) {
    for (Instruction& i : f.code) i.fast = FastForm::None;
    f.zeroed_registers.clear();
    f.zeroed_registers_known = false;
  }
  return copy;
}

unsigned f32_bits(float f) {
  unsigned b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

const Instruction* first_with_text(const Function& f, const std::string& text) {
  for (const Instruction& i : f.code)
    if (i.text.find(text) != std::string::npos) return &i;
  return nullptr;
}

TEST(FastForms, ParserTagsTheFrequentFormsOnly) {
  CNUAS_REQUIRE_NVCC();
  const auto m = parse_kernels("workloads.ptx");
  const Function* sgemm = m->find("sgemm");
  ASSERT_NE(sgemm, nullptr);
  // What each form is, from the ISA's spelling of the instruction.
  const std::pair<const char*, FastForm> expected[] = {
      {"ld.global.f32", FastForm::Load4},     {"st.shared.f32", FastForm::Store4},
      {"ld.shared.f32", FastForm::Load4},     {"mad.lo.s32", FastForm::MadLoU32},
      {"mul.wide.s32", FastForm::MulWideS32}, {"setp.lt.s32", FastForm::SetpInt},
      {"add.s64", FastForm::AddAny},          {"fma.rn.f32", FastForm::FmaF32},
      {"bar.sync", FastForm::None},
  };
  for (const auto& [text, form] : expected) {
    const Instruction* i = first_with_text(*sgemm, text);
    ASSERT_NE(i, nullptr) << text << " not in sgemm's PTX";
    EXPECT_EQ(i->fast, form) << i->text;
  }
}

// cvta between generic and global addresses adds a window of 0: the mov of
// its width. The windowed spaces (shared, local, param) are not tagged.
TEST(FastForms, GlobalCvtaIsTaggedAsAMovAndWindowedCvtaIsNot) {
  const auto m = Module::parse(R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p) {
  .reg .b64 %rd<6>;
  .reg .b32 %r<3>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  cvta.global.u64 %rd3, %rd2;
  cvta.to.shared.u64 %rd4, %rd3;
  cvta.local.u64 %rd5, %rd4;
  cvta.to.global.u32 %r1, %r2;
  ret;
}
)",
                               "cvta.ptx");
  const Function* k = m->find("k");
  ASSERT_NE(k, nullptr);
  const std::pair<const char*, FastForm> expected[] = {
      {"cvta.to.global.u64", FastForm::Mov64}, {"cvta.global.u64", FastForm::Mov64},
      {"cvta.to.shared.u64", FastForm::None},  {"cvta.local.u64", FastForm::None},
      {"cvta.to.global.u32", FastForm::Mov32},
  };
  for (const auto& [text, form] : expected) {
    const Instruction* i = first_with_text(*k, text);
    ASSERT_NE(i, nullptr) << text;
    EXPECT_EQ(i->fast, form) << i->text;
  }
}

// The kernels of `file` with the shortcuts and without them.
DevicePair both_ways(const std::string& file) {
  auto fast = std::make_unique<Device>(parse_kernels(file));
  auto plain = std::make_unique<Device>(without_shortcuts(fast->module()));
  return DevicePair(std::move(fast), std::move(plain));
}

template <class T>
std::vector<T> pattern(std::size_t n, std::uint32_t seed) {
  std::vector<T> v(n);
  std::uint32_t x = seed;
  for (auto& e : v) {
    x = x * 1664525u + 1013904223u;
    e = static_cast<T>(x >> 8) / static_cast<T>(1 << 16);
  }
  return v;
}

TEST(FastForms, SameBytesAndStatisticsAsTheGenericPath) {
  CNUAS_REQUIRE_NVCC();
  DevicePair w = both_ways("workloads.ptx");
  constexpr int n = 48;  // not a multiple of the 16x16 tile: the bounds checks diverge
  const auto a = w.upload(pattern<float>(n * n, 1)), b = w.upload(pattern<float>(n * n, 2));
  const auto c = w.upload(pattern<float>(n * n, 3));
  w.launch([&](Device& d, int k) {
    const std::uint64_t* p[] = {&a.first, &a.second};
    const std::uint64_t* q[] = {&b.first, &b.second};
    const std::uint64_t* r[] = {&c.first, &c.second};
    return d.launch("sgemm", {3, 3, 1}, {16, 16, 1}, *p[k], *q[k], *r[k], n, n, n, 1.5f, 0.5f);
  });
  w.expect_same<float>(c, n * n);
  constexpr int m = 10000;
  const auto x = w.upload(pattern<float>(m, 4)), y = w.upload(pattern<float>(m, 5));
  const auto z = w.upload(std::vector<float>(m, 0.f)), sum = w.upload(std::vector<float>(1, 0.f));
  w.launch([&](Device& d, int k) {
    return d.launch("triad", {7, 1, 1}, {256, 1, 1}, k ? x.second : x.first, k ? y.second : y.first,
                    k ? z.second : z.first, 3.0f, m);
  });
  w.expect_same<float>(z, m);
  w.launch([&](Device& d, int k) {
    return d.launch("reduce_sum", {5, 1, 1}, {256, 1, 1}, k ? x.second : x.first,
                    k ? sum.second : sum.first, m);
  });
  w.expect_same<float>(sum, 1);
}

TEST(FastForms, SameBytesForIntegerAndControlKernels) {
  CNUAS_REQUIRE_NVCC();
  DevicePair ints = both_ways("integer.ptx");
  constexpr int n = 96;
  std::vector<unsigned> xs(n), ys(n);
  for (int i = 0; i < n; ++i) xs[i] = 0x9e3779b9u * (i + 1), ys[i] = 0x85ebca6bu ^ (i * 7919u);
  const auto x = ints.upload(xs), y = ints.upload(ys);
  const auto out = ints.upload(std::vector<unsigned>(n * 24, 0));
  ints.launch([&](Device& d, int k) {
    return d.launch("integer_ops", {3, 1, 1}, {32, 1, 1}, k ? x.second : x.first,
                    k ? y.second : y.first, k ? out.second : out.first, n);
  });
  ints.expect_same<unsigned>(out, n * 24);
  DevicePair control = both_ways("control.ptx");
  std::vector<int> in(256);
  for (int i = 0; i < 256; ++i) in[i] = (i * 37) % 101;
  const auto din = control.upload(in), dout = control.upload(std::vector<int>(256, 0));
  control.launch([&](Device& d, int k) {
    return d.launch("diverge", {2, 1, 1}, {128, 1, 1}, k ? din.second : din.first,
                    k ? dout.second : dout.first, 250);
  });
  control.expect_same<int>(dout, 256);
}

// Shifts right, selects, the approximate f32 functions, sqrt, int-to-f32
// conversions, min/max, float setp and integer setp of 16, 32 and 64 bits
// (signed, unsigned, with an immediate); each thread writes 20 words. Threads
// with tid % 3 == 0 skip the second half, so warps run both converged (in
// gangs) and guarded.
constexpr const char* kMoreForms = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry more_forms(.param .u64 in, .param .u64 out) {
  .reg .b32 %r<20>;
  .reg .f32 %f<20>;
  .reg .b64 %rd<8>;
  .reg .pred %p<4>;
  .reg .pred %q<5>;
  .reg .b16 %h<2>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mad.lo.s32 %r3, %r2, 256, %r1;
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r4, [%rd4];
  mul.wide.u32 %rd5, %r3, 80;
  add.s64 %rd6, %rd2, %rd5;
  and.b32 %r5, %r4, 63;
  shr.u32 %r6, %r4, %r5;
  shr.s32 %r7, %r4, %r5;
  shr.b32 %r8, %r4, 7;
  setp.lt.u32 %p1, %r4, 0x80000000;
  selp.b32 %r9, %r6, %r7, %p1;
  cvt.rn.f32.u32 %f1, %r4;
  cvt.rn.f32.s32 %f2, %r4;
  selp.f32 %f3, %f1, %f2, %p1;
  cvt.u64.u32 %rd7, %r4;
  selp.b64 %rd7, %rd7, %rd5, %p1;
  mul.f32 %f4, %f2, 0f2F800000;
  sin.approx.f32 %f5, %f4;
  cos.approx.ftz.f32 %f6, %f4;
  ex2.approx.ftz.f32 %f7, %f4;
  abs.f32 %f8, %f4;
  lg2.approx.f32 %f9, %f8;
  sqrt.rn.f32 %f10, %f8;
  max.f32 %f12, %f5, %f6;
  min.f32 %f13, %f5, %f6;
  setp.gtu.f32 %p3, %f5, %f6;
  selp.f32 %f14, %f1, %f2, %p3;
  st.global.f32 [%rd6+28], %f12;
  st.global.f32 [%rd6+64], %f13;
  st.global.f32 [%rd6+68], %f14;
  st.global.u32 [%rd6], %r6;
  st.global.u32 [%rd6+4], %r7;
  st.global.u32 [%rd6+8], %r8;
  st.global.u32 [%rd6+12], %r9;
  st.global.f32 [%rd6+16], %f1;
  st.global.f32 [%rd6+20], %f2;
  st.global.f32 [%rd6+24], %f3;
  st.global.u64 [%rd6+32], %rd7;
  setp.lt.s32 %q1, %r4, %r7;
  setp.hi.u64 %q2, %rd7, %rd5;
  cvt.u16.u32 %h1, %r4;
  setp.gt.s16 %q3, %h1, 0;
  setp.ls.u16 %q4, %h1, 1000;
  selp.b32 %r12, 1, 0, %q1;
  selp.b32 %r13, 2, 0, %q2;
  selp.b32 %r14, 4, 0, %q3;
  selp.b32 %r15, 8, 0, %q4;
  or.b32 %r12, %r12, %r13;
  or.b32 %r14, %r14, %r15;
  or.b32 %r12, %r12, %r14;
  st.global.u32 [%rd6+72], %r12;
  rem.u32 %r10, %r1, 3;
  setp.eq.u32 %p2, %r10, 0;
  @%p2 bra DONE;
  st.global.f32 [%rd6+40], %f5;
  st.global.f32 [%rd6+44], %f6;
  st.global.f32 [%rd6+48], %f7;
  st.global.f32 [%rd6+52], %f9;
  st.global.f32 [%rd6+56], %f10;
  sin.approx.ftz.f32 %f11, %f10;
  shr.u32 %r11, %r4, 33;
  st.global.f32 [%rd6+60], %f11;
  st.global.u32 [%rd6+40], %r11;
DONE:
  ret;
}
)";

TEST(FastForms, ShiftsSelectsApproximateFunctionsAndConversionsAsTheGenericPath) {
  const auto m = Module::parse(kMoreForms, "more_forms.ptx");
  const Function* kernel = m->find("more_forms");
  ASSERT_NE(kernel, nullptr);
  const std::pair<const char*, FastForm> expected[] = {
      {"shr.u32", FastForm::ShrU32},
      {"shr.s32", FastForm::ShrS32},
      {"shr.b32", FastForm::ShrU32},
      {"selp.b32", FastForm::Selp32},
      {"selp.f32", FastForm::Selp32},
      {"selp.b64", FastForm::Selp64},
      {"cvt.rn.f32.u32", FastForm::CvtF32U32},
      {"cvt.rn.f32.s32", FastForm::CvtF32S32},
      {"cvt.u64.u32", FastForm::None},
      {"sin.approx.f32", FastForm::SinF32},
      {"cos.approx.ftz.f32", FastForm::CosF32},
      {"ex2.approx.ftz.f32", FastForm::Ex2F32},
      {"lg2.approx.f32", FastForm::Lg2F32},
      {"sqrt.rn.f32", FastForm::SqrtF32},
      {"max.f32", FastForm::MaxF32},
      {"min.f32", FastForm::MinF32},
      {"setp.gtu.f32", FastForm::SetpF32},
      {"setp.hi.u64", FastForm::SetpInt},
      {"setp.gt.s16", FastForm::SetpInt},
      {"rem.u32", FastForm::None},
  };
  for (const auto& [text, form] : expected) {
    const Instruction* i = first_with_text(*kernel, text);
    ASSERT_NE(i, nullptr) << text;
    EXPECT_EQ(i->fast, form) << i->text;
  }
  auto fast = std::make_unique<Device>(m);
  auto plain = std::make_unique<Device>(without_shortcuts(*m));
  DevicePair w(std::move(fast), std::move(plain));
  constexpr int n = 2 * 256;
  std::vector<unsigned> in(n);
  for (int i = 0; i < n; ++i) in[i] = 0x9e3779b9u * static_cast<unsigned>(i + 1) ^ (i * 40503u);
  in[0] = 0x80000000u;  // the extremes: the sign fills all 31 shifted places
  in[1] = 0xffffffffu;
  in[2] = 0;
  const auto x = w.upload(in), out = w.upload(std::vector<unsigned>(n * 20, 0));
  w.launch([&](Device& d, int k) {
    return d.launch("more_forms", {2, 1, 1}, {256, 1, 1}, k ? x.second : x.first,
                    k ? out.second : out.first);
  });
  w.expect_same<unsigned>(out, n * 20);
  // Against the host, the exact ones: the shifts (a count of 32 or more
  // empties an unsigned word and fills a signed one with its sign), the
  // selections and the conversions rounded to nearest.
  const std::vector<unsigned> got = w.first().download<unsigned>(out.first, n * 20);
  for (int t = 0; t < n; ++t) {
    const unsigned v = in[t], s = v & 63;
    const unsigned* o = &got[static_cast<std::size_t>(t) * 20];
    const unsigned shr_u = s >= 32 ? 0 : v >> s;
    const unsigned shr_s = static_cast<unsigned>(static_cast<int>(v) >> std::min(s, 31u));
    EXPECT_EQ(o[0], shr_u) << t;
    EXPECT_EQ(o[1], shr_s) << t;
    EXPECT_EQ(o[2], v >> 7) << t;
    EXPECT_EQ(o[3], v < 0x80000000u ? shr_u : shr_s) << t;
    const float fu = static_cast<float>(v), fs = static_cast<float>(static_cast<int>(v));
    EXPECT_EQ(o[4], f32_bits(fu)) << t;
    EXPECT_EQ(o[5], f32_bits(fs)) << t;
    EXPECT_EQ(o[6], f32_bits(v < 0x80000000u ? fu : fs)) << t;
    const std::uint64_t sel = v < 0x80000000u ? v : std::uint64_t{static_cast<unsigned>(t)} * 80;
    EXPECT_EQ(o[8] | std::uint64_t{o[9]} << 32, sel) << t;
    const auto h = static_cast<std::uint16_t>(v);
    const unsigned compared = (static_cast<int>(v) < static_cast<int>(shr_s) ? 1u : 0u) |
                              (sel > std::uint64_t{static_cast<unsigned>(t)} * 80 ? 2u : 0u) |
                              (static_cast<std::int16_t>(h) > 0 ? 4u : 0u) | (h <= 1000 ? 8u : 0u);
    EXPECT_EQ(o[18], compared) << t;
    if (t % 256 % 3 != 0) {
      EXPECT_EQ(o[10], 0u) << t;  // shr.u32 by 33
    }
  }
}

// min.f32 and max.f32 over pairs of special values, by two CTAs of two warps
// (the converged gang path): out[2t] = max, out[2t+1] = min.
constexpr const char* kMinMax = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry min_max(.param .u64 in, .param .u64 out) {
  .reg .b32 %r<4>;
  .reg .f32 %f<5>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mad.lo.s32 %r3, %r2, 64, %r1;
  mul.wide.u32 %rd3, %r3, 8;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.f32 %f1, [%rd4];
  ld.global.f32 %f2, [%rd4+4];
  max.f32 %f3, %f1, %f2;
  min.f32 %f4, %f1, %f2;
  st.global.f32 [%rd5], %f3;
  st.global.f32 [%rd5+4], %f4;
  ret;
}
)";

TEST(FastForms, MinAndMaxOfSpecialValuesAsTheIsaDefinesThem) {
  const auto m = Module::parse(kMinMax, "min_max.ptx");
  for (const Instruction& i : m->find("min_max")->code) {
    if (i.op == Opcode::max || i.op == Opcode::min) {
      ASSERT_NE(i.fast, FastForm::None) << i.text;
    }
  }
  DevicePair w(std::make_unique<Device>(m), std::make_unique<Device>(without_shortcuts(*m)));
  const float inf = std::numeric_limits<float>::infinity();
  const float values[] = {0.0f,   -0.0f, 1.0f,   -1.0f,   2.5f,
                          inf,    -inf,  1e-45f, -1e-45f, std::numeric_limits<float>::quiet_NaN(),
                          3.0e38f};
  constexpr int kValues = sizeof values / sizeof values[0];
  constexpr int n = 2 * 64;  // every pair of values, then pairs of a mixed pattern
  std::vector<float> in(2 * n);
  for (int t = 0; t < n; ++t) {
    in[2 * t] = t < kValues * kValues ? values[t / kValues] : static_cast<float>(t % 7) - 3;
    in[2 * t + 1] = t < kValues * kValues ? values[t % kValues] : static_cast<float>(t % 5) - 2;
  }
  in[2 * 127 + 1] = -std::numeric_limits<float>::signaling_NaN();  // a NaN with the sign set
  const auto x = w.upload(in), out = w.upload(std::vector<float>(2 * n, 0));
  w.launch([&](Device& d, int k) {
    return d.launch("min_max", {2, 1, 1}, {64, 1, 1}, k ? x.second : x.first,
                    k ? out.second : out.first);
  });
  w.expect_same<unsigned>(out, 2 * n);
  // The ISA: a NaN operand yields the other (two NaNs: NaN), and -0 is below +0.
  auto expected = [](float a, float b, bool max) {
    if (std::isnan(a)) return b;
    if (std::isnan(b)) return a;
    if (a == b) return (std::signbit(a) != max) ? a : b;
    return (a > b) == max ? a : b;
  };
  const std::vector<float> got = w.first().download<float>(out.first, 2 * n);
  for (int t = 0; t < n; ++t) {
    const float a = in[2 * t], b = in[2 * t + 1];
    for (int j = 0; j < 2; ++j) {
      const float want = expected(a, b, j == 0);
      SCOPED_TRACE(std::string(j == 0 ? "max(" : "min(") + std::to_string(a) + ", " +
                   std::to_string(b) + ")");
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(got[2 * t + j]));
      else
        EXPECT_EQ(f32_bits(got[2 * t + j]), f32_bits(want));
    }
  }
}

// %r2 is written in CTA 0 only (the guard reads %ctaid.x), %r4 on one side
// of a branch only (taken by the other CTAs): both may be read before
// written; the rest never are.
constexpr const char* kUninitialized = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry uninit(.param .u64 out) {
  .reg .b32 %r<6>;
  .reg .pred %p<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r5, %ctaid.x;
  setp.eq.s32 %p1, %r5, 0;
  @%p1 mov.u32 %r2, 7;
  add.s32 %r3, %r2, %r1;
  setp.ne.s32 %p2, %r5, 0;
  @%p2 bra SKIP;
  mov.u32 %r4, 100;
SKIP:
  add.s32 %r3, %r3, %r4;
  mad.lo.s32 %r0, %r5, 32, %r1;
  mul.wide.u32 %rd2, %r0, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)";

TEST(RegisterInit, RegistersReadBeforeWrittenAreFoundAndZeroedForEachCta) {
  const auto m = Module::parse(kUninitialized, "uninit.ptx");
  const Function* f = m->find("uninit");
  ASSERT_NE(f, nullptr);
  ASSERT_TRUE(f->zeroed_registers_known);
  std::vector<std::string> names;
  for (std::uint32_t r : f->zeroed_registers) names.push_back(f->registers[r].name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"%r2", "%r4"}));
  // Every CTA must see zeros there, although CTA 0 wrote 7 and 100 into the
  // storage the next CTAs reuse: thread t of CTA b stores
  // (b == 0 ? 7 + 100 : 0) + t.
  DeviceMemory mem;
  std::ostringstream printed;
  Executor exec(mem, printed);
  LoadedModule loaded(m, mem);
  constexpr int ctas = 3;
  const std::uint64_t out = mem.allocate(ctas * 32 * 4);
  LaunchConfig cfg;
  cfg.grid = {ctas, 1, 1};
  cfg.block = {32, 1, 1};
  cfg.params.resize(8);
  std::memcpy(cfg.params.data(), &out, 8);
  exec.launch(loaded, "uninit", cfg);
  std::vector<std::uint32_t> got(ctas * 32);
  mem.read(out, got.data(), got.size() * 4);
  for (int b = 0; b < ctas; ++b)
    for (int t = 0; t < 32; ++t)
      EXPECT_EQ(got[b * 32 + t], (b == 0 ? 107u : 0u) + t) << "CTA " << b << " thread " << t;
}

}  // namespace
}  // namespace cnuas::ptx::testing
