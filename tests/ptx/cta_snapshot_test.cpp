// Saving a CTA mid-execution and restoring it (checkpoints inside a kernel,
// cnuas exec --checkpoint-at KERNEL:CTA): a CTA cut at many points (before a
// barrier, inside a divergent loop, inside a called function with a local
// frame, with shared memory written) and restored into a fresh CTA on another
// memory finishes with the results the uninterrupted CTA gives, which are
// checked against a host reference.
#include <sstream>

#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

// Per thread t of CTA c (64 threads): shared[t] = 5t; odd threads sum 0..t-1
// in a loop, even ones call mix(t) = 3t + 7 (through a .local buffer); then
// out[c * 64 + t] = that + shared[t ^ 1] + c.
const char* kMixedPtx = R"(.version 9.0
.target sm_90
.address_size 64
.func (.param .b32 ret) mix(.param .b32 a)
{
  .reg .b32 %r<4>;
  .local .align 4 .b8 buf[16];
  ld.param.b32 %r1, [a];
  mul.lo.u32 %r2, %r1, 3;
  st.local.u32 [buf+4], %r2;
  ld.local.u32 %r3, [buf+4];
  add.u32 %r3, %r3, 7;
  st.param.b32 [ret], %r3;
  ret;
}
.visible .entry mixed(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 sh[64];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r9, 0;
  shl.b32 %r3, %r1, 2;
  mov.u32 %r4, sh;
  add.u32 %r4, %r4, %r3;
  mul.lo.u32 %r5, %r1, 5;
  st.shared.u32 [%r4], %r5;
  bar.sync 0;
  and.b32 %r6, %r1, 1;
  setp.eq.u32 %p1, %r6, 0;
  @%p1 bra $Leven;
  mov.u32 %r7, 0;
$Lloop:
  add.u32 %r9, %r9, %r7;
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p2, %r7, %r1;
  @%p2 bra $Lloop;
  bra.uni $Ljoin;
$Leven:
  {
  .param .b32 pa;
  .param .b32 pr;
  st.param.b32 [pa], %r1;
  call.uni (pr), mix, (pa);
  ld.param.b32 %r9, [pr];
  }
$Ljoin:
  bar.sync 0;
  xor.b32 %r10, %r1, 1;
  shl.b32 %r10, %r10, 2;
  mov.u32 %r11, sh;
  add.u32 %r11, %r11, %r10;
  ld.shared.u32 %r8, [%r11];
  add.u32 %r9, %r9, %r8;
  add.u32 %r9, %r9, %r2;
  mad.lo.u32 %r3, %r2, 64, %r1;
  mul.wide.u32 %rd2, %r3, 4;
  ld.param.u64 %rd1, [out];
  add.u64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r9;
  ret;
})";

std::uint32_t expected(std::uint32_t cta, std::uint32_t t) {
  const std::uint32_t own = t % 2 ? t * (t - 1) / 2 : 3 * t + 7;
  return own + 5 * (t ^ 1u) + cta;
}

// A memory with the kernel loaded and a 2-CTA output buffer.
struct Machine {
  Machine() : loaded(Module::parse(kMixedPtx, "mixed.ptx"), memory), executor(memory, printed) {
    out = memory.allocate(2 * 64 * 4);
    config.grid = {2, 1, 1};
    config.block = {64, 1, 1};
    config.params.assign(8, 0);
    std::memcpy(config.params.data(), &out, 8);
  }
  std::vector<std::uint32_t> output() {
    std::vector<std::uint32_t> h(2 * 64);
    memory.read(out, h.data(), h.size() * 4);
    return h;
  }
  DeviceMemory memory;
  std::ostringstream printed;
  LoadedModule loaded;
  Executor executor;
  LaunchConfig config;
  std::uint64_t out = 0;
};

