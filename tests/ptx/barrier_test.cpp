// CTA barriers and threads that exit (issue 22): exited threads do not hold a
// barrier back, also when they leave on a divergent path the warp would run
// only after its barrier lanes. Hand-written PTX, so the paths are exactly these.
#include <sstream>

#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

// Lanes < 16 branch to the barrier; the others fall through to `ret`, a path
// the SIMT stack runs after the taken one. Barrier lanes then store 7.
const char* kDivergentExitPtx = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry divergent_exit(.param .u64 out)
{
  .reg .pred %p;
  .reg .b32 %r<3>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p, %r1, 16;
  @%p bra $Lmain;
  ret;
$Lmain:
  bar.sync 0;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.u64 %rd2, %rd2, %rd3;
  mov.u32 %r2, 7;
  st.global.u32 [%rd2], %r2;
  ret;
})";

TEST(PtxBarrier, LanesExitingOnALaterDivergentPathDoNotHoldTheBarrier) {
  DeviceMemory mem;
  std::ostringstream printed;
  Executor exec(mem, printed);
  LoadedModule lm(Module::parse(kDivergentExitPtx, "divergent_exit.ptx"), mem);
  const std::uint64_t out = mem.allocate(64 * 4);
  LaunchConfig cfg;
  cfg.block = {64, 1, 1};  // warp 0: lanes 0-15 wait, 16-31 exit later; warp 1 exits
  cfg.params.assign(8, 0);
  std::memcpy(cfg.params.data(), &out, 8);
  exec.launch(lm, "divergent_exit", cfg);
  std::vector<std::uint32_t> h(64);
  mem.read(out, h.data(), 64 * 4);
  // Threads 0-15 store 7.
  for (unsigned t = 0; t < 64; ++t) EXPECT_EQ(h[t], t < 16 ? 7u : 0u) << t;
}

}  // namespace
}  // namespace cnuas::ptx::testing
