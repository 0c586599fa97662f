// Small pieces of wording shared by the command-line summaries.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace cnuas {

// "1 element", "3 elements": `singular` takes an "s" for any other count.
inline std::string counted(std::uint64_t n, std::string_view singular) {
  return fmt::format("{} {}{}", n, singular, n == 1 ? "" : "s");
}

// Seconds in the unit that keeps 1 to 999 before the point, three significant
// digits: 2.18452e-05 reads "21.8 us", -3e-9 "-3 ns".
inline std::string readable_seconds(double s) {
  const double magnitude = std::fabs(s);
  if (magnitude == 0 || !std::isfinite(s)) return fmt::format("{:.3g} s", s);
  static const struct {
    double scale;
    const char* unit;
  } units[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}, {1e-12, "ps"}};
  for (const auto& u : units)
    if (magnitude >= u.scale * 0.9995) return fmt::format("{:.3g} {}", s / u.scale, u.unit);
  return fmt::format("{:.3g} ps", s / 1e-12);
}

}  // namespace cnuas