TEST(PtxCtaSnapshot, ARestoredCtaFinishesAsTheSavedOneWould) {
  // Warp 0 runs `cut` steps and warp 1 about half as many (they meet at the
  // barriers), so the cuts fall before, inside and after the divergent part.
  for (unsigned cut : {0u, 3u, 9u, 14u, 20u, 27u, 35u, 48u, 70u, 120u}) {
    SCOPED_TRACE("cut after " + std::to_string(cut) + " steps");
    Machine a, b;
    ASSERT_EQ(a.out, b.out);  // the same allocation at the same address
    std::unique_ptr<Executor::Cta> cta =
        a.executor.begin_cta(a.loaded, "mixed", a.config, {1, 0, 0});
    for (unsigned i = 0; i < cut; ++i) {
      cta->step(0);
      if (i % 2) cta->step(1);
    }
    const std::vector<std::uint8_t> saved = cta->save();
    // Memory at the cut goes with the state, as in a checkpoint.
    const std::vector<std::uint32_t> at_cut = a.output();
    b.memory.write(b.out, at_cut.data(), at_cut.size() * 4);
    std::unique_ptr<Executor::Cta> restored =
        b.executor.restore_cta(b.loaded, "mixed", b.config, saved);
    EXPECT_EQ(restored->save(), saved);  // nothing lost on the way
    EXPECT_EQ(restored->cta_id().x, 1u);
    cta->run();
    restored->run();
    const std::vector<std::uint32_t> ha = a.output(), hb = b.output();
    EXPECT_EQ(ha, hb);
    for (std::uint32_t t = 0; t < 64; ++t) EXPECT_EQ(hb[64 + t], expected(1, t)) << t;
    EXPECT_EQ(restored->stats().warp_instructions, cta->stats().warp_instructions);
  }
}

TEST(PtxCtaSnapshot, BytesOfAnotherLaunchOrDamagedAreRefused) {
  Machine a;
  std::unique_ptr<Executor::Cta> cta = a.executor.begin_cta(a.loaded, "mixed", a.config, {1, 0, 0});
  for (unsigned i = 0; i < 10; ++i) cta->step(0);
  const std::vector<std::uint8_t> saved = cta->save();
  LaunchConfig other = a.config;
  other.block = {32, 1, 1};
  EXPECT_THROW(a.executor.restore_cta(a.loaded, "mixed", other, saved), std::invalid_argument);
  LaunchConfig smaller = a.config;
  smaller.grid = {1, 1, 1};  // CTA 1 is outside it
  EXPECT_THROW(a.executor.restore_cta(a.loaded, "mixed", smaller, saved), std::invalid_argument);
  // Every truncation is refused, never read past the end.
  for (std::size_t n = 0; n < saved.size(); n += 97) {
    const std::vector<std::uint8_t> cut(saved.begin(), saved.begin() + static_cast<long>(n));
    EXPECT_THROW(a.executor.restore_cta(a.loaded, "mixed", a.config, cut), std::invalid_argument)
        << n;
  }
  std::vector<std::uint8_t> longer = saved;
  longer.push_back(0);
  EXPECT_THROW(a.executor.restore_cta(a.loaded, "mixed", a.config, longer), std::invalid_argument);
}

// A grid whose CTAs wait for each other: CTA b (one warp) writes shared
// memory, sets flags[b - 1] (CTA b - 1 waits for it), and its lanes 0-7 spin
// until flags[b] is set by CTA b + 1, the last CTA excepted; then every lane
// folds shared memory in a loop of 600 + t rounds. CTA 0 spins alone until
// the engine makes CTAs resident together (two here), and a finished CTA's
// slot takes the next CTA: at CTA 2 and 3 one slot holds a CTA mid-execution
// and the other a finished one.
const char* kChainPtx = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry chain(.param .u64 flags, .param .u64 out, .param .u32 n)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<6>;
  .shared .align 4 .b32 sh[32];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  ld.param.u64 %rd1, [flags];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r3, [n];
  shl.b32 %r4, %r1, 2;
  mov.u32 %r5, sh;
  add.u32 %r5, %r5, %r4;
  mad.lo.u32 %r6, %r2, 100, %r1;
  st.shared.u32 [%r5], %r6;
  bar.sync 0;
  setp.eq.u32 %p1, %r2, 0;
  setp.ne.or.u32 %p1, %r1, 0, %p1;
  @%p1 bra $Lwait;
  sub.u32 %r7, %r2, 1;
  mul.wide.u32 %rd3, %r7, 4;
  add.u64 %rd3, %rd1, %rd3;
  mov.u32 %r8, 1;
  st.volatile.global.u32 [%rd3], %r8;
$Lwait:
  add.u32 %r7, %r2, 1;
  setp.ge.u32 %p2, %r7, %r3;
  setp.ge.or.u32 %p2, %r1, 8, %p2;
  @%p2 bra $Lwork;
  mul.wide.u32 %rd4, %r2, 4;
  add.u64 %rd4, %rd1, %rd4;
$Lspin:
  ld.volatile.global.u32 %r9, [%rd4];
  setp.eq.u32 %p3, %r9, 0;
  @%p3 bra $Lspin;
