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

// A kernel reaching both buffers keeps them apart, which then pushes buf_b
// after buf_a for every kernel that reaches it.
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
.visible .entry none()
{
  ret;
}
)";
  auto m = Module::parse(both, "library.ptx");
  EXPECT_EQ(m->find("both")->static_shared_bytes, 4096u + 2048u);
  EXPECT_EQ(m->find("only_a")->static_shared_bytes, 4096u);
  EXPECT_EQ(m->find("only_b")->static_shared_bytes, 4096u + 2048u + 16u);
  EXPECT_EQ(m->find("none")->static_shared_bytes, 0u);
}

// A call through a pointer may reach any function whose address the module
// takes (here read_b's, so buf_b), and nothing else.
TEST(PtxSharedLayout, AnIndirectCallReachesTheFunctionsWhoseAddressIsTaken) {
  const std::string pointer = std::string(kLibraryModule) + R"(
.visible .entry pointer()
{
  .reg .b64 %rd<2>;
  mov.u64 %rd1, read_b;
  {
    .param .b32 i;
    .param .b32 r;
    proto : .callprototype (.param .b32 _) _ (.param .b32 _);
    call (r), %rd1, (i), proto;
  }
  ret;
}
)";
  auto m = Module::parse(pointer, "library.ptx");
  EXPECT_EQ(m->find("pointer")->static_shared_bytes, 2048u);  // buf_b at 0, not after buf_a
  EXPECT_EQ(m->find("only_a")->static_shared_bytes, 4096u);
}

// The CTA's limit (227 KiB) holds per kernel: two kernels with 200000-byte
// buffers of their own parse. A third that reaches both needs 400000 bytes,
// and since a variable has one offset in every kernel, big_b then lies after
// big_a for uses_b as well: the error names both kernels.
TEST(PtxSharedLayout, TheSharedLimitHoldsPerKernel) {
  const std::string two = R"(
.version 8.0
.target sm_90
.address_size 64
.shared .align 4 .b8 big_a[200000];
.shared .align 4 .b8 big_b[200000];
.visible .entry uses_a()
{
  st.shared.u32 [big_a], 1;
  ret;
}
.visible .entry uses_b()
{
  st.shared.u32 [big_b], 1;
  ret;
}
)";
  auto m = Module::parse(two, "big.ptx");
  EXPECT_EQ(m->find("uses_a")->static_shared_bytes, 200000u);
  EXPECT_EQ(m->find("uses_b")->static_shared_bytes, 200000u);
  const std::string both = two + R"(
.visible .entry uses_both()
{
  st.shared.u32 [big_a], 1;
  st.shared.u32 [big_b], 1;
  ret;
}
)";
  try {
    Module::parse(both, "big.ptx");
    ADD_FAILURE() << "a kernel needing 400000 bytes of .shared was accepted";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line, 12u);  // the .entry of uses_b, the first named
    EXPECT_NE(std::string(e.what()).find(
                  "kernels over the limit of 232448 bytes of .shared (the module's variables "
                  "each reaches and its own): 'uses_b' (400000 bytes), 'uses_both' (400000 bytes)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cnuas::ptx::testing
