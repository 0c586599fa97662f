// Thread-block clusters, distributed shared memory and the TMA in the performance model, on the
// unit architecture (unit-arch.yaml: 1 GHz, 2 SMs, one scheduler, shared latency 24) with one
// GPC, clusters of up to 2 CTAs, an SM-to-SM network of latency 100 and 16 bytes per cycle, and
// a TMA of 8 bytes per cycle. As in the microbenchmarks, each timing takes the slope between two
// lengths K, so the fixed costs (launch, set-up, the cluster barriers, the final store) cancel.
#include <gtest/gtest.h>

#include "gpu_harness.h"

namespace cnuas::gpu::testing {
namespace {

constexpr std::uint32_t kDsmemLatency = 100, kDsmemBytesPerCycle = 16, kTmaBytesPerCycle = 8;

ArchConfig cluster_arch() {
  ArchConfig a = unit_arch();
  a.sm.gpcs = 1;
  a.sm.max_cluster = a.sm.max_cluster_non_portable = 2;
  a.sm.dsmem = {kDsmemLatency, kDsmemBytesPerCycle};
  a.sm.tma = {10, kTmaBytesPerCycle, 64};
  return a;
}

// Clusters of two CTAs of one warp. Entry j of each CTA's 32-entry table holds the cluster
// address (mapa) of its own entry (j + rank + 1) % 32. After a cluster barrier, lane 0 follows
// K links of the table of rank `target(rank)`: each load's address is the value the one before
// returned. It stores the entry index it ended at, its rank's %smid, and after a second cluster
// barrier (no CTA leaves while the other may read its table) returns.
// remote: the other CTA's table (DSMEM); else its own, through the same shared::cluster loads.
std::string chase_kernel(int k, bool remote) {
  std::string s = R"(
.visible .entry chase(.param .u64 out) .reqnctapercluster 2, 1, 1
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  .shared .align 4 .b32 table[32];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  add.u32 %r3, %r1, %r2;
  add.u32 %r3, %r3, 1;
  and.b32 %r3, %r3, 31;
  mov.u32 %r4, table;
  shl.b32 %r5, %r3, 2;
  add.u32 %r5, %r4, %r5;
  mapa.shared::cluster.u32 %r6, %r5, %r2;
  shl.b32 %r7, %r1, 2;
  add.u32 %r7, %r4, %r7;
  st.shared.u32 [%r7], %r6;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra done;
)";
  s += remote ? "  xor.b32 %r8, %r2, 1;\n" : "  mov.u32 %r8, %r2;\n";
  s += "  mapa.shared::cluster.u32 %r9, %r4, %r8;\n  mov.u32 %r10, %r9;\n";
  for (int i = 0; i < k; ++i) s += "  ld.shared::cluster.u32 %r10, [%r10];\n";
  s += R"(
  sub.u32 %r11, %r10, %r9;
  shr.u32 %r11, %r11, 2;
  mul.wide.u32 %rd2, %r2, 8;
  add.u64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %r11;
  mov.u32 %r12, %smid;
  st.global.u32 [%rd2+4], %r12;
done:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";
  return ptx_module(s);
}

struct ChaseRun {
  std::uint64_t cycles;
  std::vector<std::uint32_t> out;  // per rank: the entry reached, the SM
};

ChaseRun run_chase(int k, bool remote) {
  PerfDevice dev(chase_kernel(k, remote), cluster_arch());
  const std::uint64_t out = dev.upload(std::vector<std::uint32_t>(4, 0xffffffffu));
  const KernelRun r = dev.perf("chase", {2, 1, 1}, {32, 1, 1}, out);
  return {r.cycles, dev.download<std::uint32_t>(out, 4)};
}

TEST(Cluster, DsmemLoadsCrossTheNetworkWithItsLatency) {
  for (bool remote : {true, false}) {
    const ChaseRun a = run_chase(4, remote), b = run_chase(12, remote);
    // Host reference: table t links entry j to (j + t + 1) % 32, so K links from entry 0 of
    // table t end at entry K (t + 1) % 32.
    for (std::uint32_t rank = 0; rank < 2; ++rank) {
      const std::uint32_t t = remote ? rank ^ 1 : rank;
      EXPECT_EQ(a.out[2 * rank], 4 * (t + 1) % 32) << rank;
      EXPECT_EQ(b.out[2 * rank], 12 * (t + 1) % 32) << rank;
    }
    // One GPC of both SMs: the cluster's two CTAs one per SM.
    EXPECT_NE(a.out[1], a.out[3]);
    // Each dependent load waits for the one before: 100 cycles over the SM-to-SM network
    // (4 bytes take one cycle of the port), 24 for the CTA's own shared memory.
    const double per_load = static_cast<double>(b.cycles - a.cycles) / 8;
    EXPECT_DOUBLE_EQ(per_load, remote ? kDsmemLatency : 24.0) << (remote ? "remote" : "local");
  }
}

// Lane l of both CTAs reads entry l of the other CTA's table K times, into K registers (no
// dependence): each warp load moves 32 x 4 = 128 bytes through the SM's port, 8 cycles at 16
// bytes per cycle, so the port, not the latency, sets the pace.
std::string stream_kernel(int k) {
  std::string s = R"(
.visible .entry stream(.param .u64 out) .reqnctapercluster 2, 1, 1
{
  .reg .b32 %r<16>;
  .reg .b32 %v<)" +
                  std::to_string(k + 1) +
                  R"(>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 table[32];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r4, table;
  shl.b32 %r7, %r1, 2;
  add.u32 %r7, %r4, %r7;
  mad.lo.u32 %r3, %r2, 1000, %r1;
  st.shared.u32 [%r7], %r3;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  xor.b32 %r8, %r2, 1;
  mapa.shared::cluster.u32 %r9, %r7, %r8;
)";
  for (int i = 1; i <= k; ++i)
    s += "  ld.shared::cluster.u32 %v" + std::to_string(i) + ", [%r9];\n";
  s += R"(
  mad.lo.u32 %r5, %r2, 32, %r1;
  mul.wide.u32 %rd2, %r5, 4;
  add.u64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %v)" +
       std::to_string(k) + R"(;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";
  return ptx_module(s);
}

