// A CTA is declared stuck only when provably nothing can change (issue 22):
// warps that keep failing mbarrier waits while their state still changes run
// on; a state that repeats exactly is reported at once. Hand-written PTX.
#include <sstream>

#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

// Warp 0 polls mbarrier `never` (which nobody completes) `polls` times with
// test_wait, then arrives on `ready`; warp 1 waits for `ready` with try_wait.
// Every round both warps fail a wait and no mbarrier changes, yet the
// counter of warp 0 moves, so the kernel completes — on the hardware too.
// Producers store 2, consumers 1.
const char* kPollPtx = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry poll_then_arrive(.param .u64 out, .param .u32 polls)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<5>;
  .shared .align 8 .b64 ready;
  .shared .align 8 .b64 never;
  mov.u32 %r1, ready;
  mov.u32 %r2, never;
  mov.u32 %r3, %tid.x;
  setp.ne.u32 %p1, %r3, 0;
  @%p1 bra $Lsync;
  mbarrier.init.shared.b64 [%r1], 32;
  mbarrier.init.shared.b64 [%r2], 1;
$Lsync:
  bar.sync 0;
  ld.param.u32 %r5, [polls];
  setp.ge.u32 %p1, %r3, 32;
  @%p1 bra $Lconsumer;
  mov.u32 %r4, 0;
$Lpoll:
  mbarrier.test_wait.parity.shared.b64 %p2, [%r2], 0;
  add.u32 %r4, %r4, 1;
  setp.lt.u32 %p3, %r4, %r5;
  @%p3 bra $Lpoll;
  mbarrier.arrive.shared.b64 %rd1, [%r1];
  mov.u32 %r6, 2;
  bra.uni $Lstore;
$Lconsumer:
  mbarrier.try_wait.parity.shared.b64 %p2, [%r1], 0;
  @!%p2 bra $Lconsumer;
  mov.u32 %r6, 1;
$Lstore:
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd3, %rd2;
  mul.wide.u32 %rd4, %r3, 4;
  add.u64 %rd3, %rd3, %rd4;
  st.global.u32 [%rd3], %r6;
  ret;
})";

TEST(PtxStall, WarpsFailingWaitsWhileTheirStateChangesAreNotStuck) {
  DeviceMemory mem;
  std::ostringstream printed;
  Executor exec(mem, printed);
  LoadedModule lm(Module::parse(kPollPtx, "poll.ptx"), mem);
  const std::uint64_t out = mem.allocate(64 * 4);
  LaunchConfig cfg;
  cfg.block = {64, 1, 1};
  cfg.params.assign(12, 0);
  const std::uint32_t polls = 3000;  // rounds of failed waits with no mbarrier change
  std::memcpy(cfg.params.data(), &out, 8);
  std::memcpy(cfg.params.data() + 8, &polls, 4);
  exec.launch(lm, "poll_then_arrive", cfg);
  std::vector<std::uint32_t> h(64);
  mem.read(out, h.data(), 64 * 4);
  for (unsigned t = 0; t < 64; ++t) EXPECT_EQ(h[t], t < 32 ? 2u : 1u) << t;
}

}  // namespace
}  // namespace cnuas::ptx::testing
