// Warp-level tensor instructions (mma.sync) in the performance model. With an
// sm.mma rate, an instruction holds its scheduler's tensor pipe for the
// profile's overhead plus its FLOP at that scheduler's share of the rate, and
// its result is ready `stages` times that after issue; without one, every
// shape takes the tensor pipe's interval and latency. The unit tests check
// slopes over K instructions (as in microbench_test.cpp) against that closed
// form; the published ones run the same microbenchmark as the cited H100 SXM
// measurements on the shipped Hopper profiles. Every run's accumulators are
// checked against a hand computation.
#include <gtest/gtest.h>

#include <cstring>

#include "gpu_harness.h"

namespace cnuas::gpu::testing {
namespace {

struct MmaForm {
  const char* shape;  // PTX shape
  const char* types;  // d.a.b.c
  int k;              // of m16n8k
  int a_regs, b_regs;
  const char* one;  // a 32-bit register of A or B elements equal to 1
  bool integer;     // s32 accumulators
  std::uint64_t fma() const { return 16ull * 8 * static_cast<std::uint64_t>(k); }
};
constexpr MmaForm kF16K16{"m16n8k16", "f32.f16.f16.f32", 16, 4, 2, "0x3C003C00", false};
constexpr MmaForm kF16K8{"m16n8k8", "f32.f16.f16.f32", 8, 2, 1, "0x3C003C00", false};
constexpr MmaForm kTf32K8{"m16n8k8", "f32.tf32.tf32.f32", 8, 4, 2, "0x3F800000", false};
constexpr MmaForm kTf32K4{"m16n8k4", "f32.tf32.tf32.f32", 4, 2, 1, "0x3F800000", false};
constexpr MmaForm kS8K32{"m16n8k32", "s32.s8.s8.s32", 32, 4, 2, "0x01010101", true};
constexpr MmaForm kS8K16{"m16n8k16", "s32.s8.s8.s32", 16, 2, 1, "0x01010101", true};

// `count` mma.sync per warp with A = B = 1. Dependent: each accumulates onto
// the previous result (D = C), so every element ends at count x k; independent:
// each writes its own D from C = 0, so the one stored is k. Each thread stores
// its first accumulator at out[tid].
std::string mma_kernel(int count, const MmaForm& f, bool dependent) {
  const int d_sets = dependent ? 1 : count;
  const std::string acc = f.integer ? "%s" : "%f";
  std::string s = ".visible .entry mma(.param .u64 out)\n{\n  .reg .u64 %rd<3>;\n";
  s += "  .reg .b32 %h<6>;\n  .reg ." + std::string(f.integer ? "s32 %s<" : "f32 %f<") +
       std::to_string(4 * d_sets + 8) + ">;\n";
  s += "  .reg .u32 %t<2>;\n  ld.param.u64 %rd1, [out];\n";
  for (int r = 0; r < 6; ++r) s += "  mov.b32 %h" + std::to_string(r) + ", " + f.one + ";\n";
  for (int r = 0; r < 4; ++r) s += "  mov.b32 " + acc + std::to_string(r) + ", 0;\n";
  auto list = [](const std::string& reg, int first, int n) {
    std::string l = "{";
    for (int i = 0; i < n; ++i) l += (i ? ", " : "") + reg + std::to_string(first + i);
    return l + "}";
  };
  for (int i = 0; i < count; ++i) {
    const int d = dependent ? 0 : 4 + 4 * i;
    s += std::string("  mma.sync.aligned.") + f.shape + ".row.col." + f.types + " " +
         list(acc, d, 4) + ", " + list("%h", 0, f.a_regs) + ", " + list("%h", 4, f.b_regs) + ", " +
         list(acc, 0, 4) + ";\n";
  }
  const int last = dependent ? 0 : 4 + 4 * (count - 1);
  s += "  mov.u32 %t1, %tid.x;\n  mul.wide.u32 %rd2, %t1, 4;\n  add.u64 %rd1, %rd1, %rd2;\n";
  s += "  st.global.b32 [%rd1], " + acc + std::to_string(last) + ";\n  ret;\n}\n";
  return ptx_module(s);
}

// The cycles of one CTA of `warps` warps, each running `count` mma.sync; checks the results.
double mma_cycles(const ArchConfig& arch, const MmaForm& f, int count, bool dependent,
                  std::uint32_t warps = 1) {
  PerfDevice d(mma_kernel(count, f, dependent), arch);
  const std::uint32_t threads = 32 * warps;
  const std::uint64_t out = d.memory().allocate(threads * 4);
  const KernelRun r = d.perf("mma", {1, 1, 1}, {threads, 1, 1}, out);
  const std::int64_t expect = (dependent ? count : 1) * f.k;
  for (std::uint32_t raw : d.download<std::uint32_t>(out, threads)) {
    if (f.integer) {
      EXPECT_EQ(static_cast<std::int32_t>(raw), expect);
    } else {
      float v;
      std::memcpy(&v, &raw, sizeof v);
      EXPECT_EQ(v, static_cast<float>(expect));
    }
  }
  EXPECT_EQ(r.total.tensor_flops, 2 * f.fma() * static_cast<std::uint64_t>(count) * warps);
  return static_cast<double>(r.cycles);
}

// Cycles per mma.sync of each warp, from runs of 16 and 48.
double mma_slope(const ArchConfig& arch, const MmaForm& f, bool dependent,
                 std::uint32_t warps = 1) {
  return (mma_cycles(arch, f, 48, dependent, warps) - mma_cycles(arch, f, 16, dependent, warps)) /
         32.0;
}

ArchConfig with_mma(std::uint32_t f16, std::uint32_t overhead = 0, std::uint32_t stages = 0) {
  ArchConfig arch = unit_arch();
  arch.sm.mma.rates.f16 = f16;
  arch.sm.mma.overhead = overhead;
  arch.sm.mma.stages = stages;
  return arch;
}

const PipeTiming& tensor_pipe() {
  return loaded_unit_arch().sm.pipes[static_cast<std::size_t>(Unit::Tensor)];
}

TEST(GpuTensorRate, WithoutARateEveryShapeTakesThePipeInterval) {
  const ArchConfig arch = with_mma(0);
  EXPECT_DOUBLE_EQ(mma_slope(arch, kF16K16, false), tensor_pipe().interval);
  EXPECT_DOUBLE_EQ(mma_slope(arch, kF16K8, false), tensor_pipe().interval);
  EXPECT_DOUBLE_EQ(mma_slope(arch, kF16K16, true), tensor_pipe().latency);
}

TEST(GpuTensorRate, AnMmaHoldsThePipeForItsFlopsAtTheProfileRate) {
  // One scheduler at 512 FLOP per cycle: m16n8k16 (4096 FLOP) 8 cycles, m16n8k8 4.
  const ArchConfig arch = with_mma(512);
  ASSERT_EQ(arch.sm.schedulers, 1u);
  EXPECT_DOUBLE_EQ(mma_slope(arch, kF16K16, false), 4096.0 / 512);
  EXPECT_DOUBLE_EQ(mma_slope(arch, kF16K8, false), 2048.0 / 512);
  // A dependent chain waits for the pipe's latency, which is longer here.
  ASSERT_GT(tensor_pipe().latency, 8u);
  EXPECT_DOUBLE_EQ(mma_slope(arch, kF16K16, true), tensor_pipe().latency);
  // An input type without a rate keeps the pipe's interval.
  EXPECT_DOUBLE_EQ(mma_slope(arch, kTf32K8, false), tensor_pipe().interval);
}

TEST(GpuTensorRate, AResultIsNeverThereBeforeThePipeIsDoneWithIt) {
  // 64 FLOP per cycle: m16n8k16 holds the pipe 64 cycles, longer than the latency of 32.
  const ArchConfig arch = with_mma(64);
  ASSERT_LT(tensor_pipe().latency, 64u);
  EXPECT_DOUBLE_EQ(mma_slope(arch, kF16K16, false), 64.0);
  EXPECT_DOUBLE_EQ(mma_slope(arch, kF16K16, true), 64.0);
  // One mma and the store of its result: the store waits 64 cycles instead of the latency.
  EXPECT_DOUBLE_EQ(mma_cycles(arch, kF16K16, 1, false) - mma_cycles(with_mma(0), kF16K16, 1, false),
                   64.0 - tensor_pipe().latency);
}

TEST(GpuTensorRate, OverheadAddsToEachInstructionAndStagesScaleTheLatency) {
  // 512 FLOP per cycle, 2 cycles of overhead, 4 stages: m16n8k16 2 + 8 = 10 cycles, its result
  // 40 after issue; m16n8k8 2 + 4 = 6 and 24.
  const ArchConfig arch = with_mma(512, 2, 4);
  EXPECT_DOUBLE_EQ(mma_slope(arch, kF16K16, false), 10.0);
  EXPECT_DOUBLE_EQ(mma_slope(arch, kF16K8, false), 6.0);
  EXPECT_DOUBLE_EQ(mma_slope(arch, kF16K16, true), 40.0);
  EXPECT_DOUBLE_EQ(mma_slope(arch, kF16K8, true), 24.0);
}

// Published mma.sync microbenchmarks on H100 SXM (132 SMs at 1980 MHz, CUDA 12.9; the Luo et
// al. suite rerun in Johnsonms/NVIDIA-Hopper-Benchmark, reproduction/H100-dapperdingo/raw/
// mma_m16n8k{4,8,16,32}.log): a dependent chain on one warp per SM (latency, cycles), and one
// chain per warp on `warps` warps per SM (FMA per SM per cycle; integer forms count an
// multiply-add of bytes as one FMA). The H200 has the same SM.
struct PublishedMma {
  const char* name;
  MmaForm form;
  double latency;
  std::uint32_t warps;
  double fma_per_cycle;
};

const PublishedMma kPublishedMma[] = {
    {"f16_m16n8k16", kF16K16, 24.09, 32, 1339.48}, {"f16_m16n8k8", kF16K8, 16.00, 16, 1004.63},
    {"tf32_m16n8k8", kTf32K8, 24.11, 32, 669.38},  {"tf32_m16n8k4", kTf32K4, 16.06, 16, 505.01},
    {"s8_m16n8k32", kS8K32, 24.05, 32, 2680.85},   {"s8_m16n8k16", kS8K16, 16.00, 16, 2030.52},
};

class GpuTensorPublished : public ::testing::TestWithParam<std::tuple<const char*, PublishedMma>> {
};

TEST_P(GpuTensorPublished, MmaSyncWithinTenPercentOfTheMeasurement) {
  const auto& [profile, p] = GetParam();
  const ArchConfig arch = load_arch(profile);
  const double latency = mma_slope(arch, p.form, true);
  EXPECT_NEAR(latency / p.latency, 1.0, 0.10)
      << p.name << ": model " << latency << " cycles, measured " << p.latency;
  const double per_warp = mma_slope(arch, p.form, true, p.warps);
  const double fma = static_cast<double>(p.warps * p.form.fma()) / per_warp;
  EXPECT_NEAR(fma / p.fma_per_cycle, 1.0, 0.10)
      << p.name << ": model " << fma << " FMA per SM per cycle, measured " << p.fma_per_cycle;
}

INSTANTIATE_TEST_SUITE_P(Hopper, GpuTensorPublished,
                         ::testing::Combine(::testing::Values("h100-sxm", "h200-sxm"),
                                            ::testing::ValuesIn(kPublishedMma)),
                         [](const auto& param) {
                           std::string name = std::string(std::get<0>(param.param)) + "_" +
                                              std::get<1>(param.param).name;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace cnuas::gpu::testing
