#include "gpu/svg_charts.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/outputs/axis_ticks.h"
#include "core/outputs/xml_text.h"

namespace cnuas::gpu {

namespace {

constexpr int kTop = 34, kBottom = 44;
constexpr double kPlotW = kChartWidth - kPlotLeft - kPlotRight;
constexpr double kPlotH = kChartHeight - kTop - kBottom;
constexpr int kLevels = 11;  // heat map colours: 0.0, 0.1, ... 1.0

// A coordinate with one decimal, without a trailing ".0" (files stay small).
std::string num(double v) {
  std::string s = fmt::format("{:.1f}", v);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  if (s == "-0") s = "0";
  return s;
}

std::string header(const std::string& title) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" preserveAspectRatio=\"xMinYMin meet\" font-family=\"sans-serif\" "
      "font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{2}\" "
      "y=\"20\" font-size=\"14\">{3}</text>\n",
      kChartWidth, kChartHeight, kPlotLeft, xml_escape(title));
}

// Left edge of each column and the right edge of the last, in px.
std::vector<double> column_edges(const std::vector<double>& column_us) {
  const double total = std::accumulate(column_us.begin(), column_us.end(), 0.0);
  std::vector<double> x{static_cast<double>(kPlotLeft)};
  double t = 0;
  for (double d : column_us) {
    t += d;
    x.push_back(kPlotLeft + (total > 0 ? t / total * kPlotW : 0));
  }
  return x;
}

// Microseconds under the plot, on nice ticks up to the end of the last column.
std::string time_axis(const std::vector<double>& column_us) {
  const double total = std::accumulate(column_us.begin(), column_us.end(), 0.0);
  std::string s =
      fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n", kPlotLeft,
                  kChartHeight - kBottom, num(kPlotLeft + kPlotW), kChartHeight - kBottom);
  if (total > 0)
    for (double v : linear_ticks(0, total, 10).values) {
      if (v > total * (1 + 1e-9)) break;
      const double x = kPlotLeft + v / total * kPlotW;
      s += fmt::format(
          "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"black\"/><text x=\"{0}\" "
          "y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
          num(x), kChartHeight - kBottom, kChartHeight - kBottom + 4, kChartHeight - kBottom + 17,
          tick_label(v));
    }
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">time (us)</text>\n",
                   num(kPlotLeft + kPlotW / 2), kChartHeight - 6);
  return s;
}

std::string y_title(const std::string& label) {
  return fmt::format(
      "<text x=\"16\" y=\"{0}\" transform=\"rotate(-90 16 {0})\" "
      "text-anchor=\"middle\">{1}</text>\n",
      num(kTop + kPlotH / 2), xml_escape(label));
}

// Blue (0) to yellow (1); level -1 is "no data".
std::string colour_of_level(int level) {
  if (level < 0) return "#dddddd";
  const double v = static_cast<double>(level) / (kLevels - 1);
  const int r = static_cast<int>(40 + 215 * v), g = static_cast<int>(40 + 180 * v),
            b = static_cast<int>(160 - 130 * v);
  return fmt::format("#{:02x}{:02x}{:02x}", r, g, b);
}

int level_of(double v) {
  if (v < 0) return -1;
  return static_cast<int>(std::clamp(v, 0.0, 1.0) * (kLevels - 1) + 0.5);
}

// The cells: one path per colour, runs of equal colour along a row merged, in
// row units vertically.
std::string cells(const std::vector<std::vector<double>>& rows, const std::vector<double>& x) {
  if (rows.empty() || x.size() < 2) return {};
  std::vector<std::string> paths(kLevels + 1);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::size_t c = 0;
    while (c < rows[r].size()) {
      const int level = level_of(rows[r][c]);
      std::size_t end = c + 1;
      while (end < rows[r].size() && level_of(rows[r][end]) == level) ++end;
      const std::string w = num(x[end] - x[c]);
      paths[static_cast<std::size_t>(level + 1)] +=
          fmt::format("M{} {}h{}v1h-{}z", num(x[c]), r, w, w);
      c = end;
    }
  }
  std::string s =
      fmt::format("<g transform=\"translate(0 {}) scale(1 {})\" shape-rendering=\"crispEdges\">\n",
                  kTop, fmt::format("{:.6g}", kPlotH / static_cast<double>(rows.size())));
  for (std::size_t l = 0; l < paths.size(); ++l)
    if (!paths[l].empty())
      s += fmt::format("<path fill=\"{}\" d=\"{}\"/>\n", colour_of_level(static_cast<int>(l) - 1),
                       paths[l]);
  return s + "</g>\n";
}

