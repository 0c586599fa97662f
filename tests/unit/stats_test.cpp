#include "core/outputs/stats.h"

#include <gtest/gtest.h>

#include "core/kernel/trace.h"

namespace cnuas {

TEST(Stats, NearestRankPercentiles) {
  std::vector<std::uint64_t> waits;
  for (std::uint64_t i = 1; i <= 200; ++i) waits.push_back(201 - i);  // 200..1, unsorted
  WaitSummary s = summarize_waits(waits);
  EXPECT_EQ(s.count, 200u);
  EXPECT_EQ(s.p50, 100u);  // ceil(0.5 * 200) = rank 100
  EXPECT_EQ(s.p99, 198u);  // ceil(0.99 * 200) = rank 198
  EXPECT_EQ(s.max, 200u);
  EXPECT_EQ(s.mean, Rational(201, 2));
}

TEST(Trace, MicrosecondTextIsExact) {
  EXPECT_EQ(ps_to_us_text(0), "0.000000");
  EXPECT_EQ(ps_to_us_text(120000), "0.120000");
  EXPECT_EQ(ps_to_us_text(1234567891), "1234.567891");
}

TEST(Trace, OrderIsStartTimeThenSequence) {
  TraceSink sink;
  // ready, start, free, end, op, component, lane, first, last, stage and flags
  sink.record({0, 500, 600, 600, 0, 0, 0, 0, 0, 0});  // seq 0
  sink.record({0, 100, 200, 200, 1, 0, 0, 0, 1, 0});  // seq 1
  sink.record({0, 100, 150, 150, 2, 0, 1, 0, 1, 0});  // seq 2
  auto o = sink.ordered();
  EXPECT_EQ(o, (std::vector<std::uint64_t>{1, 2, 0}));
  EXPECT_EQ(sink[0].start_ps, 500u);
}

}  // namespace cnuas
