// cnuas ptx check: exit 0 when everything runs, 3 with a list when not, 2 on bad PTX.
#include <gtest/gtest.h>

#include "cli/cli_harness.h"

namespace cnuas {
using namespace testing_support;

static const char* kHead = ".version 9.0\n.target sm_90\n.address_size 64\n";

TEST(PtxCheck, SupportedModuleExitsZero) {
  const std::string f = write_file("ptx/ok.ptx", std::string(kHead) +
                                                     ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n"
                                                     "\tmov.u32 %r1, %tid.x;\n\tret;\n}\n");
  const CommandResult r = run_cnuas("ptx check " + f);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 kernel, 0 functions, 2 instructions"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("all supported"), std::string::npos) << r.out;
}

TEST(PtxCheck, UnsupportedInstructionsAreListedWithTheirLines) {
  const std::string f =
      write_file("ptx/mma.ptx", std::string(kHead) +
                                    ".visible .entry k()\n{\n\t.reg .b32 %r<4>;\n"
                                    "\tvadd.u32.u32.u32 {%r1}, [%r2];\n\tret;\n}\n");
  const CommandResult r = run_cnuas("ptx check " + f);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.out.find(f + ":7: in k: 'vadd.u32.u32.u32 {%r1}, [%r2]'"), std::string::npos)
      << r.out;
}

TEST(PtxCheck, ParseErrorsExitTwoWithTheLocation) {
  const std::string f = write_file("ptx/bad.ptx", std::string(kHead) + ".entry k(\n");
  CommandResult r = run_cnuas("ptx check " + f);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(f + ":5:1"), std::string::npos) << r.err;
  r = run_cnuas("ptx check /nonexistent.ptx");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot open PTX file"), std::string::npos) << r.err;
  r = run_cnuas("ptx frob x.ptx");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("accepted: check"), std::string::npos) << r.err;
}

}  // namespace cnuas