std::string heat_legend() {
  const int x = kChartWidth - kPlotRight + 20;
  std::string s;
  for (int k = 0; k < kLevels; ++k)
    s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"{}\"/>\n", x,
                     kTop + 14 * (kLevels - 1 - k), colour_of_level(k));
  s += fmt::format(
      "<text x=\"{0}\" y=\"{1}\">1.0</text>\n<text x=\"{0}\" y=\"{2}\">0.5</text>\n<text "
      "x=\"{0}\" y=\"{3}\">0.0</text>\n",
      x + 20, kTop + 11, kTop + 14 * 5 + 11, kTop + 14 * 10 + 11);
  s += fmt::format(
      "<rect x=\"{0}\" y=\"{1}\" width=\"14\" height=\"14\" fill=\"#dddddd\"/>\n<text x=\"{2}\" "
      "y=\"{3}\">no data</text>\n",
      x, kTop + 14 * kLevels + 10, x + 20, kTop + 14 * kLevels + 21);
  return s;
}

// First and last index beside a heat map's rows, and the axis title.
std::string row_axis(const std::string& label, std::size_t rows) {
  if (rows == 0) return y_title(label);
  const double rh = kPlotH / static_cast<double>(rows);
  return y_title(fmt::format("{} (0 to {})", label, rows - 1)) +
         fmt::format(
             "<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\">0</text>\n<text x=\"{0}\" y=\"{2}\" "
             "text-anchor=\"end\">{3}</text>\n",
             kPlotLeft - 4, num(kTop + std::min(rh, 14.0) / 2 + 4),
             num(kTop + kPlotH - std::min(rh, 14.0) / 2 + 4), rows - 1);
}

}  // namespace

std::string heatmap_svg(const std::string& title, const std::string& row_label,
                        const std::vector<std::vector<double>>& rows,
                        const std::vector<double>& column_us) {
  return header(title) + cells(rows, column_edges(column_us)) + row_axis(row_label, rows.size()) +
         heat_legend() + time_axis(column_us) + "</svg>\n";
}

std::string grid_svg(const std::string& title, const std::string& row_label,
                     const std::string& column_label,
                     const std::vector<std::vector<double>>& rows) {
  const std::size_t columns = rows.empty() ? 0 : rows.front().size();
  const std::vector<double> x = column_edges(std::vector<double>(columns, 1.0));
  return header(title) + cells(rows, x) + row_axis(row_label, rows.size()) + heat_legend() +
         fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{} (0 to {})</text>\n",
                     num(kPlotLeft + kPlotW / 2), kChartHeight - 12, xml_escape(column_label),
                     columns ? columns - 1 : 0) +
         "</svg>\n";
}

std::string stacked_svg(const std::string& title, const std::string& y_label,
                        const std::vector<Band>& bands, const std::vector<double>& column_us) {
  std::string s = header(title);
  const std::size_t columns = column_us.size();
  double top = 0;
  for (std::size_t c = 0; c < columns; ++c) {
    double sum = 0;
    for (const Band& b : bands) sum += c < b.values.size() ? b.values[c] : 0;
    top = std::max(top, sum);
  }
  const AxisTicks y = linear_ticks(0, top > 0 ? top : 1, 5);
  const double bottom_px = kTop + kPlotH;
  auto py = [&](double v) { return bottom_px - v / y.hi * kPlotH; };
  // Grid lines and labelled y ticks under the data.
  for (double v : y.values)
    s += fmt::format(
        "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#e4e4e4\"/><text x=\"{3}\" "
        "y=\"{4}\" text-anchor=\"end\">{5}</text>\n",
        kPlotLeft, num(py(v)), num(kPlotLeft + kPlotW), kPlotLeft - 5, num(py(v) + 4),
        tick_label(v));
  const std::vector<double> x = column_edges(column_us);
  std::vector<double> below(columns, 0.0);  // stacked value under the current band
  for (const Band& b : bands) {
    std::vector<double> above(below);
    bool any = false;
    for (std::size_t c = 0; c < columns; ++c) {
      const double v = c < b.values.size() ? b.values[c] : 0;
      above[c] += v;
      any = any || v > 0;
    }
    if (any && columns) {
      std::string d = fmt::format("M{} {}", num(x[0]), num(py(below[0])));
      for (std::size_t c = 0; c < columns; ++c)
        d += fmt::format("V{}H{}", num(py(above[c])), num(x[c + 1]));
      for (std::size_t c = columns; c-- > 0;)
        d += fmt::format("V{}H{}", num(py(below[c])), num(x[c]));
      s += fmt::format("<path fill=\"{}\" d=\"{}z\"/>\n", b.colour, d);
    }
    below = std::move(above);
  }
  s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"black\"/>\n",
                   kPlotLeft, kTop, num(bottom_px));
  s += y_title(y_label);
  // Legend in the right margin, off the data, top band first like the stack.
  for (std::size_t k = 0; k < bands.size(); ++k) {
    const int ly = kTop + 18 * static_cast<int>(bands.size() - 1 - k);
    s += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/><text x=\"{}\" "
        "y=\"{}\">{}</text>\n",
        kChartWidth - kPlotRight + 20, ly, bands[k].colour, kChartWidth - kPlotRight + 38, ly + 10,
        xml_escape(bands[k].label));
  }
  return s + time_axis(column_us) + "</svg>\n";
}

}  // namespace cnuas::gpu
