// Axis ticks a reader takes in at a glance: linear steps of 1, 2, 2.5 or 5
// times a power of ten, and decades (with 2 and 5 between when the range is
// short) for logarithmic axes. Shared by every SVG picture Cnuas writes.
#pragma once

#include <string>
#include <vector>

namespace cnuas {

struct AxisTicks {
  double lo = 0, hi = 1;       // the axis range: [lo, hi] covers the data and ends on ticks
  std::vector<double> values;  // tick positions, ascending, lo and hi included
};

// About `target` intervals covering [lo, hi]; a step from {1, 2, 2.5, 5} x 10^k.
AxisTicks linear_ticks(double lo, double hi, int target = 5);
// Ticks of a log axis covering [lo, hi] (both > 0): the enclosing decades.
AxisTicks log_ticks(double lo, double hi);
// A tick label without float noise: 0.30000000000000004 prints as 0.3.
std::string tick_label(double v);

}  // namespace cnuas
