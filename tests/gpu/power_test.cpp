// Energy per tensor FLOP and power capping in the performance model: the
// energy of a known instruction mix, and the SM clock stepping down when the
// modelled power exceeds the profile's TDP (tests/gpu/unit-arch.yaml: 1 GHz,
// 2 SMs, static 10 W, 1 W per SM with resident warps, 2 pJ per FP32 warp
// instruction).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/kernel/errors.h"
#include "gpu/perf_json.h"
#include "gpu/perf_report.h"
#include "gpu/power_model.h"
#include "gpu_harness.h"

namespace cnuas::gpu::testing {
namespace {

std::string unit_arch_text() {
  std::ifstream in(std::string(CNUAS_GPU_TEST_DIR) + "/unit-arch.yaml");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The unit part with lines appended to its last section (energy) and a power section.
ArchConfig unit_arch_with(const std::string& energy_lines, const std::string& power_section) {
  return load_arch_text(unit_arch_text() + energy_lines + power_section, "unit-power");
}

std::string power_section(const std::string& tdp) {
  return "power:\n  tdp: " + tdp +
         "\n  clock_step: 100 MHz\n  min_clock: 100 MHz\n  interval: 100 ns\n";
}

// Eight independent mma.sync m16n8k16 of one warp (A = B = ones, C = 0).
std::string mma_kernel() {
  std::string s =
      ".visible .entry mma(.param .u64 out)\n{\n  .reg .u64 %rd<2>;\n  .reg .b32 %r<8>;\n"
      "  .reg .f32 %f<9>;\n  ld.param.u64 %rd1, [out];\n";
  for (int i = 1; i <= 6; ++i) s += "  mov.b32 %r" + std::to_string(i) + ", 0x3C003C00;\n";
  s += "  mov.f32 %f5, 0f00000000;\n  mov.f32 %f6, 0f00000000;\n"
       "  mov.f32 %f7, 0f00000000;\n  mov.f32 %f8, 0f00000000;\n";
  for (int i = 0; i < 8; ++i)
    s += "  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, "
         "%r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};\n";
  s += "  st.global.f32 [%rd1], %f1;\n  ret;\n}\n";
  return ptx_module(s);
}

// Each thread runs `n` iterations of eight FMAs in four independent chains:
// the FP32 pipe, not memory, sets the time.
std::string fma_loop_kernel() {
  return ptx_module(R"(
.visible .entry fma_loop(.param .u64 out, .param .u32 n)
{
  .reg .u32 %r<4>;
  .reg .u64 %rd<2>;
  .reg .f32 %f<6>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, 0;
  mov.f32 %f1, 0f3F800000;
  mov.f32 %f2, 0f3F800000;
  mov.f32 %f3, 0f3F800000;
  mov.f32 %f4, 0f3F800000;
  mov.f32 %f5, 0f3F000000;
LOOP:
  fma.rn.f32 %f1, %f1, %f5, %f5;
  fma.rn.f32 %f2, %f2, %f5, %f5;
  fma.rn.f32 %f3, %f3, %f5, %f5;
  fma.rn.f32 %f4, %f4, %f5, %f5;
  fma.rn.f32 %f1, %f1, %f5, %f5;
  fma.rn.f32 %f2, %f2, %f5, %f5;
  fma.rn.f32 %f3, %f3, %f5, %f5;
  fma.rn.f32 %f4, %f4, %f5, %f5;
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra LOOP;
  add.f32 %f1, %f1, %f2;
  st.global.f32 [%rd1], %f1;
  ret;
}
)");
}

struct FmaRun {
  KernelRun run;
  nlohmann::json json;
};

// Two CTAs of 8 warps (one per SM), 2000 iterations: about 2 x 8 x 2000 x 11 warp
// instructions, one per SM cycle, so about 176 us at 1 GHz.
FmaRun run_fma(const ArchConfig& arch) {
  PerfDevice d(fma_loop_kernel(), arch);
  const std::uint64_t out = d.memory().allocate(4);
  FmaRun r{d.perf("fma_loop", {2, 1, 1}, {256, 1, 1}, out, std::uint32_t{2000}), {}};
  r.json = kernel_json(r.run, d.gpu().arch());
  return r;
}

TEST(GpuPower, TensorEnergyIsTheInstructionEnergyPlusTheEnergyPerFlop) {
  // energy.tensor_flop 0.5 pJ; an mma.sync m16n8k16 is 2 x 16 x 8 x 16 = 4096 FLOP, so
  // the eight of them: 8 x 4096 = 32768 FLOP, 8 x 10 pJ + 32768 x 0.5 pJ = 16464 pJ.
  const ArchConfig arch = unit_arch_with("  tensor_flop: 0.5 pJ\n", "");
  PerfDevice d(mma_kernel(), arch);
  const std::uint64_t out = d.memory().allocate(4);
  const KernelRun r = d.perf("mma", {1, 1, 1}, {32, 1, 1}, out);
  EXPECT_EQ(d.download<float>(out, 1)[0], 16.0f);  // 16 products of 1 x 1
  EXPECT_EQ(r.total.unit_instructions[static_cast<std::size_t>(Unit::Tensor)], 8u);
  EXPECT_EQ(r.total.tensor_flops, 32768u);
  // The rest of the core energy: every other instruction at its unit's energy, and the SM
  // with resident warps at 1 W (1000 pJ per 1 GHz cycle).
  double other_pj = 0;
  const double per_unit_pj[] = {1, 2, 4, 3, 0, 5, 1, 1};  // int fp32 fp64 sfu (tensor) memory ...
  for (std::size_t u = 0; u < kUnits; ++u)
    if (u != static_cast<std::size_t>(Unit::Tensor))
      other_pj += per_unit_pj[u] * static_cast<double>(r.total.unit_instructions[u]);
  std::uint64_t active = 0;
  for (std::uint64_t a : r.total.sm_active_cycles) active += a;
  const Energy e = energy_of(r.total, arch, r.time_ps);
  EXPECT_NEAR(e.core, (16464 + other_pj + 1000 * static_cast<double>(active)) * 1e-12, 1e-16);
}

TEST(GpuPower, ProfileRejectsAMinimumClockAboveTheSmClock) {
  try {
    unit_arch_with("", "power:\n  tdp: 100 W\n  min_clock: 2 GHz\n");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("power.min_clock must be at most sm.clock"), std::string::npos) << what;
    EXPECT_NE(what.find("unit-power:"), std::string::npos) << what;  // where it was written
  }
}

TEST(GpuPower, ALimitAboveTheDemandChangesNothing) {
  // Uncapped the kernel draws about 10 W static + 2 W for two active SMs (below); a 1000 W
  // limit never lowers the clock, so the statistics are byte-identical to no limit at all.
  const FmaRun free = run_fma(unit_arch());
  const FmaRun limited = run_fma(unit_arch_with("", power_section("1000 W")));
  EXPECT_EQ(free.json.dump(), limited.json.dump());
  EXPECT_FALSE(limited.json.contains("sm_clock"));
}

TEST(GpuPower, ALowLimitStepsTheClockDownAndTheKernelTakesLonger) {
  const FmaRun free = run_fma(unit_arch());
  const double free_w = free.json["summary"]["average_power_w"].get<double>();
  // Static 10 W, two SMs with resident warps at 1 W each, instructions (at most one warp
  // instruction of at most 2 pJ per SM cycle) a few mW: 12.0 to 12.01 W.
  EXPECT_GT(free_w, 11.99);
  EXPECT_LT(free_w, 12.01);
  // Limit 11.5 W: the dynamic 2.0 W scales with the clock, 10 + 2.0 x f / 1 GHz <= 11.5 gives
  // f <= 0.749 GHz, so the highest 100 MHz step that fits is 700 MHz, reached after the first
  // 100 ns interval; there 10 + 2.0 x 0.7 = 11.4 W, and 800 MHz (11.6 W) would not fit, so the
  // clock stays.
  const FmaRun capped = run_fma(unit_arch_with("", power_section("11.5 W")));
  const nlohmann::json& clock = capped.json["sm_clock"];
  EXPECT_EQ(clock["throttle_events"].get<int>(), 1);
  EXPECT_EQ(clock["raise_events"].get<int>(), 0);
  ASSERT_EQ(capped.run.clock.size(), 2u);
  EXPECT_EQ(capped.run.clock[1].hz, Rational(700000000));
  EXPECT_NEAR(static_cast<double>(capped.run.clock[1].first_ps), 100e3, 2e3);  // ~100 ns
  EXPECT_EQ(clock["time_at_clock"][0]["clock_mhz"].get<double>(), 1000.0);
  EXPECT_EQ(clock["time_at_clock"][1]["clock_mhz"].get<double>(), 700.0);
  // The FP32 pipe sets the cycles, which hardly change; the time grows by 1 GHz / 0.7 GHz
  // (all but the first 100 ns of about 176 us run at 700 MHz).
  const double cycle_ratio =
      static_cast<double>(capped.run.cycles) / static_cast<double>(free.run.cycles);
  EXPECT_NEAR(cycle_ratio, 1.0, 0.005);
  const double time_ratio =
      static_cast<double>(capped.run.time_ps) / static_cast<double>(free.run.time_ps);
  EXPECT_NEAR(time_ratio, 1.0 / 0.7, 0.01);
  // The power now fits the limit: about 11.4 W.
  const double capped_w = capped.json["summary"]["average_power_w"].get<double>();
  EXPECT_LE(capped_w, 11.5);
  EXPECT_NEAR(capped_w, 11.4, 0.05);
  // The windows sample the clock: the last one runs at 700 MHz.
  const nlohmann::json& windows = capped.json["series"]["windows"];
  EXPECT_NEAR(windows.back()["clock_mhz"].get<double>(), 700.0, 1.0);
  // Same run, same bytes.
  EXPECT_EQ(capped.json.dump(), run_fma(unit_arch_with("", power_section("11.5 W"))).json.dump());
  // The report says so: 100 ns of about 252 us at 1000 MHz (0.0 %), the rest at 700 MHz.
  const ArchConfig arch = unit_arch_with("", power_section("11.5 W"));
  const std::string dir = ::testing::TempDir() + "/cnuas-gpu-power-report";
  std::filesystem::remove_all(dir);
  write_report(dir, {{&capped.run, &arch, "gpu0"}});
  std::ifstream in(dir + "/index.html");
  std::stringstream html;
  html << in.rdbuf();
  EXPECT_NE(html.str().find("<tr><th>SM clock (power capping)</th><td>1 throttle and 0 raise "
                            "events; 1000 MHz 0.0 %, 700 MHz 100.0 %</td></tr>"),
            std::string::npos)
      << html.str().substr(0, 3000);
}

}  // namespace
}  // namespace cnuas::gpu::testing
