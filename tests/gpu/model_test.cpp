// The GPU model as a whole: streaming bandwidth against the closed form of the
// DRAM timing, results identical to functional mode, accounting invariants,
// energy, determinism and the JSON statistics.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gpu/perf_json.h"
#include "gpu/perf_report.h"
#include "gpu/power_model.h"
#include "gpu_harness.h"
#include "kernels.h"

namespace cnuas::gpu::testing {
namespace {

struct StreamResult {
  KernelRun run;
  double bandwidth;  // bytes read from DRAM per second
  double peak;
};

StreamResult stream(const ArchConfig& arch, std::uint64_t n) {
  PerfDevice d(stream_kernel(), arch);
  std::vector<float> a(n, 1.5f);
  const std::uint64_t in = d.upload(a, 4096);
  const std::uint64_t out = d.memory().allocate(4);
  const KernelRun r =
      d.perf("stream", {static_cast<std::uint32_t>(n / 1024), 1, 1}, {256, 1, 1}, in, out, n / 4);
  const double seconds = static_cast<double>(r.time_ps) * 1e-12;
  const double peak = (arch.dram.channel_bytes_per_s * Rational(arch.dram.channels)).to_double();
  return {r, static_cast<double>(r.total.dram_reads * arch.dram.burst_bytes) / seconds, peak};
}

TEST(GpuModel, StreamingOverSixteenBanksReachesTheConfiguredBandwidth) {
  // Each CTA reads one 4 KiB row; the eight CTAs in flight read rows of
  // different banks, so activates hide behind other banks' bursts.
  ArchConfig arch = unit_arch();
  arch.dram.banks = 16;
  const StreamResult s = stream(arch, 1 << 20);
  EXPECT_EQ(s.run.total.dram_reads, (4u << 20) / 32);
  EXPECT_GT(s.bandwidth / s.peak, 0.90) << s.bandwidth / 1e9 << " GB/s";
  EXPECT_LE(s.bandwidth / s.peak, 1.0);
}

TEST(GpuModel, StreamingThroughOneBankPaysForEveryRowSwitch) {
  // One bank: each 4 KiB row (128 bursts of 1 ns) needs at least one activate,
  // and every switch idles the bus for tRP + tRCD, so the bandwidth cannot
  // exceed peak x 128 / (128 + 35); CTAs on different rows make it switch more.
  const ArchConfig arch = unit_arch();
  const StreamResult s = stream(arch, 1 << 20);
  const std::uint64_t rows = (4u << 20) / 4096;
  EXPECT_GE(s.run.total.dram_activates, rows);
  EXPECT_LE(s.bandwidth, s.peak * 128 / (128 + 35));
  ArchConfig sixteen = arch;
  sixteen.dram.banks = 16;
  EXPECT_LT(s.bandwidth, stream(sixteen, 1 << 20).bandwidth);
}

TEST(GpuModel, ResultsEqualFunctionalMode) {
  const std::uint32_t ctas = 12;
  std::vector<float> input(ctas * 256);
  for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i) * 0.25f - 7.0f;
  PerfDevice perf(reverse_kernel()), func(reverse_kernel());
  std::vector<float> results[2];
  std::uint32_t counts[2];
  PerfDevice* devices[2] = {&perf, &func};
  KernelRun run;
  ptx::LaunchStats stats;
  for (int k = 0; k < 2; ++k) {
    PerfDevice& d = *devices[k];
    const std::uint64_t in = d.upload(input);
    const std::uint64_t out = d.memory().allocate(input.size() * 4);
    const std::uint64_t counter = d.memory().allocate(4);
    if (k == 0)
      run = d.perf("reverse", {ctas, 1, 1}, {256, 1, 1}, in, out, counter);
    else
      stats = d.functional("reverse", {ctas, 1, 1}, {256, 1, 1}, in, out, counter);
    results[k] = d.download<float>(out, input.size());
    counts[k] = d.download<std::uint32_t>(counter, 1)[0];
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(counts[0], ctas * 256);
  EXPECT_EQ(counts[1], ctas * 256);
  for (std::uint32_t c = 0; c < ctas; ++c)  // and both are right
    EXPECT_EQ(results[0][c * 256 + 3], 2 * input[c * 256 + 252]);
  std::uint64_t warp_instructions = 0;
  for (std::uint64_t n : run.total.sm_instructions) warp_instructions += n;
  EXPECT_EQ(warp_instructions, stats.warp_instructions);
  EXPECT_EQ(run.total.thread_instructions, stats.thread_instructions);
  EXPECT_EQ(run.ctas, ctas);
}

TEST(GpuModel, EverySchedulerCycleIsAnIssueOrAStallWithAReason) {
  PerfDevice d(reverse_kernel());
  std::vector<float> input(8 * 256, 1.0f);
  const std::uint64_t in = d.upload(input);
  const std::uint64_t out = d.memory().allocate(input.size() * 4);
  const std::uint64_t counter = d.memory().allocate(4);
  const KernelRun r = d.perf("reverse", {8, 1, 1}, {256, 1, 1}, in, out, counter);
  const ArchConfig& arch = d.gpu().arch();
  std::uint64_t slots = 0;
  for (std::uint64_t n : r.total.issue) slots += n;
  for (std::uint64_t n : r.total.stalls) slots += n;
  EXPECT_EQ(slots, r.cycles * arch.sm.count * arch.sm.schedulers);
  // The same holds window by window, and the windows add up to the total.
  std::uint64_t window_slots = 0, window_instructions = 0;
  for (const Counters& c : r.windows) {
    for (std::uint64_t n : c.issue) window_slots += n;
    for (std::uint64_t n : c.stalls) window_slots += n;
    for (std::uint64_t n : c.sm_instructions) window_instructions += n;
  }
  EXPECT_EQ(window_slots, slots);
  std::uint64_t instructions = 0;
  for (std::uint64_t n : r.total.sm_instructions) instructions += n;
  EXPECT_EQ(window_instructions, instructions);
  // Barriers and memory show up among the reasons.
  EXPECT_GT(r.total.stalls[static_cast<std::size_t>(Stall::Barrier)], 0u);
  EXPECT_GT(r.total.stalls[static_cast<std::size_t>(Stall::Memory)], 0u);
}

TEST(GpuModel, EnergyIsTheSumOfEventsTimesTheirEnergiesPlusStaticPower) {
  const ArchConfig arch = unit_arch();
  Counters c;
  c.resize(arch.sm.count, arch.dram.channels, arch.dram.channels * arch.dram.banks);
  c.unit_instructions[static_cast<std::size_t>(Unit::Fp32)] = 1000;  // 2 pJ each
  c.l1_hits = 100;                                                   // 1 pJ
  c.l2_misses = 10;                                                  // 4 pJ
  c.noc_flits = 50;                                                  // 1 pJ
  c.dram_activates = 2;                                              // 100 pJ
  c.dram_reads = 4;                                                  // 50 pJ
  c.sm_active_cycles[0] = 1000;                                      // 1 W for 1 us
  const Energy e = energy_of(c, arch, 2'000'000);                    // 2 us at 10 W static
  EXPECT_NEAR(e.core, 2000e-12 + 1e-6, 1e-15);
  EXPECT_NEAR(e.l1, 100e-12, 1e-18);
  EXPECT_NEAR(e.l2, 40e-12, 1e-18);
  EXPECT_NEAR(e.noc, 50e-12, 1e-18);
  EXPECT_NEAR(e.dram, 400e-12, 1e-18);
  EXPECT_NEAR(e.idle, 20e-6, 1e-15);
}

TEST(GpuModel, TheSameKernelGivesByteIdenticalStatistics) {
  auto json = [] {
    PerfDevice d(reverse_kernel());
    std::vector<float> input(16 * 256, 2.0f);
    const std::uint64_t in = d.upload(input);
    const std::uint64_t out = d.memory().allocate(input.size() * 4);
    const std::uint64_t counter = d.memory().allocate(4);
    return kernel_json(d.perf("reverse", {16, 1, 1}, {256, 1, 1}, in, out, counter), d.gpu().arch())
        .dump();
  };
  EXPECT_EQ(json(), json());
}

TEST(GpuModel, StatisticsJsonCarriesTheDerivedFigures) {
  PerfDevice d(stream_kernel());
  std::vector<float> a(64 * 256, 1.0f);
  const std::uint64_t in = d.upload(a, 4096);
  const std::uint64_t out = d.memory().allocate(4);
  const std::uint64_t n = a.size() / 4;
  const KernelRun r = d.perf("stream", {16, 1, 1}, {256, 1, 1}, in, out, n);
  const nlohmann::json j = kernel_json(r, d.gpu().arch());
  const nlohmann::json& s = j["summary"];
  EXPECT_EQ(s["cycles"], r.cycles);
  EXPECT_DOUBLE_EQ(s["ipc"].get<double>(),
                   static_cast<double>(s["warp_instructions"].get<std::uint64_t>()) / r.cycles);
  // 16 CTAs x 8 warps each read four 128-byte lines: 16 sectors, all L1 misses.
  EXPECT_EQ(s["l1"]["misses"], 16u * 8 * 16);
  EXPECT_EQ(s["l1"]["hits"], 0u);
  EXPECT_EQ(s["dram"]["read_bursts"], 16u * 8 * 16);
  EXPECT_EQ(j["sm_ipc"].size(), 2u);
  EXPECT_EQ(j["dram_banks"].size(), 1u);
  EXPECT_EQ(j["series"]["windows"].size(), (r.cycles + 999) / 1000);
  double energy = 0;
  for (const char* k : {"core", "l1", "l2", "noc", "dram", "idle"})
    energy += s["energy_j"][k].get<double>();
  EXPECT_NEAR(energy, s["energy_j"]["total"].get<double>(), 1e-15);
}

}  // namespace
}  // namespace cnuas::gpu::testing

