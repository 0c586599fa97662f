#include "calibration/plots.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/outputs/axis_ticks.h"
#include "core/outputs/xml_text.h"

namespace cnuas::calibration {

namespace {

// One axis: its ticks and the map from a value to a fraction of the plot.
struct Mapped {
  bool log = false;
  AxisTicks ticks;
  double fraction(double v) const {
    if (log)
      return (std::log10(v) - std::log10(ticks.lo)) / (std::log10(ticks.hi) - std::log10(ticks.lo));
    return (v - ticks.lo) / (ticks.hi - ticks.lo);
  }
};

Mapped map_axis(Scale scale, double lo, double hi) {
  Mapped m;
  const bool positive = lo > 0;
  m.log = scale == Scale::Log ? positive : scale == Scale::Auto && positive && hi >= kLogSpan * lo;
  m.ticks = m.log ? log_ticks(lo, hi) : linear_ticks(lo, hi, 6);
  return m;
}

}  // namespace

std::string scatter_svg(const std::string& title, const Axis& x_axis, const Axis& y_axis,
                        const std::vector<Series>& series, bool diagonal, bool zero_line) {
  const double width = kPlotWidth, height = kPlotHeight, left = kPlotLeft, right = kPlotRight,
               top = kPlotTop, bottom = kPlotBottom;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (const auto& s : series)
    for (const auto& p : s.points) {
      x0 = std::min(x0, p.x), x1 = std::max(x1, p.x), y0 = std::min(y0, p.y),
      y1 = std::max(y1, p.y);
    }
  if (!std::isfinite(x0)) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  if (diagonal) x0 = y0 = std::min(x0, y0), x1 = y1 = std::max(x1, y1);
  if (zero_line) y0 = std::min(y0, 0.0), y1 = std::max(y1, 0.0);
  Mapped mx = map_axis(x_axis.scale, x0, x1), my = map_axis(y_axis.scale, y0, y1);
  if (diagonal && mx.log == my.log) my = mx;  // the same scale both ways keeps y = x at 45 degrees
  auto px = [&](double v) { return left + mx.fraction(v) * plot_w; };
  auto py = [&](double v) { return height - bottom - my.fraction(v) * plot_h; };
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" "
      "fill=\"white\"/>\n<text x=\"{2}\" y=\"24\" font-size=\"15\">{3}</text>\n",
      width, height, left, xml_escape(title));
  for (double v : mx.ticks.values)
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#e4e4e4\"/><text "
        "class=\"x-tick\" x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
        px(v), top, height - bottom, height - bottom + 16, tick_label(v));
  for (double v : my.ticks.values)
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#e4e4e4\"/><text "
        "class=\"y-tick\" x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
        left, py(v), width - right, left - 6, py(v) + 4, tick_label(v));
  svg += fmt::format(
      "<rect class=\"frame\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
      "stroke=\"#888\"/>\n",
      left, top, plot_w, plot_h);
  svg +=
      fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}{}</text>\n", left + plot_w / 2,
                  height - 18, xml_escape(x_axis.label), mx.log ? ", log scale" : "");
  svg += fmt::format(
      "<text x=\"18\" y=\"{0}\" transform=\"rotate(-90 18 {0})\" "
      "text-anchor=\"middle\">{1}{2}</text>\n",
      top + plot_h / 2, xml_escape(y_axis.label), my.log ? ", log scale" : "");
  if (diagonal)
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#444\" "
        "stroke-dasharray=\"4 3\"/>\n",
        px(mx.ticks.lo), py(mx.ticks.lo), px(mx.ticks.hi), py(mx.ticks.hi));
  if (zero_line && !my.log)
    svg += fmt::format(
        "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#444\" "
        "stroke-dasharray=\"4 3\"/>\n",
        left, py(0), width - right, py(0));
  int legend = 0;
  for (const auto& s : series) {
    for (const auto& p : s.points)
      svg += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\" fill-opacity=\"0.75\"/>\n",
          px(p.x), py(p.y), s.colour);
    const double lx = width - right + 16, ly = top + 10 + 18 * legend;
    svg += fmt::format(
        "<g class=\"legend\"><circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"{}\"/><text x=\"{}\" "
        "y=\"{}\">{}</text></g>\n",
        lx, ly, s.colour, lx + 10, ly + 4, xml_escape(s.label));
    ++legend;
  }
  return svg + "</svg>\n";
}

}  // namespace cnuas::calibration