TEST(Cluster, DsmemBandwidthOfTheSmPort) {
  auto run = [](int k) {
    PerfDevice dev(stream_kernel(k), cluster_arch());
    const std::uint64_t out = dev.upload(std::vector<std::uint32_t>(64, 0));
    const KernelRun r = dev.perf("stream", {2, 1, 1}, {32, 1, 1}, out);
    const std::vector<std::uint32_t> got = dev.download<std::uint32_t>(out, 64);
    for (std::uint32_t rank = 0; rank < 2; ++rank)
      for (std::uint32_t l = 0; l < 32; ++l)  // the other CTA's entry l: 1000 x its rank + l
        EXPECT_EQ(got[32 * rank + l], 1000 * (rank ^ 1) + l) << rank << " " << l;
    return r.cycles;
  };
  const std::uint64_t a = run(8), b = run(24);
  EXPECT_DOUBLE_EQ(static_cast<double>(b - a) / 16, 128.0 / kDsmemBytesPerCycle);
}

// One thread issues K bulk copies of 4 KiB from global memory into shared memory, all completing
// on one mbarrier that expects their bytes, waits for its phase, then stores the last word of
// the last copy. The TMA requests one 128-byte line every 128 / 8 = 16 cycles (DRAM moves a line
// in 4, L2 in 2): a copy takes 32 x 16 = 512 cycles of the engine, and the wait ends when the
// last line arrived.
std::string tma_kernel(int k) {
  std::string s = R"(
.visible .entry tma(.param .u64 src, .param .u64 out)
{
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  .shared .align 128 .b8 buf[)" +
                  std::to_string(4096 * k) +
                  R"(];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra done;
  mov.u32 %r2, bar;
  mov.u32 %r3, buf;
  mbarrier.init.shared::cta.b64 [%r2], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], )" +
                  std::to_string(4096 * k) + ";\n";
  for (int i = 0; i < k; ++i)
    s += "  add.u32 %r4, %r3, " + std::to_string(4096 * i) + ";\n  add.u64 %rd3, %rd1, " +
         std::to_string(4096 * i) +
         ";\n  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r4], [%rd3], "
         "4096, [%r2];\n";
  s += R"(
wait:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], 0;
  @!%p1 bra wait;
  ld.shared.u32 %r5, [%r4+4092];
  st.global.u32 [%rd2], %r5;
done:
  ret;
}
)";
  return ptx_module(s);
}

TEST(Cluster, TmaCopiesCompleteTheirMbarrierWhenTheDataArrives) {
  auto run = [](int k, bool engine) {
    ArchConfig a = cluster_arch();
    if (!engine) a.sm.tma.bytes_per_cycle = 0;
    PerfDevice dev(tma_kernel(k), a);
    std::vector<std::uint32_t> data(1024 * k);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint32_t>(3 * i + 7);
    const std::uint64_t src = dev.upload(data, 4096);
    const std::uint64_t out = dev.upload(std::vector<std::uint32_t>(1, 0));
    const KernelRun r = dev.perf("tma", {1, 1, 1}, {32, 1, 1}, src, out);
    EXPECT_EQ(dev.download<std::uint32_t>(out, 1)[0], data.back());
    return r.cycles;
  };
  const std::uint64_t a = run(2, true), b = run(6, true);
  const double per_copy = static_cast<double>(b - a) / 4;
  // 512 by the engine's rate; a line's round trip may differ by a few cycles (DRAM rows).
  EXPECT_NEAR(per_copy, 4096.0 / kTmaBytesPerCycle, 4.0);
  // Without the engine a copy is one memory instruction whose transaction completes at issue.
  EXPECT_LT(run(6, false) + 4 * 256, b);
}

TEST(Cluster, LargerThanTheGpcIsRefused) {
  ArchConfig a = cluster_arch();
  a.sm.max_ctas = 1;  // two SMs of one CTA each hold a cluster of 2, never of 4
  a.sm.max_cluster = a.sm.max_cluster_non_portable = 4;
  std::string k = chase_kernel(1, true);
  k.replace(k.find(".reqnctapercluster 2"), 20, ".reqnctapercluster 4");
  PerfDevice dev(k, a);
  const std::uint64_t out = dev.upload(std::vector<std::uint32_t>(8, 0));
  try {
    dev.perf("chase", {4, 1, 1}, {32, 1, 1}, out);
    FAIL() << "a cluster of 4 ran on a GPC that holds 2";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("the largest GPC holds 2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace cnuas::gpu::testing
