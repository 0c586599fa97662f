// Axis ticks and the calibration scatter plots: values worked out by hand.
#include <gtest/gtest.h>

#include <regex>

#include "calibration/plots.h"
#include "core/outputs/axis_ticks.h"

namespace cnuas {
namespace {

std::vector<std::string> labels(const AxisTicks& t) {
  std::vector<std::string> out;
  for (double v : t.values) out.push_back(tick_label(v));
  return out;
}

TEST(AxisTicks, LinearStepsAreOneTwoTwoAndAHalfOrFiveTimesAPowerOfTen) {
  // 1.89 / 5 = 0.378: the next nice step is 0.5, the axis ends on 2.
  EXPECT_EQ(labels(linear_ticks(0, 1.89, 5)),
            (std::vector<std::string>{"0", "0.5", "1", "1.5", "2"}));
  // 0.505 / 5 = 0.101: step 0.2, the axis ends on 0.6.
  EXPECT_EQ(labels(linear_ticks(0, 0.505, 5)),
            (std::vector<std::string>{"0", "0.2", "0.4", "0.6"}));
  // 11 / 5 = 2.2: step 2.5, the axis ends on 12.5.
  EXPECT_EQ(labels(linear_ticks(0, 11, 5)),
            (std::vector<std::string>{"0", "2.5", "5", "7.5", "10", "12.5"}));
  // 0.3 / 3 = 0.1 exactly: step 0.1, and 3 x 0.1 prints as 0.3.
  EXPECT_EQ(labels(linear_ticks(0, 0.3, 3)), (std::vector<std::string>{"0", "0.1", "0.2", "0.3"}));
  // A range not starting at 0: (-3, 17) / 4 = 5 exactly, ticks from -5 to 20.
  const AxisTicks t = linear_ticks(-3, 17, 4);
  EXPECT_EQ(labels(t), (std::vector<std::string>{"-5", "0", "5", "10", "15", "20"}));
  EXPECT_EQ(t.lo, -5);
  EXPECT_EQ(t.hi, 20);
}

TEST(AxisTicks, LogAxesEndOnDecadesWithTwoAndFiveBetweenOnShortRanges) {
  EXPECT_EQ(labels(log_ticks(3, 4500)),
            (std::vector<std::string>{"1", "10", "100", "1000", "10000"}));
  // 0.7 to 40 lies in 0.1 to 100: three decades, no ticks between.
  EXPECT_EQ(labels(log_ticks(0.7, 40)), (std::vector<std::string>{"0.1", "1", "10", "100"}));
  // 3 to 40 lies in 1 to 100: two decades, with 2 and 5 of each.
  EXPECT_EQ(labels(log_ticks(3, 40)),
            (std::vector<std::string>{"1", "2", "5", "10", "20", "50", "100"}));
}

// The x positions of the labelled x ticks, by label.
std::map<std::string, double> x_ticks(const std::string& svg) {
  std::map<std::string, double> out;
  const std::regex tick("class=\"x-tick\" x=\"([0-9.]+)\"[^>]*>([^<]+)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tick); it != std::sregex_iterator();
       ++it)
    out[(*it)[2]] = std::stod((*it)[1]);
  return out;
}

TEST(CalibrationPlots, SizeSweepsGetLogAxesOnDecades) {
  using namespace calibration;
  // 1 us to 1000 us: three decades, so a log axis with ticks 1, 10, 100, 1000;
  // 10 sits a third of the way along the 520 px plot (760 - 80 - 160).
  const std::string svg = scatter_svg(
      "t", {"measured (us)"}, {"predicted (us)"},
      {{"held-out", "#d62728", {{1, 1}, {10, 11}, {100, 98}, {1000, 1000}}}}, true, false);
  const auto ticks = x_ticks(svg);
  ASSERT_EQ(ticks.size(), 4u) << svg;
  EXPECT_NEAR(ticks.at("1"), 80, 0.05);
  EXPECT_NEAR(ticks.at("10"), 80 + 520.0 / 3, 0.05);
  EXPECT_NEAR(ticks.at("1000"), 600, 0.05);
  EXPECT_NE(svg.find("measured (us), log scale"), std::string::npos);
}

TEST(CalibrationPlots, NarrowRangesStayLinearOnNiceTicksAndTheLegendSitsRightOfThePlot) {
  using namespace calibration;
  // x from 0.2 to 1.89: 1.89 / 0.2 < 20, linear; (1.89 - 0.2) / 6 = 0.28: step 0.5, 0 to 2.
  const std::string svg =
      scatter_svg("t", {"analytic (us)"}, {"residual (us)", Scale::Linear},
                  {{"held-out", "#d62728", {{0.2, -0.1}, {1.0, 0.05}, {1.89, 0.02}}}}, false, true);
  const auto ticks = x_ticks(svg);
  EXPECT_EQ(ticks.size(), 5u) << svg;
  for (const char* label : {"0", "0.5", "1", "1.5", "2"}) EXPECT_TRUE(ticks.count(label)) << label;
  EXPECT_EQ(svg.find("log scale"), std::string::npos);
  // The legend marker is right of the plot's right edge (760 - 160 = 600).
  const std::regex legend("class=\"legend\"><circle cx=\"([0-9.]+)\"");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, legend)) << svg;
  EXPECT_GT(std::stod(m[1]), 600);
}

}  // namespace
}  // namespace cnuas
