#include "core/kernel/lanes.h"

#include <gtest/gtest.h>

namespace cnuas {

TEST(LaneSet, StartIsMaxOfReadyAndLaneFree) {
  LaneSet lanes(1);
  Booking a = lanes.book(100, 50);
  EXPECT_EQ(a.start_ps, 100u);
  EXPECT_EQ(a.end_ps, 150u);
  Booking b = lanes.book(120, 30);  // lane busy until 150
  EXPECT_EQ(b.start_ps, 150u);
  EXPECT_EQ(b.end_ps, 180u);
  Booking c = lanes.book(500, 10);  // lane idle since 180
  EXPECT_EQ(c.start_ps, 500u);
  EXPECT_EQ(lanes.busy_ps(0), 90u);
}

TEST(LaneSet, EarliestFreeLaneWinsTiesToLowestIndex) {
  LaneSet lanes(3);
  EXPECT_EQ(lanes.book(0, 100).lane, 0u);  // all free at 0: lowest index
  EXPECT_EQ(lanes.book(0, 50).lane, 1u);
  EXPECT_EQ(lanes.book(0, 70).lane, 2u);
  // Free times now 100, 50, 70: lane 1 is the earliest.
  Booking d = lanes.book(0, 10);
  EXPECT_EQ(d.lane, 1u);
  EXPECT_EQ(d.start_ps, 50u);
  // Free times 100, 60, 70: lane 1 again, even though all are free at t=200.
  EXPECT_EQ(lanes.book(200, 1).lane, 1u);
}

TEST(LaneSet, PinnedLaneWaitsEvenWhenOthersAreFree) {
  LaneSet lanes(2);
  lanes.book_pinned(1, 0, 100);
  Booking b = lanes.book_pinned(1, 10, 5);
  EXPECT_EQ(b.lane, 1u);
  EXPECT_EQ(b.start_ps, 100u);
  EXPECT_EQ(lanes.free_at(0), 0u);
}

}  // namespace cnuas
