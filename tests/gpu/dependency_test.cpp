// Dependencies the scoreboard must see, timed on the unit architecture
// (unit-arch.yaml: 1 GHz, one scheduler; tensor pipe latency 32, interval 16;
// int pipe latency 4, interval 2). As in the microbenchmarks, each test runs
// a straight-line kernel for two lengths K and takes the per-instruction slope,
// so the fixed costs (launch, the register set-up, the final store) cancel.
#include <gtest/gtest.h>

#include "gpu_harness.h"

namespace cnuas::gpu::testing {
namespace {

const PipeTiming& pipe(Unit u) {
  return loaded_unit_arch().sm.pipes[static_cast<std::size_t>(u)];
}

std::string regs(const std::string& prefix, int first, int count) {
  std::string s = "{";
  for (int i = first; i < first + count; ++i)
    s += (i == first ? "" : ", ") + prefix + std::to_string(i);
  return s + "}";
}

// K matrix multiply-accumulates of one warp with A = B = all ones, alternating
// between two accumulator sets X and Y. Chained, each one's C is the D of the
// one before (X = A*B + Y, then Y = A*B + X ...), so every element ends at
// 16 * K for m16n16k16 wmma (k = 16 products of 1 per step) and likewise for
// mma m16n8k16. Independent, every C is the zero set Z and the result is 16.
// `frag` is the accumulator registers per set: 8 for wmma, 4 for mma.
std::string tensor_kernel(int k, bool wmma, bool chained) {
  const int frag = wmma ? 8 : 4;
  const int a_regs = wmma ? 8 : 4, b_regs = wmma ? 8 : 2;
  const int x = 1, y = x + frag, z = y + frag;  // %f numbers of the three sets
  std::string s =
      ".visible .entry mma(.param .u64 out)\n{\n  .reg .u64 %rd<2>;\n"
      "  .reg .b32 %r<20>;\n  .reg .f32 %f<" +
      std::to_string(z + frag) +
      ">;\n"
      "  ld.param.u64 %rd1, [out];\n";
  for (int i = 1; i <= a_regs + b_regs; ++i)
    s += "  mov.b32 %r" + std::to_string(i) + ", 0x3C003C00;\n";  // two f16 ones
  for (int i = y; i < z + frag; ++i) s += "  mov.f32 %f" + std::to_string(i) + ", 0f00000000;\n";
  const std::string op = wmma ? "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 "
                              : "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 ";
  const std::string ab = regs("%r", 1, a_regs) + ", " + regs("%r", 1 + a_regs, b_regs);
  for (int i = 0; i < k; ++i) {
    const int d = i % 2 ? y : x, c = chained ? (i % 2 ? x : y) : z;
    s += "  " + op + regs("%f", d, frag) + ", " + ab + ", " + regs("%f", c, frag) + ";\n";
  }
  const int last = (k - 1) % 2 ? y : x;
  s += "  st.global.f32 [%rd1], %f" + std::to_string(last) + ";\n  ret;\n}\n";
  return ptx_module(s);
}

double tensor_slope(bool wmma, bool chained) {
  auto cycles = [&](int k) {
    PerfDevice d(tensor_kernel(k, wmma, chained));
    const std::uint64_t out = d.memory().allocate(4);
    const KernelRun r = d.perf("mma", {1, 1, 1}, {32, 1, 1}, out);
    EXPECT_EQ(d.download<float>(out, 1)[0], chained ? 16.0f * static_cast<float>(k) : 16.0f);
    return static_cast<double>(r.cycles);
  };
  return (cycles(24) - cycles(8)) / 16.0;
}

TEST(GpuDependencies, WmmaChainedThroughItsF32AccumulatorWaitsForTheTensorLatency) {
  // Each wmma.mma reads the 8 registers the previous one wrote as its C (its
  // operands 25..32); A and B are ready. It issues tensor.latency = 32 cycles
  // after the previous one, not at the pipe's interval (16).
  EXPECT_DOUBLE_EQ(tensor_slope(true, true), 32.0);
  EXPECT_EQ(pipe(Unit::Tensor).latency, 32u);
}

TEST(GpuDependencies, IndependentWmmaIssueAtTheTensorInterval) {
  // Every C is the zero set: only the pipe (interval 16) spaces them. D
  // alternates, so the set written two steps back was ready 2 * 16 = 32
  // cycles after its issue, exactly when the write-after-write check looks.
  EXPECT_DOUBLE_EQ(tensor_slope(true, false), 16.0);
  EXPECT_EQ(pipe(Unit::Tensor).interval, 16u);
}

TEST(GpuDependencies, MmaSyncChainedThroughItsAccumulatorWaitsForTheTensorLatency) {
  EXPECT_DOUBLE_EQ(tensor_slope(false, true), 32.0);
  EXPECT_DOUBLE_EQ(tensor_slope(false, false), 16.0);
}

// K addc.cc on distinct registers from the same sources: chained only through
// the carry flag, which each one reads and writes.
std::string carry_kernel(int k) {
  std::string s =
      ".visible .entry carry(.param .u64 out)\n{\n  .reg .u64 %rd<2>;\n  .reg .u32 %r<" +
      std::to_string(k + 4) +
      ">;\n  ld.param.u64 %rd1, [out];\n"
      "  mov.u32 %r1, 0xffffffff;\n"
      "  mov.u32 %r2, 1;\n"
      "  add.cc.u32 %r3, %r1, %r2;\n";  // 0xffffffff + 1: carry out 1
  for (int i = 0; i < k; ++i)
    s += "  addc.cc.u32 %r" + std::to_string(i + 4) + ", %r1, %r2;\n";  // carry in 1, out 1
  s += "  st.global.u32 [%rd1], %r" + std::to_string(k + 3) + ";\n  ret;\n}\n";
  return ptx_module(s);
}

TEST(GpuDependencies, AddcChainedOnlyThroughTheCarryWaitsForTheIntLatency) {
  // Each addc.cc needs the carry the one before produced: int.latency = 4
  // cycles apart, not the int interval (2). Every sum is 0xffffffff + 1 + 1 = 1.
  auto cycles = [](int k) {
    PerfDevice d(carry_kernel(k));
    const std::uint64_t out = d.memory().allocate(4);
    const KernelRun r = d.perf("carry", {1, 1, 1}, {32, 1, 1}, out);
    EXPECT_EQ(d.download<std::uint32_t>(out, 1)[0], 1u);
    return static_cast<double>(r.cycles);
  };
  EXPECT_DOUBLE_EQ((cycles(40) - cycles(8)) / 32.0, 4.0);
  EXPECT_EQ(pipe(Unit::Int).latency, 4u);
  EXPECT_EQ(pipe(Unit::Int).interval, 2u);
}

}  // namespace
}  // namespace cnuas::gpu::testing
