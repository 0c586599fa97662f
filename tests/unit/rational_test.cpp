#include "core/inputs/rational.h"

#include <gtest/gtest.h>

namespace cnuas {

TEST(Rational, ReducesAndCeils) {
  Rational r(10, 4);  // 5/2
  EXPECT_EQ(r.num(), 5u);
  EXPECT_EQ(r.den(), 2u);
  EXPECT_EQ(r.ceil_u64(), 3u);
  EXPECT_EQ(r.floor_u64(), 2u);
  EXPECT_EQ(Rational(6, 3).ceil_u64(), 2u);
}

TEST(Rational, ArithmeticIsExact) {
  // 1/3 + 1/6 = 1/2 exactly; binary floating point cannot say that.
  EXPECT_EQ(Rational(1, 3) + Rational(1, 6), Rational(1, 2));
  EXPECT_EQ(Rational(3, 4) * Rational(8, 9), Rational(2, 3));
  EXPECT_EQ(Rational(3, 4) / Rational(3, 8), Rational(2));
  EXPECT_EQ(Rational(5, 6) - Rational(1, 3), Rational(1, 2));
  EXPECT_THROW(Rational(1, 3) - Rational(1, 2), std::domain_error);
  EXPECT_THROW(Rational(1) / Rational(0), std::domain_error);
}

TEST(Rational, ComparesWithoutOverflow) {
  EXPECT_TRUE(Rational(1, 3) < Rational(1, 2));
  EXPECT_FALSE(Rational(1, 2) < Rational(1, 2));
  // Products of these would exceed 128 bits; continued fractions still order them.
  const u128 big = (u128(1) << 100) + 1;
  EXPECT_TRUE(Rational(big - 2, big) < Rational(big - 1, big + 1));
  EXPECT_TRUE(Rational(big, 3) > Rational(big - 1, 3));
}

TEST(Rational, DecimalText) {
  EXPECT_EQ(Rational(1, 8).to_decimal(), "0.125");
  EXPECT_EQ(Rational(2, 3).to_decimal(3), "0.666");
  EXPECT_EQ(Rational(42).to_decimal(), "42");
}

TEST(Rational, OverflowIsRefusedNotWrapped) {
  const u128 big = u128(1) << 100;
  EXPECT_THROW(Rational(big, 1) * Rational(big, 1), OverflowError);
  EXPECT_THROW(Rational(u128(1) << 70, 1).ceil_u64(), OverflowError);
}

}  // namespace cnuas
