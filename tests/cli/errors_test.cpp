// Bad input: exit code 2 and one clear message naming what and where.
#include <gtest/gtest.h>

#include "cli/cli_harness.h"

namespace cnuas {
using namespace testing_support;

static CommandResult run_platform_text(const std::string& name, const std::string& text,
                                       const std::string& extra = "") {
  return run_cnuas("run " + write_file(name, text) + " " + extra);
}

static const char* kGood =
    "platform: p\nelements:\n  - {name: a, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
    "workload:\n  operations:\n    - {name: x, path: [a], dims: {bytes: 10}}\n";

TEST(Errors, GoodPlatformRuns) {
  CommandResult r = run_platform_text("good.yaml", kGood);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(Errors, UnknownKeyInPlatform) {
  CommandResult r = run_platform_text("k.yaml", "platform: p\nelemnts: []\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("k.yaml:2:1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean 'elements'"), std::string::npos) << r.err;
}

TEST(Errors, BadUnitInSet) {
  CommandResult r = run_platform_text(
      "u.yaml",
      "platform: p\nelements:\n  - {name: a, type: cnuas.pipe, set: {bandwidth: 1 GHz}}\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("u.yaml:3:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("data rate"), std::string::npos) << r.err;
}

TEST(Errors, MissingDimensionNamesOperationAndElement) {
  CommandResult r = run_platform_text(
      "d.yaml",
      "platform: p\nelements:\n  - {name: a, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
      "workload:\n  operations:\n    - {name: x, path: [a], dims: {flops: 10}}\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("d.yaml:6:7"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("operation 'x'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'bytes'"), std::string::npos) << r.err;
}

TEST(Errors, NegativeAndMalformedNumbers) {
  CommandResult r = run_platform_text(
      "n.yaml",
      "platform: p\nelements:\n  - {name: a, type: cnuas.pipe, set: {bandwidth: -1 GB/s}}\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("negative"), std::string::npos) << r.err;
}

TEST(Errors, ServiceTimeBeyondTheClockIsAnInputError) {
  // 2^60 bytes at 1 bit/s is about 9.2e30 ps: far beyond a 64-bit picosecond clock.
  CommandResult r = run_platform_text(
      "o.yaml",
      "platform: p\nelements:\n  - {name: slow, type: cnuas.pipe, set: {bandwidth: 1 bit/s}}\n"
      "workload:\n  operations:\n    - {name: huge, path: [slow], dims: {bytes: "
      "1152921504606846976}}\n");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("p.slow"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'huge'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("overflow"), std::string::npos) << r.err;
  r = run_platform_text(
      "o2.yaml",
      "platform: p\nelements:\n  - {name: a, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
      "workload:\n  operations:\n    - {name: x, path: [a], dims: {bytes: 1e30}}\n");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("o2.yaml:6:"), std::string::npos) << r.err;
}

TEST(Errors, OverflowFromUserFiguresIsNotAnInternalError) {
  // The same 2^60 B at 1 bit/s as above: the user's figures, so exit 2, never "internal error".
  CommandResult r = run_platform_text(
      "o3.yaml",
      "platform: p\nelements:\n  - {name: slow, type: cnuas.pipe, set: {bandwidth: 1 bit/s}}\n"
      "workload:\n  operations:\n    - {name: huge, path: [slow], dims: {bytes: "
      "1152921504606846976}}\n");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  // The message names the workload entry too (the line of `- {name: huge`).
  EXPECT_NE(r.err.find("o3.yaml:6:7: p.slow (cnuas.pipe): cannot serve operation 'huge'"),
            std::string::npos)
      << r.err;
}

// A start near 2^64 ps ended in "internal error: simulation ended with 2 of 3
// operations complete" (exit 1): workload times are capped at 10^6 s, the
// last repetition's start included, each refused at its place.
TEST(Errors, WorkloadTimesPastTheLongestRunAreRefused) {
  const std::string head =
      "platform: p\nelements:\n  - {name: a, type: cnuas.pipe, set: {bandwidth: 1 GB/s}}\n"
      "workload:\n  operations:\n";
  CommandResult r = run_platform_text(
      "t1.yaml", head +
                     "    - {name: x, path: [a], dims: {bytes: 1}, start: 18446744073709551615 "
                     "ps, repeat: 3, interval: 1 s}\n");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("t1.yaml:6:53: operation 'x' start: '18446744073709551615 ps' is past the "
                       "longest run accepted (1000000 s)"),
            std::string::npos)
      << r.err;
  r = run_platform_text("t2.yaml", head +
                                       "    - {name: x, path: [a], dims: {bytes: 1}, repeat: "
                                       "3, interval: 600000 s}\n");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("t2.yaml:6:67: operation 'x': its last repetition would start past"),
            std::string::npos)
      << r.err;
  // 2 x 500000 s is exactly the limit: accepted, and the last copy starts then.
  r = run_platform_text("t3.yaml", head +
                                       "    - {name: x, path: [a], dims: {bytes: 1}, repeat: "
                                       "3, interval: 500000 s}\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(Errors, ModelLogicErrorIsAnInternalErrorNamingElementAndOperation) {
  // test.faulty throws std::logic_error for a 13-byte stage (tests/plugins/faulty_model.cpp).
  const std::string platform =
      std::string("platform: p\nplugins: [") + CNUAS_FAULTY_PLUGIN +
      "]\nelements:\n  - {name: bad, type: test.faulty}\n"
      "workload:\n  operations:\n"
      "    - {name: fine, path: [bad], dims: {bytes: 12}}\n"
      "    - {name: boom, path: [bad], dims: {bytes: 13}, after: [fine]}\n";
  CommandResult r = run_platform_text("faulty.yaml", platform);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("internal error"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("p.bad (test.faulty)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("operation 'boom'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("unlucky size"), std::string::npos) << r.err;  // the model's own words
  // Control: without the 13-byte operation the same model runs (12 B at 1 ps/B).
  const std::string good = platform.substr(0, platform.find("    - {name: boom"));
  r = run_platform_text("faulty_ok.yaml", good);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(Errors, CommandLineProblems) {
  EXPECT_EQ(run_cnuas("frobnicate").exit_code, 2);
  EXPECT_EQ(run_cnuas("run /nonexistent/platform.yaml").exit_code, 2);
  EXPECT_EQ(run_cnuas("run --no-such-flag").exit_code, 2);
  CommandResult r = run_cnuas("run " + write_file("s.yaml", kGood) + " --set a.bandwith=2GB/s");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean 'bandwidth'"), std::string::npos) << r.err;
  r = run_cnuas("describe cnuas.pip");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean 'cnuas.pipe'"), std::string::npos) << r.err;
  EXPECT_EQ(run_cnuas("run --plugin /nonexistent/lib.so").exit_code, 2);
}

TEST(Errors, ValidateChecksWithoutRunning) {
  std::string p = write_file("v.yaml", kGood);
  CommandResult r = run_cnuas("validate " + p);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("valid platform 'p'"), std::string::npos);
  r = run_cnuas("validate " + p + " --dump");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("bandwidth: 1 GB/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bandwidth of one lane"), std::string::npos)
      << r.out;                                                        // the field's description
  EXPECT_NE(r.out.find("latency: 0 ns"), std::string::npos) << r.out;  // resolved default
  std::string prof = write_file("prof.yaml", "type: cnuas.pipe\nbandwidth: 3 parsecs\n");
  r = run_cnuas("validate --profile " + prof);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("prof.yaml:2:12"), std::string::npos) << r.err;
}

// validate builds every element as run does, so what an element's own
// constructor refuses (a GPU's compute capability, its architecture name)
// is refused by validate too, with the same message and exit code.
TEST(Errors, ValidateRefusesWhatRunRefuses) {
  for (const std::string& set :
       {std::string("compute_capability: banana"), std::string("architecture: b100-imaginary")}) {
    const std::string p = write_file(
        "vr.yaml",
        "platform: vr\nelements:\n  - {name: gpu, type: cnuas.gpu, set: {peak_rate: 1 TFLOP/s, "
        "memory_bandwidth: 1 TB/s, " +
            set +
            "}}\nworkload:\n  operations:\n    - {name: k, path: [gpu], dims: {flops: 1 "
            "GFLOP}}\n");
    const CommandResult validated = run_cnuas("validate " + p);
    const CommandResult ran = run_cnuas("run " + p);
    EXPECT_EQ(validated.exit_code, 2) << set << ": " << validated.out;
    EXPECT_EQ(ran.exit_code, 2) << set;
    EXPECT_NE(validated.err.find("vr.yaml:3:"), std::string::npos) << validated.err;
    EXPECT_EQ(validated.err, ran.err) << set;
  }
}

TEST(Errors, ListModelsAndDescribe) {
  CommandResult r = run_cnuas("list-models");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* t : {"cnuas.pipe", "cnuas.compute", "cnuas.banked_memory", "cnuas.fixed_delay"})
    EXPECT_NE(r.out.find(t), std::string::npos) << t;
  r = run_cnuas("describe cnuas.pipe");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("bandwidth"), std::string::npos);
}

}  // namespace cnuas
