#include "core/inputs/collectives.h"

#include <gtest/gtest.h>

#include <map>
#include <numeric>

namespace cnuas {

TEST(Collectives, RingAllreduceStepsAndDependencies) {
  const auto t = expand_collective(CollectiveKind::RingAllreduce, 4, 4000);
  ASSERT_EQ(t.size(), 2u * 3u * 4u);  // 2(n-1) steps of n transfers
  for (std::uint32_t s = 0; s < 6; ++s)
    for (std::uint32_t i = 0; i < 4; ++i) {
      const Transfer& x = t[s * 4 + i];
      EXPECT_EQ(x.source, i);
      EXPECT_EQ(x.target, (i + 1) % 4);
      EXPECT_EQ(x.bytes, 1000u);
      if (s == 0) {
        EXPECT_TRUE(x.after.empty());
      } else {
        ASSERT_EQ(x.after.size(), 1u);
        EXPECT_EQ(x.after[0],
                  (s - 1) * 4 + (i + 3) % 4);  // what rank i-1 sent it in the step before
      }
    }
}

TEST(Collectives, ChunksAddUpToTheBuffer) {
  // 10 bytes over 4 ranks: chunks of 3, 3, 2, 2; one reduce-scatter moves each chunk n-1 times.
  const auto t = expand_collective(CollectiveKind::RingReduceScatter, 4, 10);
  ASSERT_EQ(t.size(), 12u);
  std::uint64_t first_step = 0;
  for (int i = 0; i < 4; ++i) first_step += t[i].bytes;
  EXPECT_EQ(first_step, 10u);
  const auto a2a = expand_collective(CollectiveKind::AllToAll, 4, 10);
  ASSERT_EQ(a2a.size(), 12u);
  std::map<std::uint32_t, std::uint64_t> sent;
  for (const auto& x : a2a) sent[x.source] += x.bytes;
  EXPECT_EQ(sent[0], 2u + 2u + 3u);  // rank 0 keeps its own chunk (3 bytes)
  for (const auto& x : a2a) EXPECT_TRUE(x.after.empty());
}

TEST(Collectives, TreeReducesToRankZeroThenBroadcasts) {
  // Ranks 0..4: parents 1->0, 2->0, 3->1, 4->1.
  const auto t = expand_collective(CollectiveKind::TreeAllreduce, 5, 64);
  ASSERT_EQ(t.size(), 8u);
  // Reduce: transfer k-1 goes from rank k to its parent.
  EXPECT_EQ(t[0].source, 1u);
  EXPECT_EQ(t[0].target, 0u);
  EXPECT_EQ(t[0].after, (std::vector<std::uint32_t>{2, 3}));  // waits for ranks 3 and 4
  EXPECT_TRUE(t[2].after.empty());                            // rank 3 is a leaf
  // Broadcast to ranks 1 and 2 waits for the whole reduction at the root.
  EXPECT_EQ(t[4].source, 0u);
  EXPECT_EQ(t[4].target, 1u);
  EXPECT_EQ(t[4].after, (std::vector<std::uint32_t>{0, 1}));
  // Broadcast to rank 3 waits for rank 1 to have received it.
  EXPECT_EQ(t[6].source, 1u);
  EXPECT_EQ(t[6].target, 3u);
  EXPECT_EQ(t[6].after, (std::vector<std::uint32_t>{4}));
  for (const auto& x : t) EXPECT_EQ(x.bytes, 64u);
}

TEST(Collectives, AllgatherHasNMinusOneSteps) {
  EXPECT_EQ(expand_collective(CollectiveKind::RingAllgather, 8, 800).size(), 7u * 8u);
  for (auto kind :
       {CollectiveKind::RingAllreduce, CollectiveKind::RingReduceScatter,
        CollectiveKind::RingAllgather, CollectiveKind::TreeAllreduce, CollectiveKind::AllToAll})
    EXPECT_EQ(collective_transfer_count(kind, 6), expand_collective(kind, 6, 60).size());
  EXPECT_EQ(collective_by_name("ring_allreduce"), CollectiveKind::RingAllreduce);
  EXPECT_FALSE(collective_by_name("ring_all_reduce").has_value());
}

}  // namespace cnuas
