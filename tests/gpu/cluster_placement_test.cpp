// Thread-block clusters on GPCs: the H100 profile's SMs split into its 8 GPCs, a cluster's
// CTAs all in one GPC, and the cluster size limits. Expectations are worked by hand below.
#include <gtest/gtest.h>

#include "gpu/arch_config.h"
#include "gpu/cluster_placement.h"

namespace cnuas::gpu {
namespace {

// 132 SMs = 66 TPC pairs over 8 GPCs: 66 = 8 x 8 + 2, so GPCs 0 and 1 hold 9 pairs (18 SMs) and
// GPCs 2-7 hold 8 (16 SMs); GPC 2 starts at SM 36, GPC 7 at 36 + 5 x 16 = 116.
TEST(ClusterPlacement, H100SmsSplitIntoEightGpcsByTpcPairs) {
  const ArchConfig h100 = load_arch("h100-sxm");
  const ClusterPlacement p(h100.sm);
  ASSERT_EQ(p.gpcs(), 8u);
  EXPECT_EQ(p.sms_in(0), 18u);
  EXPECT_EQ(p.sms_in(1), 18u);
  for (std::uint32_t g = 2; g < 8; ++g) EXPECT_EQ(p.sms_in(g), 16u) << g;
  EXPECT_EQ(p.first_sm(2), 36u);
  EXPECT_EQ(p.first_sm(7), 116u);
  EXPECT_EQ(p.gpc_of(17), 0u);
  EXPECT_EQ(p.gpc_of(18), 1u);
  EXPECT_EQ(p.gpc_of(131), 7u);
}

// Clusters of 2 on an idle GPU: the first in GPC 0 on SMs 0 and 1 (one CTA per SM in turn), the
// next in GPC 1 (round robin), starting at its first SM, 18.
TEST(ClusterPlacement, AClusterOfTwoSharesOneGpc) {
  const ArchConfig h100 = load_arch("h100-sxm");
  ClusterPlacement p(h100.sm);
  const std::vector<std::uint32_t> idle(132, 32);
  EXPECT_EQ(p.place(2, idle), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(p.place(2, idle), (std::vector<std::uint32_t>{18, 19}));
}

// GPC 0 with one free slot cannot take a cluster of 2, which goes to GPC 1; a cluster of 4 in a
// GPC whose SM 0 has 3 slots and SM 1 one: rounds over the SMs give 0, 1, then 0, 0.
TEST(ClusterPlacement, AFullGpcIsSkippedAndSlotsFillInRounds) {
  const ArchConfig h100 = load_arch("h100-sxm");
  std::vector<std::uint32_t> free(132, 0);
  free[5] = 1;
  free[18] = free[19] = 1;
  ClusterPlacement p(h100.sm);
  EXPECT_EQ(p.place(2, free), (std::vector<std::uint32_t>{18, 19}));
  std::vector<std::uint32_t> lopsided(132, 0);
  lopsided[0] = 3;
  lopsided[1] = 1;
  ClusterPlacement q(h100.sm);
  EXPECT_EQ(q.place(4, lopsided), (std::vector<std::uint32_t>{0, 1, 0, 0}));
  EXPECT_TRUE(q.place(5, lopsided).empty());  // no GPC has 5 free slots
}

// 16 CTAs exceed the portable 8 unless the kernel opts in; 17 exceed the H100's 16 either way;
// at one CTA per SM a 16-CTA cluster fits a GPC of 16 SMs, and placed on an idle GPU it takes
// SMs 0-15 of GPC 0.
TEST(ClusterPlacement, SixteenCtasNeedTheNonPortableOptIn) {
  const ArchConfig h100 = load_arch("h100-sxm");
  ClusterPlacement p(h100.sm);
  const std::string why = p.refusal(16, false, 1);
  EXPECT_NE(why.find("at most 8, 16 for a kernel that allows non-portable cluster sizes"),
            std::string::npos)
      << why;
  EXPECT_EQ(p.refusal(16, true, 1), "");
  EXPECT_EQ(p.refusal(8, false, 1), "");
  EXPECT_NE(p.refusal(17, true, 4).find("at most 16"), std::string::npos);
  std::vector<std::uint32_t> expect(16);
  for (std::uint32_t i = 0; i < 16; ++i) expect[i] = i;
  EXPECT_EQ(p.place(16, std::vector<std::uint32_t>(132, 1)), expect);
}

// A profile without clusters (Pascal: the default limit of 1 CTA).
TEST(ClusterPlacement, PartsBeforeHopperRunNoClusters) {
  const ArchConfig pascal = load_arch("gtx-1080-ti");
  const ClusterPlacement p(pascal.sm);
  EXPECT_NE(p.refusal(2, true, 1).find("at most 1"), std::string::npos);
  EXPECT_EQ(p.refusal(1, false, 1), "");
}

}  // namespace
}  // namespace cnuas::gpu
