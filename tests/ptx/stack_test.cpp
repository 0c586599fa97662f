// The per-thread stack a kernel needs (ptx/stack.h) against a hand
// computation over hand-written PTX, and that kernel, whose own frame is
// larger than CUDA's default 1 KiB stack, running with that size.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "ptx/executor.h"
#include "ptx/stack.h"

namespace cnuas::ptx {
namespace {

// Frames are [parameters | .local | call parameters], each rounded up to 16 bytes:
//   leaf:   params r,a = 8 -> 16; scratch 40 -> 48; no calls          =   64
//   middle: params r,a = 8 -> 16; buf 100 -> 112; pa,pr 8 -> 16      =  144
//   spin:   param a = 4 -> 16; no locals; pa 4 -> 16                  =   32
//   big:    out (8) + blob (align 8, 20) = 28 -> 32; depot 1600;
//           a, r, a0 = 12 -> 16                                       = 1648
// big calls middle (which calls leaf) and spin (which calls itself, not
// counted again): 1648 + max(144 + 64, 32) = 1856 bytes.
const char* kModule = R"(
.version 8.0
.target sm_90
.address_size 64

.func (.param .b32 r) leaf (.param .b32 a)
{
  .local .align 8 .b8 scratch[40];
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [a];
  st.local.b32 [scratch+36], %r1;
  ld.local.b32 %r2, [scratch+36];
  add.s32 %r2, %r2, 1;
  st.param.b32 [r], %r2;
  ret;
}

.func (.param .b32 r) middle (.param .b32 a)
{
  .local .align 4 .b8 buf[100];
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [a];
  st.local.b32 [buf+96], %r1;
  {
  .param .b32 pa;
  .param .b32 pr;
  st.param.b32 [pa], %r1;
  call (pr), leaf, (pa);
  ld.param.b32 %r2, [pr];
  }
  ld.local.b32 %r3, [buf+96];
  add.s32 %r3, %r3, %r2;
  st.param.b32 [r], %r3;
  ret;
}

.func spin (.param .b32 a)
{
  .reg .pred %p1;
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [a];
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra DONE;
  sub.s32 %r2, %r1, 1;
  {
  .param .b32 pa;
  st.param.b32 [pa], %r2;
  call spin, (pa);
  }
DONE:
  ret;
}

.visible .entry big (.param .u64 out, .param .align 8 .b8 blob[20])
{
  .local .align 16 .b8 depot[1600];
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  st.local.b32 [depot+1596], %r1;
  {
  .param .b32 a;
  .param .b32 r;
  st.param.b32 [a], %r1;
  call (r), middle, (a);
  ld.param.b32 %r2, [r];
  }
  {
  .param .b32 a0;
  mov.u32 %r5, 2;
  st.param.b32 [a0], %r5;
  call spin, (a0);
  }
  ld.local.b32 %r3, [depot+1596];
  add.s32 %r4, %r2, %r3;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}

.visible .entry flat (.param .u64 out)
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  ret;
}
)";

TEST(PtxStack, KernelFrameAndDeepestDirectCallChain) {
  const auto m = Module::parse(kModule, "stack.ptx");
  EXPECT_EQ(static_stack_bytes(*m, *m->find("big")), 1856u);
  EXPECT_EQ(static_stack_bytes(*m, *m->find("flat")), 0u);  // no locals, no calls: no stack
}

// 40 functions, each with a 16-byte local frame and calling the next twice,
// under a kernel with no frame of its own: 40 x 16 = 640 bytes deep. There are
// 2^40 call paths; the walk visits each function once.
TEST(PtxStack, SharedCalleesAreWalkedOnce) {
  constexpr int kLevels = 40;
  std::string text = ".version 8.0\n.target sm_90\n.address_size 64\n";
  for (int f = kLevels - 1; f >= 0; --f) {
    text += ".func f" + std::to_string(f) + " ()\n{\n  .local .align 16 .b8 pad[16];\n";
    if (f + 1 < kLevels)
      for (int call = 0; call < 2; ++call) text += "  call f" + std::to_string(f + 1) + ", ();\n";
    text += "  ret;\n}\n";
  }
  text += ".visible .entry fan ()\n{\n  call f0, ();\n  ret;\n}\n";
  const auto m = Module::parse(text, "fan.ptx");
  EXPECT_EQ(static_stack_bytes(*m, *m->find("fan")), 640u);
}

// 32 threads each leave tid at the end of the 1600-byte depot, call middle
// (tid + (tid + 1), the second through leaf's frame) and spin with 2 (it
// recurses twice: three 32-byte frames, within the 208 bytes counted for
// middle's chain), then write 3 tid + 1.
TEST(PtxStack, AFrameLargerThanTheDefaultStackRunsWithItsStaticSize) {
  const auto m = Module::parse(kModule, "stack.ptx");
  DeviceMemory memory;
  LoadedModule loaded(m, memory);
  std::ostringstream printed;
  Executor executor(memory, printed);
  const std::uint64_t out = memory.allocate(32 * sizeof(std::uint32_t));
  LaunchConfig cfg;
  cfg.grid = {1, 1, 1};
  cfg.block = {32, 1, 1};
  cfg.params.assign(m->find("big")->param_bytes, 0);
  std::memcpy(cfg.params.data(), &out, sizeof out);
  cfg.stack_bytes = static_stack_bytes(*m, *m->find("big"));
  executor.launch(loaded, "big", cfg);
  std::vector<std::uint32_t> got(32);
  memory.read(out, got.data(), got.size() * sizeof(std::uint32_t));
  for (std::uint32_t t = 0; t < 32; ++t) EXPECT_EQ(got[t], 3 * t + 1) << "thread " << t;
}

}  // namespace
}  // namespace cnuas::ptx
