#include "calibration/fit.h"

#include <gtest/gtest.h>

#include <random>

namespace cnuas::calibration {

TEST(Fit, RecoversKnownAffineMapFromNoisyData) {
  // t = 1.25 x + 4 us over 1..200 us, with +-1 % noise from a fixed seed.
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> noise(-0.01, 0.01);
  std::vector<double> x, y;
  for (int i = 1; i <= 200; ++i) {
    const double analytic = i * 1e-6;
    x.push_back(analytic);
    y.push_back((1.25 * analytic + 4e-6) * (1 + noise(rng)));
  }
  const Affine f = fit_affine(x, y);
  EXPECT_NEAR(f.a, 1.25, 0.01);
  EXPECT_NEAR(f.b, 4e-6, 5e-7);
}

TEST(Fit, ExactOnNoiselessDataAndClampedAtZero) {
  const Affine f = fit_affine({1, 2, 3}, {3, 5, 7});  // y = 2x + 1
  EXPECT_DOUBLE_EQ(f.a, 2);
  EXPECT_DOUBLE_EQ(f.b, 1);
  const Affine negative{1, -5};
  EXPECT_EQ(negative.predict(2), 0);  // max(0, 2 - 5)
  EXPECT_THROW(fit_affine({1, 1}, {2, 3}), std::invalid_argument);
  EXPECT_THROW(fit_affine({1}, {2}), std::invalid_argument);
}

TEST(Fit, MetricsMatchAHandComputation) {
  // Errors +1, -2, +3 on 10, 20, 30: MAE 2, bias 2/3, APE 10 %, 10 %, 10 %.
  const ErrorMetrics m = score({11, 18, 33}, {10, 20, 30});
  EXPECT_EQ(m.count, 3u);
  EXPECT_DOUBLE_EQ(m.mean_absolute_error_s, 2);
  EXPECT_NEAR(m.bias_s, 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(m.mape, 10, 1e-12);
  EXPECT_NEAR(m.max_absolute_percentage, 10, 1e-12);
}

TEST(Fit, SystematicTrendsAreFlagged) {
  std::vector<double> x{1, 2, 3, 4, 5, 6}, drift{0.01, 0.02, 0.03, 0.04, 0.05, 0.06},
      flat{0.01, -0.01, 0.01, -0.01, 0.01, -0.01};
  EXPECT_TRUE(residual_trend("bytes", x, drift).systematic);
  EXPECT_NEAR(residual_trend("bytes", x, drift).slope, 0.01, 1e-12);
  EXPECT_FALSE(residual_trend("bytes", x, flat).systematic);
}

}  // namespace cnuas::calibration
