// The lane adapter inside a running simulation: time order, arrival order,
// earliest lane and pinned lanes, each to the picosecond.
#include "basic/banked_memory.h"
#include "basic/pipe.h"
#include "sim/sim_harness.h"

namespace cnuas {
using namespace testing_support;

// 1 GB/s: 100 bytes take exactly 100 ns = 100000 ps.
static std::unique_ptr<Pipe> one_gbps_pipe(const char* name, const char* lanes = "1") {
  return make_element<Pipe>(name, {{"bandwidth", "1 GB/s"}, {"lanes", lanes}});
}

TEST(Scheduling, OutOfOrderArrivalsAreServedInTimeOrder) {
  auto pipe = one_gbps_pipe("shared");
  TestInitiator a("a"), b("b");
  a.out.bind(pipe->in);
  b.out.bind(pipe->in);
  Operation& late = make_operation("late", bytes(100), StageMode::Serial, {pipe.get()}, 0);
  Operation& early = make_operation("early", bytes(100), StageMode::Serial, {pipe.get()}, 1);
  // a delivers first (t=0) a request ready at 100 ns; b delivers later (t=10 ns)
  // one ready at 50 ns. Served in call order, "late" would start at 100 ns.
  a.plan(0, late, 100'000);
  b.plan(10'000, early, 50'000);
  sc_core::sc_start();
  auto e = stages_of("early"), l = stages_of("late");
  ASSERT_EQ(e.size(), 1u);
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(e[0].start_ps, 50'000u);
  EXPECT_EQ(e[0].end_ps, 150'000u);
  EXPECT_EQ(l[0].ready_ps, 100'000u);
  EXPECT_EQ(l[0].start_ps, 150'000u);
  EXPECT_EQ(l[0].end_ps, 250'000u);
  EXPECT_EQ(RunContext::current().trace()[0].op, early.index);  // booked first
  EXPECT_EQ(b.completed_ps.at("early"), 150'000u);
  EXPECT_EQ(a.completed_ps.at("late"), 250'000u);
}

TEST(Scheduling, EqualReadyTimesKeepArrivalOrder) {
  auto pipe = one_gbps_pipe("shared");
  TestInitiator a("a"), b("b");
  a.out.bind(pipe->in);
  b.out.bind(pipe->in);
  Operation& first = make_operation("zz_first", bytes(100), StageMode::Serial, {pipe.get()}, 0);
  Operation& second = make_operation("aa_second", bytes(100), StageMode::Serial, {pipe.get()}, 1);
  // Both ready at 100 ns; b's request arrives later (t=20 ns), so it goes second
  // whatever the names or creation order.
  b.plan(20'000, second, 100'000);
  a.plan(0, first, 100'000);
  sc_core::sc_start();
  EXPECT_EQ(stages_of("zz_first")[0].start_ps, 100'000u);
  EXPECT_EQ(stages_of("aa_second")[0].start_ps, 200'000u);
}

TEST(Scheduling, EarliestLaneWithTiesToLowestIndex) {
  auto pipe = one_gbps_pipe("multi", "2");
  TestInitiator a("a");
  a.out.bind(pipe->in);
  Operation& big = make_operation("big", bytes(300), StageMode::Serial, {pipe.get()});
  Operation& small = make_operation("small", bytes(100), StageMode::Serial, {pipe.get()});
  Operation& third = make_operation("third", bytes(100), StageMode::Serial, {pipe.get()});
  a.plan(0, big, 0);         // lane 0 (tie, lowest index): 0..300 ns
  a.plan(0, small, 0);       // lane 1: 0..100 ns
  a.plan(0, third, 50'000);  // lane 1 frees at 100 ns, lane 0 at 300 ns
  sc_core::sc_start();
  EXPECT_EQ(stages_of("big")[0].lane, 0u);
  EXPECT_EQ(stages_of("small")[0].lane, 1u);
  auto t = stages_of("third")[0];
  EXPECT_EQ(t.lane, 1u);
  EXPECT_EQ(t.start_ps, 100'000u);
  EXPECT_EQ(t.end_ps, 200'000u);
  EXPECT_EQ(pipe->lanes().busy_ps(0), 300'000u);
  EXPECT_EQ(pipe->lanes().busy_ps(1), 200'000u);
}

TEST(Scheduling, PinnedLanesFollowTheAddress) {
  auto mem = make_element<BankedMemory>("mem", {{"banks", "4"},
                                                {"bank_bandwidth", "1 GB/s"},
                                                {"interleave", "1 KiB"},
                                                {"access_latency", "10 ns"}});
  TestInitiator a("a");
  a.out.bind(mem->in);
  auto at = [](std::uint64_t address) {
    WorkDims d = bytes(100);
    d.set(WorkDim::Address, address);
    return d;
  };
  Operation& x = make_operation("x", at(2048), StageMode::Serial, {mem.get()});  // bank 2
  Operation& y =
      make_operation("y", at(6144), StageMode::Serial, {mem.get()});  // bank (6 mod 4) = 2
  Operation& z = make_operation("z", at(1024), StageMode::Serial, {mem.get()});  // bank 1
  a.plan(0, x, 0);
  a.plan(0, y, 0);
  a.plan(0, z, 0);
  sc_core::sc_start();
  auto sx = stages_of("x")[0], sy = stages_of("y")[0], sz = stages_of("z")[0];
  // 100 B at 1 GB/s holds the bank 100 ns (occupancy); the 10 ns access
  // latency follows while the bank already serves the next access.
  EXPECT_EQ(sx.lane, 2u);
  EXPECT_TRUE(sx.pinned());
  EXPECT_EQ(sx.free_ps, 100'000u);
  EXPECT_EQ(sx.end_ps, 110'000u);
  EXPECT_EQ(sy.lane, 2u);  // waits for its bank although banks 0 and 3 are idle
  EXPECT_EQ(sy.start_ps, 100'000u);
  EXPECT_EQ(sy.free_ps, 200'000u);
  EXPECT_EQ(sy.end_ps, 210'000u);
  EXPECT_EQ(sz.lane, 1u);
  EXPECT_EQ(sz.start_ps, 0u);
}

}  // namespace cnuas
