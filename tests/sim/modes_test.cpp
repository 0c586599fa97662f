// Serial and overlap operations along a three-element path.
#include "basic/fixed_delay.h"
#include "basic/pipe.h"
#include "sim/sim_harness.h"

namespace cnuas {
using namespace testing_support;

struct ThreeStages {
  // 100 bytes: p1 = 10 ns + 100 ns, p2 = 50 ns, d3 = 30 ns.
  std::unique_ptr<Pipe> p1 =
      make_element<Pipe>("p1", {{"bandwidth", "1 GB/s"}, {"latency", "10 ns"}});
  std::unique_ptr<Pipe> p2 = make_element<Pipe>("p2", {{"bandwidth", "2 GB/s"}});
  std::unique_ptr<FixedDelay> d3 = make_element<FixedDelay>("d3", {{"delay", "30 ns"}});
  TestInitiator initiator{"initiator"};
  ThreeStages() {
    initiator.out.bind(p1->in);
    p1->out.bind(p2->in);
    p2->out.bind(d3->in);
  }
  std::vector<Element*> path() { return {p1.get(), p2.get(), d3.get()}; }
};

TEST(Modes, SerialStagesStartWhenThePreviousEnds) {
  ThreeStages t;
  Operation& op = make_operation("op", bytes(100), StageMode::Serial, t.path());
  t.initiator.plan(0, op, 1'000);
  sc_core::sc_start();
  auto s = stages_of("op");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].start_ps, 1'000u);
  EXPECT_EQ(s[0].end_ps, 111'000u);
  EXPECT_EQ(s[1].ready_ps, 111'000u);
  EXPECT_EQ(s[1].end_ps, 161'000u);
  EXPECT_EQ(s[2].ready_ps, 161'000u);
  EXPECT_EQ(s[2].end_ps, 191'000u);
  EXPECT_EQ(t.initiator.completed_ps.at("op"), 191'000u);
}

TEST(Modes, OverlapStagesStreamAndTheSlowestDecides) {
  ThreeStages t;
  Operation& op = make_operation("op", bytes(100), StageMode::Overlap, t.path());
  t.initiator.plan(0, op, 1'000);
  sc_core::sc_start();
  auto s = stages_of("op");
  ASSERT_EQ(s.size(), 3u);
  // A stage is ready when the previous one's data starts arriving: its start
  // plus its latency. p1 starts at 1 ns, holds its lane 100 ns and its 10 ns
  // latency follows: p2 is ready at 11 ns, d3 with p2 (no latency) at 11 ns.
  EXPECT_EQ(s[0].ready_ps, 1'000u);
  EXPECT_EQ(s[0].free_ps, 101'000u);
  EXPECT_EQ(s[0].end_ps, 111'000u);
  EXPECT_EQ(s[1].ready_ps, 11'000u);
  EXPECT_EQ(s[1].end_ps, 61'000u);
  EXPECT_EQ(s[2].ready_ps, 11'000u);
  EXPECT_EQ(s[2].end_ps, 41'000u);
  EXPECT_EQ(t.initiator.completed_ps.at("op"), 111'000u);  // the bottleneck stage
}

TEST(Modes, ContentionOnASharedMiddleStage) {
  ThreeStages t;
  Operation& a = make_operation("a", bytes(100), StageMode::Serial, t.path());
  Operation& b = make_operation("b", bytes(100), StageMode::Serial, t.path());
  t.initiator.plan(0, a, 0);
  t.initiator.plan(0, b, 0);
  sc_core::sc_start();
  // p1 holds its lane 100 ns per transfer and its 10 ns latency holds nothing:
  // a 0..100 (ends 110), b 100..200 (ends 210); p2 a 110..160, b 210..260;
  // d3 a 160..190, b 260..290 (ns).
  EXPECT_EQ(t.initiator.completed_ps.at("a"), 190'000u);
  EXPECT_EQ(t.initiator.completed_ps.at("b"), 290'000u);
  EXPECT_EQ(stages_of("b")[0].start_ps, 100'000u);
  EXPECT_EQ(stages_of("b")[0].start_ps - stages_of("b")[0].ready_ps,
            100'000u);  // b's queue wait at p1
}

}  // namespace cnuas
