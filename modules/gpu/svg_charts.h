// Small SVG charts for the GPU report: a heat map (rows x time), stacked
// areas over time, and a line over time. Plain SVG 1.1, no scripts.
#pragma once

#include <string>
#include <vector>

namespace cnuas::gpu {

struct Band {
  std::string label;
  std::string colour;
  std::vector<double> values;  // one per time step
};

// Rows x columns of values in [0, 1] (negative: no data, drawn grey).
std::string heatmap_svg(const std::string& title, const std::string& row_label,
                        const std::vector<std::vector<double>>& rows, double seconds_per_column);
// Bands stacked bottom-up; values are fractions of the whole (sum <= 1) or absolute.
std::string stacked_svg(const std::string& title, const std::string& y_label,
                        const std::vector<Band>& bands, double seconds_per_column);

}  // namespace cnuas::gpu
