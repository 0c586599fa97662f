// SVG pictures of a calibration: predicted against measured (training and
// held-out points, with the y = x line), and held-out residuals against the
// analytic time.
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

// A scatter plot in microseconds; `diagonal` draws y = x, `zero_line` y = 0.
std::string scatter_svg(const std::string& title, const std::string& x_label,
                        const std::string& y_label, const std::vector<Series>& series,
                        bool diagonal, bool zero_line);

}  // namespace cnuas::calibration
