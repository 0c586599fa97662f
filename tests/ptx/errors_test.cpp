// Faults and bad input: every message says what, where, and what is accepted.
#include "ptx_harness.h"

namespace cnuas::ptx::testing {
namespace {

const char* kHeader = ".version 9.0\n.target sm_90\n.address_size 64\n";

std::string parse_error(const std::string& body) {
  try {
    Module::parse(std::string(kHeader) + body, "bad.ptx");
  } catch (const ParseError& e) {
    return e.what();
  }
  return "";
}

struct PtxRun {
  DeviceMemory memory;
  std::ostringstream out;
  Executor exec{memory, out};
  std::shared_ptr<const Module> module;
  std::unique_ptr<LoadedModule> loaded;
  explicit PtxRun(const std::string& body) {
    module = Module::parse(std::string(kHeader) + body, "k.ptx");
    loaded = std::make_unique<LoadedModule>(module, memory);
  }
  std::string launch(const std::string& kernel, Dim3 grid, Dim3 block,
                     std::vector<std::uint8_t> params = {}, std::uint64_t limit = 0) {
    LaunchConfig cfg;
    cfg.grid = grid;
    cfg.block = block;
    cfg.params = std::move(params);
    cfg.instruction_limit = limit;
    try {
      exec.launch(*loaded, kernel, cfg);
    } catch (const ExecutionError& e) {
      return e.what();
    }
    return "";
  }
};

std::vector<std::uint8_t> pointer_param(std::uint64_t p) {
  std::vector<std::uint8_t> v(8);
  std::memcpy(v.data(), &p, 8);
  return v;
}

TEST(PtxErrors, ParseErrorsNameFileLineColumnAndText) {
  std::string e = parse_error(".visible .entry k()\n{\n\tfrobnicate.u32 %r1, 1;\n}\n");
  EXPECT_NE(e.find("bad.ptx:6:2"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown instruction 'frobnicate.u32'"), std::string::npos) << e;
  e = parse_error(".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tadd.u32 %r1, %r7, 1;\n}\n");
  EXPECT_NE(e.find("bad.ptx:7:15"), std::string::npos) << e;
  EXPECT_NE(e.find("%r7"), std::string::npos) << e;
  e = parse_error(".visible .entry k()\n{\n\tbra $L_nowhere;\n}\n");
  EXPECT_NE(e.find("unknown label '$L_nowhere'"), std::string::npos) << e;
  e = parse_error(".visible .entry k()\n{\n\tret;\n");
  EXPECT_NE(e.find("unterminated function body"), std::string::npos) << e;
  e = parse_error(".bogus 3;\n");
  EXPECT_NE(e.find("bad.ptx:4:1: unknown module-scope directive"), std::string::npos) << e;
  e = parse_error(".global .u32 x = 0q12;\n");
  EXPECT_NE(e.find("bad.ptx:4:"), std::string::npos) << e;
  e = parse_error("/* never closed\n");
  EXPECT_NE(e.find("unterminated /* comment"), std::string::npos) << e;
}

// Hostile declarations found by fuzzing: each is refused at its line, in
// milliseconds, without allocating what it asks for or overflowing the stack.
TEST(PtxErrors, HostileSizesAndNestingAreRefusedWithTheLimit) {
  std::string e = parse_error(".visible .entry k()\n{\n\t.reg .b32 %r<100000000>;\n}\n");
  EXPECT_NE(e.find("bad.ptx:6:15"), std::string::npos) << e;
  EXPECT_NE(e.find("100000000 registers in this function; at most 65536"), std::string::npos) << e;
  e = parse_error(".visible .entry k()\n{\n\t.shared .b8 s[100000000000];\n}\n");
  EXPECT_NE(e.find("'s' takes 100000000000 x 1 bytes; a .shared variable holds at most 232448"),
            std::string::npos)
      << e;
  // Two arrays each within the limit, together beyond it.
  e = parse_error(
      ".visible .entry k()\n{\n\t.shared .b8 a[200000];\n\t.shared .b8 b[200000];\n}\n");
  EXPECT_NE(e.find("bad.ptx:7:"), std::string::npos) << e;
  EXPECT_NE(e.find("the kernel's .shared variables would take 400000 bytes"), std::string::npos)
      << e;
  e = parse_error(".visible .entry k()\n{\n\t.local .b32 l[1000000];\n}\n");
  EXPECT_NE(e.find("a .local variable holds at most 524288"), std::string::npos) << e;
  e = parse_error(".global .b8 g[4294967296][4294967296][2];\n");
  EXPECT_NE(e.find("bad.ptx:4:27: array size 4294967296 is negative or overflows"),
            std::string::npos)
      << e;
  // A libFuzzer timeout: a 60-digit register count wrapped to 3.8e17 registers.
  e = parse_error(".visible .entry k()\n{\n\t.reg .pred %p<" + std::string(60, '3') + ">;\n}\n");
  EXPECT_NE(e.find("expected a register count: an integer of at most 64 bits"), std::string::npos)
      << e;
  const std::string deep(50000, '(');
  e = parse_error(".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, " + deep + "1" +
                  std::string(50000, ')') + ";\n}\n");
  EXPECT_NE(e.find("constant expression nested deeper than 256 levels"), std::string::npos) << e;
  e = parse_error(".global .u32 g[1] = " + std::string(50000, '{') + "1" + std::string(50000, '}') +
                  ";\n");
  EXPECT_NE(e.find("initializer nested deeper than 256 levels"), std::string::npos) << e;
  // Within the limits: 200 levels of parentheses, an uninitialised 1 GiB
  // .global array (its storage is not copied from the host).
  EXPECT_EQ(parse_error(".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, " +
                        std::string(200, '(') + "7" + std::string(200, ')') + ";\n}\n"),
            "");
  EXPECT_EQ(parse_error(".global .b8 big[1073741824];\n"), "");
}

TEST(PtxErrors, OutOfBoundsAccessNamesKernelCtaThreadLineAndAddress) {
  PtxRun r(
      ".visible .entry oob(.param .u64 p)\n{\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<4>;\n"
      "\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd2, %r1, 4;\n"
      "\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r1;\n\tret;\n}\n");
  const std::uint64_t buf = r.memory.allocate(16 * 4);  // 16 ints; the kernel writes 20
  const std::string e = r.launch("oob", {2, 1, 1}, {20, 1, 1}, pointer_param(buf));
  EXPECT_NE(e.find("kernel oob"), std::string::npos) << e;
  EXPECT_NE(e.find("CTA (0,0,0)"), std::string::npos) << e;
  EXPECT_NE(e.find("thread (16,0,0)"), std::string::npos) << e;
  EXPECT_NE(e.find("PTX line 12"), std::string::npos) << e;
  EXPECT_NE(e.find("st.global.u32 [%rd3], %r1"), std::string::npos) << e;
  char addr[32];
  std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(buf + 64));
  EXPECT_NE(e.find(addr), std::string::npos) << e;
}

TEST(PtxErrors, SharedAndLocalBoundsAreChecked) {
  PtxRun r(
      ".visible .entry sh()\n{\n\t.reg .b32 %r<4>;\n\t.shared .align 4 .b8 s[64];\n"
      "\tmov.u32 %r1, %tid.x;\n\tshl.b32 %r2, %r1, 2;\n\tmov.u32 %r3, s;\n\tadd.u32 %r2, %r2, "
      "%r3;\n"
      "\tst.shared.u32 [%r2], %r1;\n\tret;\n}\n");
  const std::string e = r.launch("sh", {1, 1, 1}, {17, 1, 1});
  EXPECT_NE(e.find("thread (16,0,0)"), std::string::npos) << e;
  EXPECT_NE(e.find("shared address 0x40"), std::string::npos) << e;
}

TEST(PtxErrors, UnsupportedInstructionsStopTheKernelNamingThem) {
  PtxRun r(
      ".visible .entry mm()\n{\n\t.reg .b64 %rd<3>;\n\tmov.u64 %rd1, 0;\n"
      "\tstacksave.u64 %rd2;\n\tret;\n}\n");
  ASSERT_EQ(r.module->unsupported().size(), 1u);
  EXPECT_EQ(r.module->unsupported()[0].line, 8u);
  const std::string e = r.launch("mm", {1, 1, 1}, {32, 1, 1});
  EXPECT_NE(e.find("PTX line 8"), std::string::npos) << e;
  EXPECT_NE(e.find("stacksave is not implemented"), std::string::npos) << e;
}

// A call through a register that holds no function's address (here 0, a null function pointer)
// stops the kernel naming the address.
TEST(PtxErrors, IndirectCallThroughANonFunctionAddress) {
  PtxRun r(
      ".func (.param .b32 out) f(.param .b32 in)\n{\n\t.reg .b32 %r<2>;\n"
      "\tld.param.b32 %r1, [in];\n\tst.param.b32 [out], %r1;\n\tret;\n}\n"
      ".visible .entry k()\n{\n\t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, 0;\n"
      "\t{\n\t.param .b32 p;\n\t.param .b32 q;\n"
      "\tproto : .callprototype (.param .b32 _) _ (.param .b32 _);\n"
      "\tcall (q), %rd1, (p), proto;\n\t}\n\tret;\n}\n");
  EXPECT_TRUE(r.module->unsupported().empty());
  const std::string e = r.launch("k", {1, 1, 1}, {32, 1, 1});
  EXPECT_NE(e.find("indirect call through 0x0, which is not the address of a function"),
            std::string::npos)
      << e;
}

TEST(PtxErrors, TrapBarrierDeadlockAndRunawayKernels) {
  PtxRun trap(
      ".visible .entry t()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, %tid.x;\n\t"
      ".reg .pred %p;\n\tsetp.eq.u32 %p, %r1, 5;\n\t@%p trap;\n\tret;\n}\n");
  std::string e = trap.launch("t", {1, 1, 1}, {32, 1, 1});
  EXPECT_NE(e.find("thread (5,0,0)"), std::string::npos) << e;
  EXPECT_NE(e.find("trap executed"), std::string::npos) << e;
  // bar.sync 1, 64 in a CTA of 32 threads: the barrier can never fill.
  PtxRun dead(".visible .entry d()\n{\n\tbar.sync 1, 64;\n\tret;\n}\n");
  e = dead.launch("d", {1, 1, 1}, {32, 1, 1});
  EXPECT_NE(e.find("barrier 1 can never complete: 32 threads arrived, 64 expected"),
            std::string::npos)
      << e;
  // A loop whose state changes (a spin that repeats itself is proven endless
  // earlier: suspend_test.cpp).
  PtxRun spin(
      ".visible .entry s()\n{\n\t.reg .b32 %r<2>;\n$L:\n\tadd.u32 %r1, %r1, 1;\n"
      "\tbra.uni $L;\n}\n");
  e = spin.launch("s", {1, 1, 1}, {32, 1, 1}, {}, 100000);
  EXPECT_NE(e.find("instruction limit of 100000"), std::string::npos) << e;
}

TEST(PtxErrors, BadLaunchesAreRefusedWithWhatIsAccepted) {
  PtxRun r(".visible .entry k(.param .u64 p)\n{\n\tret;\n}\n");
  LaunchConfig cfg;
  cfg.block = {2048, 1, 1};
  cfg.params.resize(8);
  try {
    r.exec.launch(*r.loaded, "k", cfg);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("1 to 1024 threads"), std::string::npos) << e.what();
  }
  cfg.block = {32, 1, 1};
  cfg.params.clear();
  try {
    r.exec.launch(*r.loaded, "k", cfg);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("takes 8 parameter bytes; 0 given"), std::string::npos)
        << e.what();
  }
  try {
    r.exec.launch(*r.loaded, "kk", cfg);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no kernel (.entry) named 'kk'"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cnuas::ptx::testing
