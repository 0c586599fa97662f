#include "core/inputs/units.h"

#include <gtest/gtest.h>

#include "core/kernel/work.h"

namespace cnuas {

static Rational q(const char* text, Dimension d) {
  return parse_quantity(text, d).value;
}

TEST(Units, ParsesTheIssueExamplesExactly) {
  EXPECT_EQ(q("100 Gbit/s", Dimension::DataRate), Rational(100'000'000'000ULL));
  EXPECT_EQ(q("25 GB/s", Dimension::DataRate), Rational(200'000'000'000ULL));
  EXPECT_EQ(q("12.5 ns", Dimension::Time), Rational(12'500));      // picoseconds
  EXPECT_EQ(q("4 KiB", Dimension::Data), Rational(4 * 1024 * 8));  // bits
  EXPECT_EQ(q("1.98 GHz", Dimension::Frequency), Rational(1'980'000'000ULL));
  EXPECT_EQ(q("350 W", Dimension::Power), Rational(350));
  EXPECT_EQ(q("0.1 ns", Dimension::Time), Rational(100));
  EXPECT_EQ(q("1e3 ns", Dimension::Time), Rational(1'000'000));
  EXPECT_EQ(q("2.5e-3 s", Dimension::Time), Rational(2'500'000'000ULL));
  EXPECT_EQ(q("3 pJ", Dimension::Energy), Rational(3, 1'000'000'000'000ULL));
  EXPECT_EQ(q("2 TFLOP", Dimension::Count), Rational(2'000'000'000'000ULL));
  EXPECT_EQ(q("42", Dimension::Count), Rational(42));
}

TEST(Units, DecimalFractionsStayExact) {
  // 0.1 has no binary representation; here it is exactly 1/10 of a nanosecond.
  Rational sum;
  for (int i = 0; i < 10; ++i) sum = sum + q("0.1 ns", Dimension::Time);
  EXPECT_EQ(sum, Rational(1000));
  EXPECT_EQ(q("31.5 GB/s", Dimension::DataRate), Rational(252'000'000'000ULL));
}

TEST(Units, RefusesBadText) {
  EXPECT_THROW(q("12 parsecs", Dimension::Time), UnitError);
  EXPECT_THROW(q("12", Dimension::Time), UnitError);     // missing unit
  EXPECT_THROW(q("-3 ns", Dimension::Time), UnitError);  // negative
  EXPECT_THROW(q("3 GB", Dimension::Time), UnitError);   // wrong dimension
  EXPECT_THROW(q("fast", Dimension::Time), UnitError);
  EXPECT_THROW(q("1.2.3 ns", Dimension::Time), UnitError);
  EXPECT_THROW(q("", Dimension::Count), UnitError);
}

TEST(Units, ErrorMessagesSayWhatIsAccepted) {
  try {
    q("12 parsecs", Dimension::Time);
    FAIL();
  } catch (const UnitError& e) {
    EXPECT_NE(e.message.find("parsecs"), std::string::npos);
    EXPECT_NE(e.message.find("ns"), std::string::npos);
  }
  try {
    q("12", Dimension::DataRate);
    FAIL();
  } catch (const UnitError& e) {
    EXPECT_NE(e.message.find("no unit"), std::string::npos);
    EXPECT_NE(e.message.find("Gbit/s"), std::string::npos);
  }
}

TEST(Units, AcceptsTheCommonRateSpellingsKeepingBitsAndBytesApart) {
  // Lower-case b is a bit, upper-case B a byte (8 bit); Gi is 2^30.
  const Rational gbit(1'000'000'000ULL);
  EXPECT_EQ(q("1 Gb/s", Dimension::DataRate), gbit);
  EXPECT_EQ(q("1 Gbps", Dimension::DataRate), gbit);
  EXPECT_EQ(q("1 Gbit/s", Dimension::DataRate), gbit);
  EXPECT_EQ(q("1 GB/s", Dimension::DataRate), gbit * Rational(8));
  EXPECT_EQ(q("1 GBps", Dimension::DataRate), gbit * Rational(8));
  EXPECT_EQ(q("1 GiB/s", Dimension::DataRate), Rational(8ULL << 30));
  EXPECT_EQ(q("1 Gibit/s", Dimension::DataRate), Rational(1ULL << 30));
  EXPECT_EQ(q("1 Gib/s", Dimension::DataRate), Rational(1ULL << 30));
  EXPECT_EQ(q("2 Gb", Dimension::Data), Rational(2'000'000'000ULL));
}

TEST(Units, TransferTimeRoundsUpExactly) {
  // 1500 B at 100 Gbit/s: 12000 bit / 1e11 bit/s = 120 ns exactly.
  EXPECT_EQ(transfer_ps(1500 * 8, q("100 Gbit/s", Dimension::DataRate)), 120000u);
  // 1 B at 3 Gbit/s: 8/3 ns = 2666.67 ps, rounded up.
  EXPECT_EQ(transfer_ps(8, q("3 Gbit/s", Dimension::DataRate)), 2667u);
  // Exact multiples are not rounded further.
  EXPECT_EQ(transfer_ps(8, q("1 GB/s", Dimension::DataRate)), 1000u);
}

TEST(WorkDims, ParsesIntegersWithUnits) {
  EXPECT_EQ(parse_work_value(WorkDim::Bytes, "4 KiB"), 4096u);
  EXPECT_EQ(parse_work_value(WorkDim::Bytes, "1500"), 1500u);
  EXPECT_EQ(parse_work_value(WorkDim::Bytes, "2 Gbit"), 250'000'000u);
  EXPECT_EQ(parse_work_value(WorkDim::Flops, "2 GFLOP"), 2'000'000'000u);
  EXPECT_THROW(parse_work_value(WorkDim::Bytes, "3 bit"), UnitError);  // not whole bytes
  EXPECT_THROW(parse_work_value(WorkDim::Packets, "1.5"), UnitError);
  EXPECT_THROW(parse_work_value(WorkDim::Packets, "-2"), UnitError);
}

}  // namespace cnuas
