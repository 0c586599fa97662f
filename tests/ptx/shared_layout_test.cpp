// Module-scope .shared (nvcc's form of a static __shared__ in a device
// function, as in cuBLAS's modules): each kernel is charged up to the end of
// the last such variable its code reaches, directly or through the functions
// it calls, and variables no kernel reaches together share offsets.
#include <cstring>
#include <sstream>

#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

// Two per-kernel buffers at module scope; `only_b` reaches buf_b only through
// the device function read_b, defined after the kernels.
constexpr const char* kLibraryModule = R"(
.version 8.0
.target sm_90
.address_size 64
.shared .align 4 .b8 buf_a[4096];
.shared .align 8 .b8 buf_b[2048];
.func (.param .b32 r) read_b(.param .b32 i);
.visible .entry only_a(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.shared.u32 [buf_a+8], 5;
  ld.shared.u32 %r1, [buf_a+8];
  mov.u32 %r2, buf_a;
  st.global.u32 [%rd2], %r2;
  st.global.u32 [%rd2+4], %r1;
  ret;
}
.visible .entry only_b(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  .shared .align 4 .b8 own[16];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.shared.u32 [own], 1;
  st.shared.u32 [buf_b+4], 6;
  {
    .param .b32 i;
    .param .b32 r;
    st.param.b32 [i], 4;
    call.uni (r), read_b, (i);
    ld.param.b32 %r1, [r];
  }
  mov.u32 %r2, own;
  st.global.u32 [%rd2], %r2;
  st.global.u32 [%rd2+4], %r1;
  ret;
}
.func (.param .b32 r) read_b(.param .b32 i)
{
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [i];
  mov.u32 %r2, buf_b;
  add.u32 %r2, %r2, %r1;
  ld.shared.u32 %r3, [%r2];
  st.param.b32 [r], %r3;
  ret;
}
)";

TEST(PtxSharedLayout, KernelsAreChargedOnlyForTheModuleSharedTheyReach) {
  auto m = Module::parse(kLibraryModule, "library.ptx");
  const Function* a = m->find("only_a");
  const Function* b = m->find("only_b");
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  // Before: 4096 + 2048 = 6144 bytes for each (and only_b's own 16 after them).
  EXPECT_EQ(a->static_shared_bytes, 4096u);
  EXPECT_EQ(b->static_shared_bytes, 2048u + 16u);  // buf_b at 0, then its own
  EXPECT_EQ(b->entry_shared_base, 2048u);

  DeviceMemory mem;
  std::ostringstream out;
  Executor exec(mem, out);
  LoadedModule lm(m, mem);
  const std::uint64_t buf = mem.allocate(8);
  LaunchConfig cfg;
  cfg.params.resize(8);
  std::memcpy(cfg.params.data(), &buf, 8);
  std::uint32_t h[2];
  exec.launch(lm, "only_a", cfg);
  mem.read(buf, h, sizeof h);
  EXPECT_EQ(h[0], 0u);  // buf_a's address in the CTA's shared memory
  EXPECT_EQ(h[1], 5u);
  exec.launch(lm, "only_b", cfg);
  mem.read(buf, h, sizeof h);
  EXPECT_EQ(h[0], 2048u);  // own, after buf_b
  EXPECT_EQ(h[1], 6u);     // read_b finds what only_b stored: both use buf_b's new offset
}

// A kernel reaching both buffers keeps them apart, and a kernel that calls
// through a pointer may reach anything: both get the parser's layout, which
// then pushes buf_b after buf_a for every kernel that reaches it.
TEST(PtxSharedLayout, KernelsReachingSeveralKeepThemApart) {
  const std::string both = std::string(kLibraryModule) + R"(
.visible .entry both(.param .u64 out)
{
  .reg .b32 %r<3>;
  st.shared.u32 [buf_a], 1;
  {
    .param .b32 i;
    .param .b32 r;
    st.param.b32 [i], 0;
    call.uni (r), read_b, (i);
  }
  ret;
}
.visible .entry pointer()
{
  .reg .b64 %rd<2>;
  mov.u64 %rd1, 0;
  {
    .param .b32 i;
    .param .b32 r;
    proto : .callprototype (.param .b32 _) _ (.param .b32 _);
    call (r), %rd1, (i), proto;
  }
  ret;
}
.visible .entry none()
{
  ret;
}
)";
  auto m = Module::parse(both, "library.ptx");
  EXPECT_EQ(m->find("both")->static_shared_bytes, 4096u + 2048u);
  EXPECT_EQ(m->find("pointer")->static_shared_bytes, 4096u + 2048u);
  EXPECT_EQ(m->find("only_a")->static_shared_bytes, 4096u);
  EXPECT_EQ(m->find("only_b")->static_shared_bytes, 4096u + 2048u + 16u);
  EXPECT_EQ(m->find("none")->static_shared_bytes, 0u);
}

}  // namespace
}  // namespace cnuas::ptx::testing
