#include "gpu/svg_charts.h"

#include <fmt/format.h>

#include <algorithm>

namespace cnuas::gpu {

namespace {

constexpr int kWidth = 760, kHeight = 300, kLeft = 70, kRight = 160, kTop = 30, kBottom = 40;

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

std::string header(const std::string& title) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" "
      "fill=\"white\"/>\n<text x=\"{}\" y=\"18\" font-size=\"13\">{}</text>\n",
      kWidth, kHeight, kLeft, escape(title));
}

// The time axis: microseconds under the plot.
std::string time_axis(std::size_t columns, double seconds_per_column) {
  const double plot_w = kWidth - kLeft - kRight;
  std::string s = fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n",
                              kLeft, kHeight - kBottom, kLeft + plot_w, kHeight - kBottom);
  for (int k = 0; k <= 4; ++k) {
    const double x = kLeft + plot_w * k / 4;
    const double us = seconds_per_column * static_cast<double>(columns) * k / 4 * 1e6;
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{:.3g}</text>\n", x,
                     kHeight - kBottom + 14, us);
  }
  s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">time (us)</text>\n",
                   kLeft + plot_w / 2, kHeight - 6);
  return s;
}

// Blue (0) to yellow (1).
std::string colour_of(double v) {
  if (v < 0) return "#dddddd";
  v = std::clamp(v, 0.0, 1.0);
  const int r = static_cast<int>(40 + 215 * v), g = static_cast<int>(40 + 180 * v),
            b = static_cast<int>(160 - 130 * v);
  return fmt::format("#{:02x}{:02x}{:02x}", r, g, b);
}

}  // namespace

std::string heatmap_svg(const std::string& title, const std::string& row_label,
                        const std::vector<std::vector<double>>& rows, double seconds_per_column) {
  std::string s = header(title);
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const std::size_t columns = rows.empty() ? 0 : rows.front().size();
  if (columns) {
    const double cw = plot_w / static_cast<double>(columns);
    const double rh = plot_h / static_cast<double>(rows.size());
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (std::size_t c = 0; c < columns; ++c)
        s += fmt::format(
            "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\"/>\n",
            kLeft + cw * static_cast<double>(c), kTop + rh * static_cast<double>(r), cw + 0.05,
            rh + 0.05, colour_of(rows[r][c]));
  }
  s += fmt::format(
      "<text x=\"14\" y=\"{:.1f}\" transform=\"rotate(-90 14 {:.1f})\" "
      "text-anchor=\"middle\">{} (0 to {})</text>\n",
      kTop + plot_h / 2, kTop + plot_h / 2, escape(row_label), rows.empty() ? 0 : rows.size() - 1);
  // Legend: the colour scale.
  for (int k = 0; k <= 10; ++k)
    s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"{}\"/>\n",
                     kWidth - kRight + 20, kTop + 14 * (10 - k), colour_of(k / 10.0));
  s += fmt::format("<text x=\"{}\" y=\"{}\">1.0</text>\n<text x=\"{}\" y=\"{}\">0.0</text>\n",
                   kWidth - kRight + 40, kTop + 11, kWidth - kRight + 40, kTop + 151);
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"#dddddd\"/>\n",
                   kWidth - kRight + 20, kTop + 170);
  s += fmt::format("<text x=\"{}\" y=\"{}\">idle</text>\n", kWidth - kRight + 40, kTop + 181);
  s += time_axis(columns, seconds_per_column);
  return s + "</svg>\n";
}

std::string stacked_svg(const std::string& title, const std::string& y_label,
                        const std::vector<Band>& bands, double seconds_per_column) {
  std::string s = header(title);
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const std::size_t columns = bands.empty() ? 0 : bands.front().values.size();
  double top = 0;
  for (std::size_t c = 0; c < columns; ++c) {
    double sum = 0;
    for (const Band& b : bands) sum += b.values[c];
    top = std::max(top, sum);
  }
  if (top <= 0) top = 1;
  if (columns) {
    const double cw = plot_w / static_cast<double>(columns);
    for (std::size_t c = 0; c < columns; ++c) {
      double base = 0;
      for (const Band& b : bands) {
        const double h = b.values[c] / top * plot_h;
        if (h > 0)
          s += fmt::format(
              "<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\"/>\n",
              kLeft + cw * static_cast<double>(c), kTop + plot_h - base - h, cw + 0.05, h,
              b.colour);
        base += h;
      }
    }
  }
  s += fmt::format(
      "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n<text x=\"{}\" y=\"{}\" "
      "text-anchor=\"end\">{:.3g}</text>\n<text x=\"{}\" y=\"{}\" "
      "text-anchor=\"end\">0</text>\n",
      kLeft, kTop, kLeft, kTop + plot_h, kLeft - 4, kTop + 4, top, kLeft - 4, kTop + plot_h);
  s += fmt::format(
      "<text x=\"14\" y=\"{:.1f}\" transform=\"rotate(-90 14 {:.1f})\" "
      "text-anchor=\"middle\">{}</text>\n",
      kTop + plot_h / 2, kTop + plot_h / 2, escape(y_label));
  for (std::size_t k = 0; k < bands.size(); ++k) {
    const int y = kTop + 16 * static_cast<int>(bands.size() - 1 - k);
    s += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n<text x=\"{}\" "
        "y=\"{}\">{}</text>\n",
        kWidth - kRight + 20, y, bands[k].colour, kWidth - kRight + 38, y + 10,
        escape(bands[k].label));
  }
  s += time_axis(columns, seconds_per_column);
  return s + "</svg>\n";
}

}  // namespace cnuas::gpu
