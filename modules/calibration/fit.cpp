#include "calibration/fit.h"

#include <boost/math/distributions/fisher_f.hpp>
#include <cmath>
#include <limits>
#include <map>
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

std::optional<LackOfFit> lack_of_fit(const std::vector<double>& x,
                                     const std::vector<double>& residual) {
  std::map<double, std::vector<double>> by_x;
  for (std::size_t i = 0; i < x.size(); ++i) by_x[x[i]].push_back(residual[i]);
  LackOfFit t;
  t.groups = by_x.size();
  if (t.groups < 3 || x.size() <= t.groups) return std::nullopt;
  t.lack_df = t.groups - 2;
  t.pure_df = x.size() - t.groups;
  // Pure error: spread within groups. Group means, weighted by group size.
  double pure_ss = 0;
  std::vector<double> gx, gmean, gweight;
  for (const auto& [gx_value, rs] : by_x) {
    const double m = mean(rs);
    for (double r : rs) pure_ss += (r - m) * (r - m);
    gx.push_back(gx_value);
    gmean.push_back(m);
    gweight.push_back(static_cast<double>(rs.size()));
  }
  // Weighted straight line through the group means; what it leaves is lack of fit.
  double w = 0, wx = 0, wy = 0;
  for (std::size_t g = 0; g < gx.size(); ++g) {
    w += gweight[g];
    wx += gweight[g] * gx[g];
    wy += gweight[g] * gmean[g];
  }
  const double mx = wx / w, my = wy / w;
  double sxx = 0, sxy = 0;
  for (std::size_t g = 0; g < gx.size(); ++g) {
    sxx += gweight[g] * (gx[g] - mx) * (gx[g] - mx);
    sxy += gweight[g] * (gx[g] - mx) * (gmean[g] - my);
  }
  const double slope = sxx > 0 ? sxy / sxx : 0;
  double lack_ss = 0;
  for (std::size_t g = 0; g < gx.size(); ++g) {
    const double e = gmean[g] - (my + slope * (gx[g] - mx));
    lack_ss += gweight[g] * e * e;
  }
  const double lack_ms = lack_ss / static_cast<double>(t.lack_df);
  const double pure_ms = pure_ss / static_cast<double>(t.pure_df);
  if (pure_ms <= 0) {
    // Exact replicates: any curvature at all is systematic.
    t.f = lack_ms > 0 ? std::numeric_limits<double>::infinity() : 0;
    t.p_value = lack_ms > 0 ? 0 : 1;
  } else {
    t.f = lack_ms / pure_ms;
    const boost::math::fisher_f dist(static_cast<double>(t.lack_df),
                                     static_cast<double>(t.pure_df));
    t.p_value = boost::math::cdf(boost::math::complement(dist, t.f));
  }
  t.systematic = t.p_value < 0.01;
  return t;
}

}  // namespace cnuas::calibration
