// Affine calibration of one component for one target: t = max(0, a*t_analytic + b),
// fitted by ordinary least squares, and the error metrics that score it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cnuas::calibration {

struct Affine {
  double a = 1;
  double b = 0;  // seconds
  double predict(double analytic_s) const {
    const double t = a * analytic_s + b;
    return t < 0 ? 0 : t;
  }
};

// Least squares over (analytic, measured) pairs; needs two distinct analytic times.
Affine fit_affine(const std::vector<double>& analytic_s, const std::vector<double>& measured_s);

struct ErrorMetrics {
  std::size_t count = 0;
  double mean_absolute_error_s = 0;
  double mape = 0;                     // mean absolute percentage error, in percent
  double max_absolute_percentage = 0;  // in percent
  double bias_s = 0;                   // mean of predicted - measured
};

ErrorMetrics score(const std::vector<double>& predicted_s, const std::vector<double>& measured_s);

// A residual against a variable: the least-squares slope, the correlation, and
// whether it is a systematic trend (callers pass relative residuals).
struct Trend {
  std::string variable;
  double slope = 0;
  double correlation = 0;
  bool systematic = false;  // |correlation| >= 0.5 with at least 5 points
};

Trend residual_trend(const std::string& variable, const std::vector<double>& x,
                     const std::vector<double>& residual);

// The lack-of-fit F test for replicated observations: residuals grouped by equal
// analytic time; the spread of group means about a straight line (curvature the
// affine form cannot follow) against the spread within groups (pure measurement
// error). A linear trend test misses a residual that bends; this does not.
struct LackOfFit {
  std::size_t groups = 0;
  std::size_t lack_df = 0;  // groups - 2
  std::size_t pure_df = 0;  // rows - groups
  double f = 0;
  double p_value = 1;
  bool systematic = false;  // p < 0.01
};

// Empty when the data cannot support the test: fewer than three distinct analytic
// times or no replicates.
std::optional<LackOfFit> lack_of_fit(const std::vector<double>& x,
                                     const std::vector<double>& residual);

}  // namespace cnuas::calibration
