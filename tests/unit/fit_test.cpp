#include "calibration/fit.h"

#include <gtest/gtest.h>

#include <cmath>

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

// Three groups of two: means 0, 1, 0 bend away from any line. Weighted line
// through the means is flat at 1/3, so lack SS = 2(1/9 + 4/9 + 1/9) = 4/3 on
// 1 df; pure SS = 6 x 0.01 = 0.06 on 3 df; F = (4/3) / 0.02 = 200/3. F(1,3) is
// t(3) squared, whose two-sided tail has a closed form.
TEST(Fit, LackOfFitMatchesAHandComputation) {
  const std::vector<double> x{1, 1, 2, 2, 3, 3}, r{0.1, -0.1, 1.1, 0.9, 0.1, -0.1};
  const auto t = lack_of_fit(x, r);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->groups, 3u);
  EXPECT_EQ(t->lack_df, 1u);
  EXPECT_EQ(t->pure_df, 3u);
  EXPECT_NEAR(t->f, 200.0 / 3.0, 1e-9);
  const double u = std::sqrt(t->f) / std::sqrt(3.0);
  const double p = 1 - 2 / M_PI * (u / (1 + u * u) + std::atan(u));
  EXPECT_NEAR(t->p_value, p, 1e-12);
  EXPECT_TRUE(t->systematic);
}

TEST(Fit, LackOfFitNeedsReplicatesAndPassesAStraightLine) {
  EXPECT_FALSE(lack_of_fit({1, 2, 3, 4}, {0, 1, 0, 1}));  // no replicates
  EXPECT_FALSE(lack_of_fit({1, 1, 2, 2}, {0, 0, 1, 1}));  // two groups: a line fits any
  // Residuals on a line plus within-group noise: nothing left for lack of fit.
  const auto t = lack_of_fit({1, 1, 2, 2, 3, 3}, {0.1, -0.1, 1.1, 0.9, 2.1, 1.9});
  ASSERT_TRUE(t);
  EXPECT_NEAR(t->f, 0, 1e-9);
  EXPECT_FALSE(t->systematic);
}

}  // namespace cnuas::calibration