namespace cnuas::gpu::testing {
namespace {

TEST(GpuReport, WritesAnHtmlPageAndOneSvgPerChart) {
  PerfDevice d(reverse_kernel(), unit_arch(), 200);
  std::vector<float> input(8 * 256, 1.0f);
  const std::uint64_t in = d.upload(input);
  const std::uint64_t out = d.memory().allocate(input.size() * 4);
  const std::uint64_t counter = d.memory().allocate(4);
  const KernelRun r = d.perf("reverse", {8, 1, 1}, {256, 1, 1}, in, out, counter);
  const std::string dir = ::testing::TempDir() + "/cnuas-gpu-report";
  std::filesystem::remove_all(dir);
  write_report(dir, {{&r, &d.gpu().arch(), "gpu"}});
  std::ifstream page(dir + "/index.html");
  const std::string html((std::istreambuf_iterator<char>(page)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("reverse on gpu (unit-1ghz)"), std::string::npos);
  int charts = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".svg") continue;
    ++charts;
    std::ifstream f(e.path());
    const std::string svg((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_EQ(svg.rfind("<svg ", 0), 0u) << e.path();
    EXPECT_NE(svg.find("</svg>"), std::string::npos) << e.path();
    EXPECT_NE(html.find(e.path().filename().string()), std::string::npos);
  }
  EXPECT_EQ(charts, 7);  // six charts over time and the per-bank DRAM picture
}

}  // namespace
}  // namespace cnuas::gpu::testing

namespace cnuas::gpu::testing {
namespace {

TEST(GpuTimeSeries, WindowsAddUpToTheKernelTotals) {
  // Short windows: DRAM bursts and NoC transfers are booked into windows ahead
  // of the SMs' cycle while an SM holds its current window.
  PerfDevice d(stream_kernel(), unit_arch(), 7);
  std::vector<float> a(64 * 1024, 1.0f);
  const std::uint64_t in = d.upload(a, 4096);
  const std::uint64_t out = d.memory().allocate(4);
  const std::uint64_t n = a.size() / 4;
  const KernelRun r = d.perf("stream", {64, 1, 1}, {256, 1, 1}, in, out, n);
  Counters sum;
  sum.resize(2, 1, 1);
  for (const Counters& w : r.windows) sum.add(w);
  EXPECT_GE(r.windows.size(), r.cycles / 7);
  EXPECT_EQ(sum.l1_misses, r.total.l1_misses);
  EXPECT_EQ(sum.l2_misses, r.total.l2_misses);
  EXPECT_EQ(sum.dram_reads, r.total.dram_reads);
  EXPECT_EQ(sum.noc_flits, r.total.noc_flits);
  EXPECT_EQ(sum.noc_busy_ps, r.total.noc_busy_ps);
  EXPECT_EQ(sum.bank_data_ps, r.total.bank_data_ps);
  EXPECT_EQ(sum.bank_active_ps, r.total.bank_active_ps);
  EXPECT_EQ(sum.channel_active_ps, r.total.channel_active_ps);
  EXPECT_EQ(sum.sm_instructions, r.total.sm_instructions);
  EXPECT_EQ(sum.stalls, r.total.stalls);
}

}  // namespace
}  // namespace cnuas::gpu::testing

namespace cnuas::gpu::testing {
namespace {

TEST(GpuModel, AFaultNamesTheKernelAndPtxLineAndStopsTheModel) {
  PerfDevice d(ptx_module(R"(
.visible .entry oob(.param .u64 p)
{
  .reg .u64 %rd<3>;
  .reg .u32 %r<2>;
  ld.param.u64 %rd1, [p];
  add.u64 %rd2, %rd1, 1048576;
  ld.global.u32 %r1, [%rd2];
  ret;
}
)"));
  const std::uint64_t buf = d.memory().allocate(64);
  try {
    d.perf("oob", {2, 1, 1}, {32, 1, 1}, buf);
    FAIL() << "no fault";
  } catch (const ptx::ExecutionError& e) {
    EXPECT_EQ(e.kernel, "oob");
    EXPECT_EQ(e.line, 11u);  // the ld.global, counting the module header
    EXPECT_NE(std::string(e.what()).find("outside any allocation"), std::string::npos) << e.what();
  }
  EXPECT_THROW(d.perf("oob", {1, 1, 1}, {32, 1, 1}, buf), std::logic_error);
}

TEST(GpuModel, ACtaLargerThanAnSmIsRefusedWithWhatTheSmHas) {
  ArchConfig small = unit_arch();
  small.sm.max_warps = 16;
  PerfDevice d(reverse_kernel(), small);
  const std::uint64_t buf = d.memory().allocate(4096);
  try {
    d.perf("reverse", {1, 1, 1}, {1024, 1, 1}, buf, buf, buf);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "kernel 'reverse': one CTA needs 32 warps, 32768 registers and 1024 bytes of shared "
              "memory; an SM of unit-1ghz has 16, 65536 and 65536");
  }
}

}  // namespace
}  // namespace cnuas::gpu::testing
