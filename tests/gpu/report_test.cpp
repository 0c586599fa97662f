// The GPU report's pictures: geometry and ticks worked out by hand, per-channel
// DRAM aggregation, demangled names, launch configurations, the comparison
// table, the size budget, and the automatic sampling interval.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "gpu/kernel_names.h"
#include "gpu/perf_report.h"
#include "gpu/svg_charts.h"
#include "gpu_harness.h"
#include "kernels.h"

namespace cnuas::gpu::testing {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// Plot: x from 80 to 1300 - 190 = 1110 (1030 px), y from 34 to 320 - 44 = 276 (242 px).
TEST(GpuCharts, TheLastPartialSampleKeepsItsRealWidth) {
  // Three samples of 2, 2 and 1 us: 5 us over 1030 px, so the full ones are
  // 412 px wide and the short last one 206 px, from x = 80, 492 and 904.
  const std::string svg = heatmap_svg("t", "row", {{0.0, 0.5, 1.0}}, {2, 2, 1});
  EXPECT_NE(svg.find("M80 0h412v1h-412z"), std::string::npos) << svg;
  EXPECT_NE(svg.find("M492 0h412v1h-412z"), std::string::npos) << svg;
  EXPECT_NE(svg.find("M904 0h206v1h-206z"), std::string::npos) << svg;
  // The same in a stacked chart: the band's top edge ends at 904 + 206 = 1110.
  const std::string stacked = stacked_svg("t", "y", {{"a", "#000", {1, 1, 1}}}, {2, 2, 1});
  EXPECT_NE(stacked.find("H492V"), std::string::npos) << stacked;
  EXPECT_NE(stacked.find("H904V"), std::string::npos) << stacked;
  EXPECT_NE(stacked.find("H1110V"), std::string::npos) << stacked;
}

TEST(GpuCharts, AxesUseNiceTicksAndTheFullPageWidth) {
  // Stacked values peaking at 1.2 + 0.69 = 1.89: 1.89 / 5 = 0.378, step 0.5,
  // y ticks 0, 0.5, 1, 1.5, 2 (never 1.89); 2 maps to the top of the plot (y 34).
  const std::string svg = stacked_svg(
      "t", "IPC", {{"a", "#111", {1.2, 0.3, 0.1}}, {"b", "#222", {0.69, 0.2, 0.1}}}, {2, 2, 1});
  for (const char* label : {">0<", ">0.5<", ">1<", ">1.5<", ">2<"})
    EXPECT_NE(svg.find(label), std::string::npos) << label;
  EXPECT_EQ(svg.find("1.89"), std::string::npos);
  EXPECT_NE(svg.find("y1=\"34\" x2=\"1110\" y2=\"34\""), std::string::npos) << svg;
  // Time: 5 us, 5 / 10 = 0.5 per tick; 2.5 us sits half way, at x = 80 + 515 = 595.
  EXPECT_NE(svg.find("<text x=\"595\" y=\"293\" text-anchor=\"middle\">2.5</text>"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("viewBox=\"0 0 1300 320\""), std::string::npos);
}

TEST(GpuReport, ChannelEfficiencyAddsTheBanksOfEachChannel) {
  // Two channels of two banks: channel 0 moved data 10 + 20 ps out of 40 + 40
  // busy, 30 / 80 = 0.375; channel 1 was never busy.
  Counters c;
  c.resize(1, 2, 4);
  c.bank_data_ps = {10, 20, 0, 0};
  c.bank_active_ps = {40, 40, 0, 0};
  EXPECT_EQ(channel_efficiency(c, 2, 2), (std::vector<double>{0.375, -1.0}));
}

TEST(KernelNames, MangledCppNamesAreDemangled) {
  // _Z 6vecAdd, PKf = float const*, S0_ = the second substitution (float const*),
  // Pf = float*, i = int.
  EXPECT_EQ(demangled("_Z6vecAddPKfS0_Pfi"), "vecAdd(float const*, float const*, float*, int)");
  EXPECT_EQ(demangled("reverse"), "reverse");          // extern "C"
  EXPECT_EQ(demangled("_Znot-valid"), "_Znot-valid");  // kept when it does not parse
}

// The stream kernel under a C++ name: stream(float const*, float*, unsigned long).
std::string mangled_stream_kernel() {
  return std::regex_replace(stream_kernel(), std::regex("entry stream\\("),
                            "entry _Z6streamPKfPfm(");
}

TEST(GpuReport, AnH100ReportAggregatesChannelsComparesKernelsAndStaysSmall) {
  PerfDevice d(mangled_stream_kernel(), load_arch("h100-sxm"), 0);
  std::vector<float> a(264 * 256 * 4, 1.0f);
  const std::uint64_t in = d.upload(a, 4096);
  const std::uint64_t out = d.memory().allocate(4);
  const std::uint64_t n = a.size() / 4;
  const KernelRun big = d.perf("_Z6streamPKfPfm", {264, 1, 1}, {256, 1, 1}, in, out, n);
  const KernelRun small = d.perf("_Z6streamPKfPfm", {8, 1, 1}, {128, 1, 1}, in, out, n);
  const std::string dir = ::testing::TempDir() + "/cnuas-gpu-report-h100";
  std::filesystem::remove_all(dir);
  write_report(dir, {{&big, &d.gpu().arch(), "gpu0"}, {&small, &d.gpu().arch(), "gpu0"}});
  const std::string html = slurp(dir + "/index.html");
  EXPECT_NE(html.find("1. stream(float const*, float*, unsigned long) on gpu0"), std::string::npos);
  EXPECT_NE(html.find("<code>_Z6streamPKfPfm</code>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>grid</th><td>(264, 1, 1)</td>"), std::string::npos);
  EXPECT_NE(html.find("<tr><th>block</th><td>(128, 1, 1)</td>"), std::string::npos);
  // One comparison row per kernel, linking to its section.
  EXPECT_NE(html.find("Kernels compared"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"#k1\">"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"#k2\">"), std::string::npos);
  // 80 channels of 32 banks: the time heat map has a row per channel
  // (242 px / 80 = 3.025 px each), the 2,560 banks go to a picture on demand.
  const std::string channels = slurp(dir + "/k01-_Z6streamPKfPfm-dram-efficiency.svg");
  EXPECT_NE(channels.find("scale(1 3.025)"), std::string::npos);
  EXPECT_NE(channels.find("channel (0 to 79)"), std::string::npos);
  const std::string banks = slurp(dir + "/k01-_Z6streamPKfPfm-dram-banks.svg");
  EXPECT_NE(banks.find("bank in the channel (0 to 31)"), std::string::npos);
  EXPECT_NE(html.find("<details><summary>DRAM efficiency per bank (2560 banks)</summary><img "
                      "src=\"k01-_Z6streamPKfPfm-dram-banks.svg\""),
            std::string::npos);
  // Budget: the whole report of these two kernels under 500 KB.
  std::uintmax_t bytes = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) bytes += e.file_size();
  EXPECT_LT(bytes, 500u * 1024) << "report of " << bytes << " bytes";
}

TEST(GpuSampling, TheAutomaticIntervalGivesAFewHundredSamplesThatAddUp) {
  PerfDevice d(stream_kernel(), unit_arch(), 0);
  std::vector<float> a(64 * 1024, 1.0f);
  const std::uint64_t in = d.upload(a, 4096);
  const std::uint64_t out = d.memory().allocate(4);
  const KernelRun r = d.perf("stream", {64, 1, 1}, {256, 1, 1}, in, out, a.size() / 4);
  // Intervals are 8 x 2^k; a kernel over 8 x 512 cycles ends with 257 to 512 samples.
  ASSERT_GT(r.cycles, 8u * 512) << "the kernel is too short to test the merging";
  EXPECT_EQ(r.sample_cycles & (r.sample_cycles - 1), 0u);
  EXPECT_GE(r.sample_cycles, 8u);
  const std::uint64_t samples = (r.cycles + r.sample_cycles - 1) / r.sample_cycles;
  EXPECT_GT(samples, 256u);
  EXPECT_LE(samples, 512u);
  Counters sum;
  sum.resize(2, 1, 1);
  for (const Counters& w : r.windows) sum.add(w);
  EXPECT_EQ(sum.dram_reads, r.total.dram_reads);
  EXPECT_EQ(sum.bank_active_ps, r.total.bank_active_ps);
  EXPECT_EQ(sum.sm_instructions, r.total.sm_instructions);
  EXPECT_EQ(sum.stalls, r.total.stalls);
}

}  // namespace
}  // namespace cnuas::gpu::testing
