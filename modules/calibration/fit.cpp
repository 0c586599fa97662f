#include "calibration/fit.h"

#include <cmath>
#include <stdexcept>

namespace cnuas::calibration {
namespace {

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

}  // namespace

Affine fit_affine(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2)
    throw std::invalid_argument("a fit needs at least two observations");
  const double mx = mean(x), my = mean(y);
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  if (sxx <= 0)
    throw std::invalid_argument(
        "all observations have the same analytic time: a and b cannot be told apart");
  Affine f;
  f.a = sxy / sxx;
  f.b = my - f.a * mx;
  return f;
}

ErrorMetrics score(const std::vector<double>& predicted, const std::vector<double>& measured) {
  ErrorMetrics m;
  m.count = predicted.size();
  if (m.count == 0) return m;
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    const double error = predicted[i] - measured[i];
    m.mean_absolute_error_s += std::fabs(error);
    m.bias_s += error;
    const double ape = measured[i] != 0 ? std::fabs(error) / measured[i] * 100 : 0;
    m.mape += ape;
    if (ape > m.max_absolute_percentage) m.max_absolute_percentage = ape;
  }
  const double n = static_cast<double>(m.count);
  m.mean_absolute_error_s /= n;
  m.bias_s /= n;
  m.mape /= n;
  return m;
}

Trend residual_trend(const std::string& variable, const std::vector<double>& x,
                     const std::vector<double>& r) {
  Trend t;
  t.variable = variable;
  if (x.size() < 2) return t;
  const double mx = mean(x), mr = mean(r);
  double sxx = 0, srr = 0, sxr = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mx) * (x[i] - mx);
    srr += (r[i] - mr) * (r[i] - mr);
    sxr += (x[i] - mx) * (r[i] - mr);
  }
  if (sxx > 0) t.slope = sxr / sxx;
  if (sxx > 0 && srr > 0) t.correlation = sxr / std::sqrt(sxx * srr);
  t.systematic = x.size() >= 5 && std::fabs(t.correlation) >= 0.5;
  return t;
}

}  // namespace cnuas::calibration
