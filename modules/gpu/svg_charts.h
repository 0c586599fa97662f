// SVG charts for the GPU report, sized for a page about 1400 px wide (1300 px
// charts whose viewBox lets them shrink with the window): a heat map (rows x
// time), stacked areas over time, and a heat map over two indices. Plain SVG
// 1.1, no scripts. Time columns carry their own durations, so a short last
// sample is drawn with its real width. Heat map cells are quantised to the
// legend's 11 colours and merged along rows, which keeps files small.
#pragma once

#include <string>
#include <vector>

namespace cnuas::gpu {

constexpr int kChartWidth = 1300, kChartHeight = 320;
constexpr int kPlotLeft = 80, kPlotRight = 190;  // the plot spans [kPlotLeft, width - kPlotRight]

struct Band {
  std::string label;
  std::string colour;
  std::vector<double> values;  // one per time column
};

// Rows x columns of values in [0, 1] (negative: no data, drawn grey);
// `column_us[c]` is column c's duration in microseconds.
std::string heatmap_svg(const std::string& title, const std::string& row_label,
                        const std::vector<std::vector<double>>& rows,
                        const std::vector<double>& column_us);
// Rows x columns of values in [0, 1] over two indices (e.g. channel x bank).
std::string grid_svg(const std::string& title, const std::string& row_label,
                     const std::string& column_label, const std::vector<std::vector<double>>& rows);
// Bands stacked bottom-up over time columns of the durations given.
std::string stacked_svg(const std::string& title, const std::string& y_label,
                        const std::vector<Band>& bands, const std::vector<double>& column_us);

}  // namespace cnuas::gpu