$Lwork:
  mov.u32 %r10, 0;
  mov.u32 %r11, 0;
  add.u32 %r12, %r1, 1;
  and.b32 %r12, %r12, 31;
  shl.b32 %r12, %r12, 2;
  mov.u32 %r13, sh;
  add.u32 %r13, %r13, %r12;
  ld.shared.u32 %r14, [%r13];
  add.u32 %r15, %r1, 600;
$Lloop:
  xor.b32 %r12, %r10, %r14;
  add.u32 %r11, %r11, %r12;
  add.u32 %r10, %r10, 1;
  setp.lt.u32 %p3, %r10, %r15;
  @%p3 bra $Lloop;
  mad.lo.u32 %r7, %r2, 32, %r1;
  mul.wide.u32 %rd5, %r7, 4;
  add.u64 %rd5, %rd2, %rd5;
  st.global.u32 [%rd5], %r11;
  ret;
})";

constexpr std::uint32_t kChainCtas = 5;

struct Chain {
  Chain() : loaded(Module::parse(kChainPtx, "chain.ptx"), memory), executor(memory, printed) {
    flags = memory.allocate(kChainCtas * 4);
    out = memory.allocate(kChainCtas * 32 * 4);
    config.grid = {kChainCtas, 1, 1};
    config.block = {32, 1, 1};
    config.resident_ctas = 2;
    config.params.assign(20, 0);
    std::memcpy(config.params.data(), &flags, 8);
    std::memcpy(config.params.data() + 8, &out, 8);
    std::memcpy(config.params.data() + 16, &kChainCtas, 4);
  }
  // Both buffers: the memory the kernel touches.
  std::vector<std::uint32_t> image() {
    std::vector<std::uint32_t> h(kChainCtas + kChainCtas * 32);
    memory.read(flags, h.data(), kChainCtas * 4);
    memory.read(out, h.data() + kChainCtas, kChainCtas * 32 * 4);
    return h;
  }
  void set_image(const std::vector<std::uint32_t>& h) {
    memory.write(flags, h.data(), kChainCtas * 4);
    memory.write(out, h.data() + kChainCtas, kChainCtas * 32 * 4);
  }
  DeviceMemory memory;
  std::ostringstream printed;
  LoadedModule loaded;
  Executor executor;
  LaunchConfig config;
  std::uint64_t flags = 0, out = 0;
};

TEST(PtxCtaSnapshot, AGridResumedInsideFinishesAsTheUninterruptedOne) {
  std::vector<std::uint32_t> want(kChainCtas + kChainCtas * 32, 1);
  want[kChainCtas - 1] = 0;  // no CTA sets the last flag
  for (std::uint32_t b = 0; b < kChainCtas; ++b)
    for (std::uint32_t t = 0; t < 32; ++t) {
      std::uint32_t acc = 0;
      for (std::uint32_t i = 0; i < 600 + t; ++i) acc += i ^ (100 * b + (t + 1) % 32);
      want[kChainCtas + b * 32 + t] = acc;
    }

  // The launch is checkpointed before CTA 2; the launch resumed from there is
  // checkpointed again before CTA 3 (CTA 0 spins alone only once), and so on.
  const GridSnapshot* from = nullptr;
  std::vector<std::uint32_t> image;
  std::vector<GridSnapshot> saved;
  saved.reserve(2);  // `from` points into it
  for (std::uint64_t at : {2u, 3u, 0u}) {
    SCOPED_TRACE(from ? "resumed before CTA " + std::to_string(from->next_cta) : "whole launch");
    Chain run;
    if (from) run.set_image(image);
    run.config.grid_resume = from;
    GridSnapshot taken;
    GridCheckpointRequest request;
    request.cta = at;
    request.take = [&](const GridSnapshot& g) {
      taken = g;
      image = run.image();
    };
    if (at) run.config.grid_checkpoint = &request;
    run.executor.launch(run.loaded, "chain", run.config);
    EXPECT_EQ(run.image(), want);  // a checkpointed run goes on as an uninterrupted one
    if (!at) break;
    // Two slots: the CTA before `at` still running, the other just finished.
    ASSERT_EQ(taken.next_cta, at);
    ASSERT_EQ(taken.resident.size(), 2u);
    EXPECT_NE(taken.resident[0].empty(), taken.resident[1].empty());
    saved.push_back(std::move(taken));
    from = &saved.back();
  }
}

}  // namespace
}  // namespace cnuas::ptx::testing
