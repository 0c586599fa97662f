#include "calibration/plots.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace cnuas::calibration {

std::string scatter_svg(const std::string& title, const std::string& x_label,
                        const std::string& y_label, const std::vector<Series>& series,
                        bool diagonal, bool zero_line) {
  const double width = 640, height = 480, left = 80, right = 20, top = 40, bottom = 60;
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (const auto& s : series)
    for (const auto& p : s.points) {
      x0 = std::min(x0, p.x), x1 = std::max(x1, p.x), y0 = std::min(y0, p.y),
      y1 = std::max(y1, p.y);
    }
  if (!std::isfinite(x0)) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  if (diagonal) x0 = y0 = std::min(x0, y0), x1 = y1 = std::max(x1, y1);
  if (zero_line) y0 = std::min(y0, 0.0), y1 = std::max(y1, 0.0);
  if (x1 == x0) x1 = x0 + 1;
  if (y1 == y0) y1 = y0 + 1;
  const double pad_x = (x1 - x0) * 0.05, pad_y = (y1 - y0) * 0.05;
  x0 -= pad_x, x1 += pad_x, y0 -= pad_y, y1 += pad_y;
  auto px = [&](double x) { return left + (x - x0) / (x1 - x0) * (width - left - right); };
  auto py = [&](double y) {
    return height - bottom - (y - y0) / (y1 - y0) * (height - top - bottom);
  };
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-family=\"sans-serif\" "
      "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"24\" font-size=\"15\">{}</text>\n",
      width, height, left, title);
  svg += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>\n", left,
      top, width - left - right, height - top - bottom);
  for (int i = 0; i <= 4; ++i) {
    const double xv = x0 + (x1 - x0) * i / 4, yv = y0 + (y1 - y0) * i / 4;
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{:.4g}</text>\n", px(xv),
                       height - bottom + 16, xv);
    svg += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:.4g}</text>\n", left - 6,
                       py(yv) + 4, yv);
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     (left + width - right) / 2, height - 18, x_label);
  svg += fmt::format(
      "<text x=\"18\" y=\"{}\" transform=\"rotate(-90 18 {})\" text-anchor=\"middle\">{}</text>\n",
      (top + height - bottom) / 2, (top + height - bottom) / 2, y_label);
  if (diagonal)
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#444\" "
        "stroke-dasharray=\"4 3\"/>\n",
        px(x0), py(x0), px(x1), py(x1));
  if (zero_line)
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#444\" "
        "stroke-dasharray=\"4 3\"/>\n",
        px(x0), py(0), px(x1), py(0));
  int legend = 0;
  for (const auto& s : series) {
    for (const auto& p : s.points)
      svg += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\" fill-opacity=\"0.75\"/>\n",
          px(p.x), py(p.y), s.colour);
    svg += fmt::format(
        "<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}</text>\n",
        left + 12, top + 14 + 16 * legend, s.colour, left + 22, top + 18 + 16 * legend, s.label);
    ++legend;
  }
  return svg + "</svg>\n";
}

}  // namespace cnuas::calibration
