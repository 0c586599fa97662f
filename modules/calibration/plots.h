// SVG pictures of a calibration: predicted against measured (training and
// held-out points, with the y = x line), and held-out residuals, absolute and
// relative (the adequacy test judges the relative ones), against the analytic
// time. Axes of values spanning a size sweep are logarithmic; ticks fall on
// 1, 2, 2.5, 5 x 10^k (decades on log axes); the legend sits right of the plot.
#pragma once

#include <string>
#include <vector>

namespace cnuas::calibration {

struct Point {
  double x, y;
};

struct Series {
  std::string label;
  std::string colour;
  std::vector<Point> points;
};

enum class Scale {
  Linear,
  Log,
  Auto,  // log when every value is > 0 and the largest is kLogSpan times the smallest or more
};
constexpr double kLogSpan = 20;

struct Axis {
  std::string label;
  Scale scale = Scale::Auto;
};

// The plot area in the picture's coordinates (tests and the legend use it).
constexpr double kPlotWidth = 760, kPlotHeight = 480, kPlotLeft = 80, kPlotRight = 160,
                 kPlotTop = 40, kPlotBottom = 60;

// A scatter plot; `diagonal` draws y = x, `zero_line` y = 0.
std::string scatter_svg(const std::string& title, const Axis& x, const Axis& y,
                        const std::vector<Series>& series, bool diagonal, bool zero_line);

}  // namespace cnuas::calibration
