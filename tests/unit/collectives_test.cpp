#include "core/inputs/collectives.h"

#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <set>

namespace cnuas {

// n ranks in one node ("g0".."g{n-1}"), or `nodes` nodes of n / nodes ranks ("s0.g0", ...).
static CollectiveShape shape(std::uint32_t n, std::uint32_t channels = 1, std::uint32_t nodes = 1) {
  std::vector<std::string> names;
  for (std::uint32_t r = 0; r < n; ++r)
    names.push_back(nodes == 1 ? "g" + std::to_string(r)
                               : "s" + std::to_string(r / (n / nodes)) + ".g" +
                                     std::to_string(r % (n / nodes)));
  return collective_shape(names, channels);
}

TEST(Collectives, RingAllreduceStepsAndDependencies) {
  const auto t = expand_collective(CollectiveKind::RingAllreduce, shape(4), 4000);
  ASSERT_EQ(t.size(), 2u * 3u * 4u);  // 2(n-1) steps of n transfers
  for (std::uint32_t s = 0; s < 6; ++s)
    for (std::uint32_t i = 0; i < 4; ++i) {
      const Transfer& x = t[s * 4 + i];
      EXPECT_EQ(x.source, i);
      EXPECT_EQ(x.target, (i + 1) % 4);
      EXPECT_EQ(x.bytes, 1000u);
      EXPECT_EQ(x.reduce, s < 3);  // the reduce-scatter half reduces on arrival
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
  const auto t = expand_collective(CollectiveKind::RingReduceScatter, shape(4), 10);
  ASSERT_EQ(t.size(), 12u);
  std::uint64_t first_step = 0;
  for (int i = 0; i < 4; ++i) first_step += t[i].bytes;
  EXPECT_EQ(first_step, 10u);
  const auto a2a = expand_collective(CollectiveKind::AllToAll, shape(4), 10);
  ASSERT_EQ(a2a.size(), 12u);
  std::map<std::uint32_t, std::uint64_t> sent;
  for (const auto& x : a2a) sent[x.source] += x.bytes;
  EXPECT_EQ(sent[0], 2u + 2u + 3u);  // rank 0 keeps its own chunk (3 bytes)
  for (const auto& x : a2a) EXPECT_TRUE(x.after.empty());
}

TEST(Collectives, TreeReducesToRankZeroThenBroadcasts) {
  // Ranks 0..4: parents 1->0, 2->0, 3->1, 4->1.
  const auto t = expand_collective(CollectiveKind::TreeAllreduce, shape(5), 64);
  ASSERT_EQ(t.size(), 8u);
  // Reduce: transfer k-1 goes from rank k to its parent.
  EXPECT_EQ(t[0].source, 1u);
  EXPECT_EQ(t[0].target, 0u);
  EXPECT_TRUE(t[0].reduce);
  EXPECT_EQ(t[0].after, (std::vector<std::uint32_t>{2, 3}));  // waits for ranks 3 and 4
  EXPECT_TRUE(t[2].after.empty());                            // rank 3 is a leaf
  // Broadcast to ranks 1 and 2 waits for the whole reduction at the root.
  EXPECT_EQ(t[4].source, 0u);
  EXPECT_EQ(t[4].target, 1u);
  EXPECT_FALSE(t[4].reduce);
  EXPECT_EQ(t[4].after, (std::vector<std::uint32_t>{0, 1}));
  // Broadcast to rank 3 waits for rank 1 to have received it.
  EXPECT_EQ(t[6].source, 1u);
  EXPECT_EQ(t[6].target, 3u);
  EXPECT_EQ(t[6].after, (std::vector<std::uint32_t>{4}));
  for (const auto& x : t) EXPECT_EQ(x.bytes, 64u);
}

TEST(Collectives, CountsMatchTheExpansion) {
  EXPECT_EQ(expand_collective(CollectiveKind::RingAllgather, shape(8), 800).size(), 7u * 8u);
  for (auto kind : {CollectiveKind::RingAllreduce, CollectiveKind::RingReduceScatter,
                    CollectiveKind::RingAllgather, CollectiveKind::TreeAllreduce,
                    CollectiveKind::HierarchicalAllreduce, CollectiveKind::NvlsAllreduce,
                    CollectiveKind::AllToAll})
    for (const CollectiveShape& s : {shape(6), shape(6, 3), shape(8, 2, 2), shape(12, 1, 3)})
      EXPECT_EQ(collective_transfer_count(kind, s), expand_collective(kind, s, 6000).size())
          << collective_name(kind) << " " << s.ranks << " ranks, " << s.channels << " channels";
  EXPECT_EQ(collective_by_name("ring_allreduce"), CollectiveKind::RingAllreduce);
  EXPECT_FALSE(collective_by_name("ring_all_reduce").has_value());
}

TEST(Collectives, NodesAreTheNamesBeforeTheLastDot) {
  const CollectiveShape s =
      collective_shape({"r0.s0.gpu[0]", "r0.s0.gpu[1]", "r0.s1.gpu[0]", "gpu[9]"}, 1);
  EXPECT_EQ(s.node_of, (std::vector<std::uint32_t>{0, 0, 1, 2}));
}

TEST(Collectives, ChannelsSplitTheBufferAndRotateEachNodesRing) {
  // 2 nodes x 4 ranks, 4 channels of 1000 B out of 4003 B: 1001, 1001, 1001, 1000.
  const auto t = expand_collective(CollectiveKind::RingAllreduce, shape(8, 4, 2), 4003);
  ASSERT_EQ(t.size(), 4u * 2 * 7 * 8);
  std::uint64_t first_steps = 0;
  std::set<std::uint32_t> leaves_node0;  // the rank each channel leaves node 0 from
  for (std::uint32_t c = 0; c < 4; ++c) {
    for (std::uint32_t i = 0; i < 8; ++i) {
      const Transfer& x = t[c * 112 + i];  // step 0 of channel c
      first_steps += x.bytes;
      if (x.source < 4 && x.target >= 4) leaves_node0.insert(x.source);
    }
    // Channel c's ring order in node 0 is c, c+1, ...: its step 0 starts at rank c.
    EXPECT_EQ(t[c * 112].source, c);
  }
  EXPECT_EQ(first_steps, 4003u);  // step 0 moves every byte once
  // Channel c leaves node 0 from rank (c + 3) mod 4: four channels, four different ranks.
  EXPECT_EQ(leaves_node0, (std::set<std::uint32_t>{0, 1, 2, 3}));
}

TEST(Collectives, HierarchicalScattersInsideReducesAcrossGathersInside) {
  // 2 nodes x 2 ranks, 400 B: reduce-scatter inside each node (1 step of 200 B),
  // each 200 B chunk's allreduce between the nodes (2 steps of 100 B), allgather
  // inside (1 step of 200 B).
  const auto t = expand_collective(CollectiveKind::HierarchicalAllreduce, shape(4, 1, 2), 400);
  ASSERT_EQ(t.size(), 4u + 8u + 4u);
  // Reduce-scatter: node 0 ranks 0 <-> 1, node 1 ranks 2 <-> 3.
  for (std::uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(t[i].bytes, 200u);
    EXPECT_TRUE(t[i].reduce);
    EXPECT_EQ(t[i].source / 2, t[i].target / 2);  // same node
  }
  // Between nodes: position p of node 0 with position p of node 1 (rank p <-> p + 2).
  for (std::uint32_t i = 4; i < 12; ++i) {
    EXPECT_EQ(t[i].bytes, 100u);
    EXPECT_EQ(t[i].source % 2, t[i].target % 2);
    EXPECT_NE(t[i].source / 2, t[i].target / 2);
  }
  EXPECT_TRUE(t[4].reduce);
  EXPECT_FALSE(t[6].reduce);  // the second step gathers
  // The first step between nodes at rank 0 waits for what rank 0 received in
  // the reduce-scatter (transfer 1: rank 1 -> 0).
  EXPECT_EQ(t[4].source, 0u);
  EXPECT_EQ(t[4].after, (std::vector<std::uint32_t>{1}));
  // Allgather: rank 0's send waits for the last transfer it received between
  // nodes (transfer 7: the second step, rank 2 -> 0).
  EXPECT_EQ(t[12].source, 0u);
  EXPECT_EQ(t[7].source, 2u);
  EXPECT_EQ(t[7].target, 0u);
  EXPECT_EQ(t[12].after, (std::vector<std::uint32_t>{7}));
  for (std::uint32_t i = 12; i < 16; ++i) EXPECT_FALSE(t[i].reduce);
}

TEST(Collectives, NvlsGoesThroughTheSwitch) {
  // 2 ranks, 1600 B: slices of 800 B in 8 pieces of 100 B. Per piece of slice j:
  // both ranks send up, the switch delivers to j, j sends up, the switch sends to the other.
  const auto t = expand_collective(CollectiveKind::NvlsAllreduce, shape(2), 1600);
  ASSERT_EQ(t.size(), 8u * 2 * 5);
  std::map<std::uint32_t, std::uint64_t> up, down;
  for (const Transfer& x : t) {
    EXPECT_EQ(x.bytes, 100u);
    EXPECT_FALSE(x.reduce);  // the switch reduces, not the GPUs
    EXPECT_TRUE(x.source == Transfer::kSwitch || x.target == Transfer::kSwitch);
    if (x.target == Transfer::kSwitch) up[x.source] += x.bytes;
    if (x.source == Transfer::kSwitch) down[x.target] += x.bytes;
  }
  // Each rank sends its whole buffer up plus its own slice once more, and
  // receives its slice's sum and the other slice: (n + 1) / n and 1 buffer.
  EXPECT_EQ(up[0], 1600u + 800u);
  EXPECT_EQ(down[0], 1600u);
  // Piece 0 of slice 0: pushes 0, 1; delivery 2 after both; rank 0 up (3); to rank 1 (4).
  EXPECT_EQ(t[2].after, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(t[3].after, (std::vector<std::uint32_t>{2}));
  EXPECT_EQ(t[4].after, (std::vector<std::uint32_t>{3}));
  // Piece 1 of slice 0 (after slice 1's piece 0, transfers 5..9) waits for piece 0's delivery.
  EXPECT_EQ(t[10].after, (std::vector<std::uint32_t>{2}));
}

TEST(Collectives, BusBandwidthFactorsAreNcclTests) {
  const BusFactor ar = bus_bandwidth_factor(CollectiveKind::RingAllreduce, 8);
  EXPECT_EQ(ar.numerator * 8, 14u * ar.denominator);  // 2(n-1)/n
  const BusFactor ag = bus_bandwidth_factor(CollectiveKind::RingAllgather, 8);
  EXPECT_EQ(ag.numerator * 8, 7u * ag.denominator);  // (n-1)/n
}

}  // namespace cnuas
