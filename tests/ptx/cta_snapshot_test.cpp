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

}  // namespace
}  // namespace cnuas::ptx::testing
