// Every picture Cnuas draws, rendered by headless Chromium: the GPU report
// page and its SVGs, and the calibration plots. Each must load, be drawn at
// its declared size with real content (not just a white page) and stay small.
// Skipped, saying why, where Chromium is not installed.
#include <gtest/gtest.h>

#include <filesystem>

#include "browser.h"
#include "calibration/plots.h"
#include "gpu/perf_report.h"
#include "gpu_harness.h"
#include "kernels.h"

namespace cnuas::gpu::testing {
namespace {

using testing_support::chromium_binary;
using testing_support::render_in_browser;

TEST(PicturesInABrowser, GpuReportAndCalibrationPlotsRenderWithContent) {
  if (chromium_binary().empty())
    GTEST_SKIP() << "chromium is not installed (scripts/install-deps.sh installs it)";
  const std::string dir = ::testing::TempDir() + "/cnuas-pictures";
  std::filesystem::remove_all(dir);
  PerfDevice d(reverse_kernel(), unit_arch(), 0);
  std::vector<float> input(8 * 256, 1.0f);
  const std::uint64_t in = d.upload(input);
  const std::uint64_t out = d.memory().allocate(input.size() * 4);
  const std::uint64_t counter = d.memory().allocate(4);
  const KernelRun r = d.perf("reverse", {8, 1, 1}, {256, 1, 1}, in, out, counter);
  write_report(dir, {{&r, &d.gpu().arch(), "gpu"}});
  using calibration::Scale;
  std::ofstream(dir + "/fit.svg") << calibration::scatter_svg(
      "fit", {"measured (us)"}, {"predicted (us)"},
      {{"held-out", "#d62728", {{1, 1.1}, {10, 9.5}, {100, 104}, {1000, 990}}}}, true, false);
  std::ofstream(dir + "/relative.svg") << calibration::scatter_svg(
      "relative", {"analytic (us)"}, {"relative residual (%)", Scale::Linear},
      {{"held-out", "#d62728", {{1, 2.5}, {10, -1}, {100, 0.5}, {1000, -0.2}}}}, false, true);

  std::vector<std::string> svgs;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".svg") svgs.push_back(e.path().filename().string());
  ASSERT_EQ(svgs.size(), 9u);  // 7 report pictures and 2 calibration plots
  const auto rendering = render_in_browser(dir, svgs, "index.html");
  ASSERT_EQ(rendering.pictures.size(), svgs.size()) << rendering.output;
  for (const std::string& name : svgs) {
    const auto& pic = rendering.pictures.at(name);
    const bool gpu = name.rfind("k01-", 0) == 0;
    // Drawn at the size it declares: 1300 x 320 report charts, 760 x 480 plots.
    EXPECT_EQ(pic.width, gpu ? 1300 : 760) << name;
    EXPECT_EQ(pic.height, gpu ? 320 : 480) << name;
    // Content beyond the axes and labels: at least 2 % of the pixels inked
    // (a chart's axes and text alone ink well under 1 %).
    EXPECT_GT(pic.ink, pic.width * pic.height / 50) << name;
    EXPECT_LT(std::filesystem::file_size(dir + "/" + name), 200u * 1024) << name;
  }
  // The page: every picture loads and is drawn near the page's width (charts
  // of 1300 px in a 1400 px frame: 1300 px, or the frame less its margins).
  EXPECT_EQ(rendering.page.images, 7);
  EXPECT_EQ(rendering.page.loaded,
            7);  // the per-bank one too (lazy: the browser may fetch it early)
  EXPECT_GE(rendering.page.narrowest_image, 1200);
  EXPECT_EQ(rendering.page.details, 1);
  EXPECT_LT(std::filesystem::file_size(dir + "/index.html"), 50u * 1024);
}

}  // namespace
}  // namespace cnuas::gpu::testing
