// The engine's two shortcuts for frequent work (ptx/src/fast_paths.h,
// ptx/src/register_init.h): instructions tagged with a FastForm run their
// handler directly, and a new CTA zeroes only the registers a thread may read
// before writing them. Both must change nothing a program can see: the same
// kernels run on a copy of the module with both shortcuts off (no tags, every
// register zeroed, as before they existed) give the same bytes and statistics.
#include <algorithm>

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
