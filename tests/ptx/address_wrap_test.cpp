// 32-bit address arithmetic wraps at 2^32 (issue 22): shared and local
// addresses are 32 bits wide, and so is an address held in a 32-bit register.
// Hand-written PTX, so that the operand forms are exactly the ones tested.
#include <sstream>

#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

// Each kernel adds `base` to a variable's address in 32 bits and accesses
// [that+0x40000000]: with base = 0xc0000000 the register holds the address
// minus 2^30 (mod 2^32), "negative" as nvcc keeps it, and the access reaches
// the variable only when the sum wraps at 2^32. The value found is stored to out[0].
const char* kWrapPtx = R"(.version 9.0
.target sm_90
.address_size 64
.visible .entry shared32(.param .u64 out, .param .u32 base)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<3>;
  .shared .align 4 .b32 word[4];
  mov.u32 %r1, 1234;
  st.shared.u32 [word], %r1;
  ld.param.u32 %r2, [base];
  mov.u32 %r0, word;
  add.u32 %r2, %r2, %r0;
  ld.shared.u32 %r3, [%r2+0x40000000];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r3;
  ret;
}
.visible .entry shared64(.param .u64 out, .param .u32 base)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 word[4];
  mov.u32 %r1, 1234;
  st.shared.u32 [word], %r1;
  ld.param.u32 %r2, [base];
  mov.u32 %r0, word;
  add.u32 %r2, %r2, %r0;
  cvt.u64.u32 %rd3, %r2;
  ld.shared.u32 %r3, [%rd3+0x40000000];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r3;
  ret;
}
.visible .entry local32(.param .u64 out, .param .u32 base)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<3>;
  .local .align 4 .b32 slot[4];
  mov.u32 %r1, 4321;
  ld.param.u32 %r2, [base];
  mov.u32 %r0, slot;
  add.u32 %r2, %r2, %r0;
  st.local.u32 [%r2+0x40000000], %r1;
  ld.local.u32 %r3, [slot];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r3;
  ret;
}
.visible .entry generic32(.param .u32 base)
{
  .reg .b32 %r<5>;
  ld.param.u32 %r2, [base];
  ld.u32 %r3, [%r2+32];
  ret;
}
)";

class Wrap : public ::testing::Test {
 protected:
  Wrap()
      : module_(Module::parse(kWrapPtx, "wrap.ptx")),
        loaded_(module_, memory_),
        exec_(memory_, printed_) {}

  // Runs `kernel` on one thread with (out, base) or (base) and returns out[0].
  template <class Base>
  std::uint32_t run(const std::string& kernel, Base base, bool with_out = true) {
    const std::uint64_t out = memory_.allocate(4);
    LaunchConfig cfg;
    const Function* f = module_->find(kernel);
    cfg.params.assign(f->param_bytes, 0);
    std::size_t k = 0;
    if (with_out) std::memcpy(cfg.params.data() + f->params[k++].offset, &out, 8);
    std::memcpy(cfg.params.data() + f->params[k].offset, &base, sizeof base);
    exec_.launch(loaded_, kernel, cfg);
    std::uint32_t v = 0;
    memory_.read(out, &v, 4);
    return v;
  }

  DeviceMemory memory_;
  std::shared_ptr<const Module> module_;
  LoadedModule loaded_;
  std::ostringstream printed_;
  Executor exec_;
};

TEST_F(Wrap, SharedAddressInA32BitRegisterWraps) {
  // (word + 0xc0000000) + 0x40000000 = word + 2^32, which is word in 32 bits.
  EXPECT_EQ(run("shared32", std::uint32_t{0xc0000000u}), 1234u);
}

TEST_F(Wrap, SharedAddressesAre32BitsWideEvenInA64BitRegister) {
  // The 64-bit register holds the zero-extended sum; shared addresses have 32 bits.
  EXPECT_EQ(run("shared64", std::uint32_t{0xc0000000u}), 1234u);
}

TEST_F(Wrap, LocalAddressInA32BitRegisterWraps) {
  // (slot + 0xc0000000) + 0x40000000 wraps to slot: the store lands in slot[0].
  EXPECT_EQ(run("local32", std::uint32_t{0xc0000000u}), 4321u);
}

TEST_F(Wrap, AWrappedAddressOutsideTheWindowStillFaultsWithTheWrappedAddress) {
  // (word + 0xc0010000) + 0x40000000 = word + 0x10000 (mod 2^32), word being the
  // first shared variable at 0: wrapped, and still outside the kernel's 16 bytes.
  try {
    run("shared32", std::uint32_t{0xc0010000u});
    FAIL() << "expected a fault";
  } catch (const ExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("shared address 0x10000 is outside"), std::string::npos)
        << e.what();
  }
}

TEST_F(Wrap, GenericAddressInA32BitRegisterWraps) {
  // 0xfffffff0 + 32 = 0x10 in 32 bits: a generic address in no allocation, named as such.
  try {
    run("generic32", std::uint32_t{0xfffffff0u}, false);
    FAIL() << "expected a fault";
  } catch (const ExecutionError& e) {
    EXPECT_NE(std::string(e.what()).find("global address 0x10 is outside any allocation"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cnuas::ptx::testing
