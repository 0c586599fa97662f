#include "core/outputs/axis_ticks.h"

#include <fmt/format.h>

#include <cmath>

namespace cnuas {

AxisTicks linear_ticks(double lo, double hi, int target) {
  AxisTicks t;
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / std::max(1, target);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * magnitude;
  for (double m : {1.0, 2.0, 2.5, 5.0})
    if (m * magnitude >= raw * (1 - 1e-9)) {
      step = m * magnitude;
      break;
    }
  // Snap with a little slack so that a bound on a tick does not add a step.
  const long long first = static_cast<long long>(std::floor(lo / step + 1e-9));
  const long long last = static_cast<long long>(std::ceil(hi / step - 1e-9));
  for (long long k = first; k <= last; ++k) t.values.push_back(static_cast<double>(k) * step);
  t.lo = t.values.front();
  t.hi = t.values.back();
  return t;
}

AxisTicks log_ticks(double lo, double hi) {
  AxisTicks t;
  if (!(lo > 0)) lo = 1;
  if (!(hi > lo)) hi = lo * 10;
  const int first = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  const int last = std::max(first + 1, static_cast<int>(std::ceil(std::log10(hi) - 1e-9)));
  const bool short_range = last - first < 3;
  for (int e = first; e <= last; ++e) {
    const double decade = std::pow(10.0, e);
    t.values.push_back(decade);
    if (short_range && e < last) {
      t.values.push_back(2 * decade);
      t.values.push_back(5 * decade);
    }
  }
  t.lo = t.values.front();
  t.hi = t.values.back();
  return t;
}

std::string tick_label(double v) {
  if (v == 0) return "0";  // also -0
  return fmt::format("{:.6g}", v);
}

}  // namespace cnuas
