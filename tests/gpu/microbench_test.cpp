// Microbenchmarks whose timing is known by construction: each test builds a
// straight-line kernel with K dependent (or independent) operations, runs it
// for two values of K on fresh GPUs, and checks the per-operation slope
// against the latency the unit-arch.yaml profile configures. Fixed costs (the
// launch, the first cold misses, the final store draining) cancel in the slope.
#include <gtest/gtest.h>

#include <functional>

#include "gpu_harness.h"

namespace cnuas::gpu::testing {
namespace {

// Cycles per load of a pointer chase over `nodes` nodes, from K1 and K2 loads.
double chase_slope(std::uint64_t nodes, std::uint64_t stride, int k1, int k2) {
  auto cycles = [&](int k) {
    PerfDevice d(chase_kernel(k));
    const std::uint64_t ring = build_ring(d, nodes, stride);
    const std::uint64_t out = d.memory().allocate(8);
    const KernelRun r = d.perf("chase", {1, 1, 1}, {1, 1, 1}, ring, out);
    // The chase ends where the functional walk ends.
    std::uint64_t expect = ring;
    for (int i = 0; i < k; ++i) expect = ring + ((expect - ring) / stride + 1) % nodes * stride;
    EXPECT_EQ(d.download<std::uint64_t>(out, 1)[0], expect);
    return static_cast<double>(r.cycles);
  };
  return (cycles(k2) - cycles(k1)) / (k2 - k1);
}

// Latencies of the unit profile, composed along the model's path.
std::uint64_t flits(std::uint64_t bytes) {
  return (bytes + loaded_unit_arch().noc.flit_bytes - 1) / loaded_unit_arch().noc.flit_bytes;
}
// SM -> L1 miss -> NoC -> L2 -> NoC -> L1 -> SM, for one 32-byte sector (cycles at 1 GHz).
std::uint64_t l2_hit_cycles() {
  return loaded_unit_arch().l1.hit_latency + flits(loaded_unit_arch().noc.request_header_bytes) +
         loaded_unit_arch().noc.latency + loaded_unit_arch().l2.hit_latency +
         flits(loaded_unit_arch().l1.sector_bytes) + loaded_unit_arch().noc.latency;
}
std::uint64_t ns(std::uint64_t ps) {
  return ps / 1000;
}
std::uint64_t burst_cycles() {
  return 1;  // 32 B at 32 GB/s
}

TEST(GpuMicrobench, PointerChaseInL1GivesTheL1HitLatency) {
  // 8 nodes in 8 lines: after the first lap every load hits.
  EXPECT_DOUBLE_EQ(chase_slope(8, 128, 32, 96), loaded_unit_arch().l1.hit_latency);
}

TEST(GpuMicrobench, PointerChaseBeyondL1GivesTheL2HitLatency) {
  // 64 lines cycle through a 4-way, 8-set L1 with LRU: every load misses L1;
  // the 8 KiB ring fits the 64 KiB L2, so after the first lap every load hits there.
  EXPECT_DOUBLE_EQ(chase_slope(64, 128, 128, 256), static_cast<double>(l2_hit_cycles()));
  EXPECT_EQ(l2_hit_cycles(), 142u);  // 20 + 1 + 10 + 100 + 1 + 10
}

TEST(GpuMicrobench, ColdChaseWithinOneRowPaysCasLatencyOnly) {
  // Lines of one 4 KiB row, never seen before: L2 misses that hit the open row.
  const std::uint64_t dram = ns(loaded_unit_arch().dram.tCL_ps) + burst_cycles() +
                             ns(loaded_unit_arch().dram.controller_ps);
  EXPECT_DOUBLE_EQ(chase_slope(32, 128, 8, 24), static_cast<double>(l2_hit_cycles() + dram));
}

TEST(GpuMicrobench, ColdChaseAcrossRowsPaysPrechargeAndActivate) {
  // One line per 4 KiB row in the single bank: every access closes a row and opens another.
  const std::uint64_t hit = ns(loaded_unit_arch().dram.tCL_ps) + burst_cycles() +
                            ns(loaded_unit_arch().dram.controller_ps);
  const std::uint64_t miss =
      ns(loaded_unit_arch().dram.tRP_ps) + ns(loaded_unit_arch().dram.tRCD_ps) + hit;
  const double across = chase_slope(32, 4096, 8, 24);
  EXPECT_DOUBLE_EQ(across, static_cast<double>(l2_hit_cycles() + miss));
  const double within = chase_slope(32, 128, 8, 24);
  EXPECT_DOUBLE_EQ(across - within, static_cast<double>(ns(loaded_unit_arch().dram.tRP_ps +
                                                           loaded_unit_arch().dram.tRCD_ps)));
}

double alu_slope(const std::string& op, const std::string& type, bool dependent) {
  auto cycles = [&](int k) {
    PerfDevice d(alu_kernel(k, op, type, dependent));
    const std::uint64_t out = d.memory().allocate(8);
    return static_cast<double>(d.perf("alu", {1, 1, 1}, {32, 1, 1}, out).cycles);
  };
  return (cycles(48) - cycles(16)) / 32.0;
}

TEST(GpuMicrobench, DependentAluChainsIssueAtTheConfiguredLatency) {
  EXPECT_DOUBLE_EQ(alu_slope("add", "u32", true), loaded_unit_arch().sm.pipes[0].latency);
  EXPECT_DOUBLE_EQ(alu_slope("fma", "f32", true), loaded_unit_arch().sm.pipes[1].latency);
}

TEST(GpuMicrobench, IndependentAluInstructionsIssueAtTheInitiationInterval) {
  EXPECT_DOUBLE_EQ(alu_slope("add", "u32", false), loaded_unit_arch().sm.pipes[0].interval);
  EXPECT_DOUBLE_EQ(alu_slope("fma", "f32", false), loaded_unit_arch().sm.pipes[1].interval);
}

// K independent shared loads by 32 threads at word index tid * stride; the
// kernel ends with a store of the last one.
std::string shared_kernel(int k, int stride) {
  std::string s =
      ".visible .entry banks(.param .u64 out)\n{\n"
      "  .shared .align 4 .b8 buf[16384];\n"
      "  .reg .u32 %r<" +
      std::to_string(k + 8) +
      ">;\n  .reg .u64 %rd<2>;\n"
      "  ld.param.u64 %rd1, [out];\n"
      "  mov.u32 %r1, %tid.x;\n"
      "  mul.lo.u32 %r2, %r1, " +
      std::to_string(stride * 4) +
      ";\n"
      "  mov.u32 %r3, buf;\n"
      "  add.u32 %r2, %r2, %r3;\n";
  for (int i = 0; i < k; ++i) s += "  ld.shared.u32 %r" + std::to_string(i + 6) + ", [%r2];\n";
  s += "  st.global.u32 [%rd1], %r" + std::to_string(k + 5) + ";\n  ret;\n}\n";
  return ptx_module(s);
}

TEST(GpuMicrobench, SharedMemoryBankConflictsSerializeByTheirDegree) {
  for (const auto& [stride, ways] :
       std::vector<std::pair<int, int>>{{1, 1}, {2, 2}, {8, 8}, {32, 32}, {0, 1}, {33, 1}}) {
    std::uint64_t cycles[2], waves[2];
    const int ks[2] = {16, 48};
    for (int j = 0; j < 2; ++j) {
      PerfDevice d(shared_kernel(ks[j], stride));
      const std::uint64_t out = d.memory().allocate(8);
      const KernelRun r = d.perf("banks", {1, 1, 1}, {32, 1, 1}, out);
      cycles[j] = r.cycles;
      waves[j] = r.total.shared_wavefronts;
    }
    SCOPED_TRACE("stride " + std::to_string(stride));
    EXPECT_EQ((cycles[1] - cycles[0]) / 32, static_cast<std::uint64_t>(ways));
    EXPECT_EQ((cycles[1] - cycles[0]) % 32, 0u);
    EXPECT_EQ(waves[1] - waves[0], 32u * static_cast<std::uint64_t>(ways));
  }
}

}  // namespace
}  // namespace cnuas::gpu::testing

namespace cnuas::gpu::testing {
namespace {

TEST(GpuMicrobench, RefreshClosesTheOpenRowEveryInterval) {
  // A cold chase through one 4 KiB row: without refresh the row opens once;
  // with an all-bank refresh every 1 us, every refresh closes it, so the next
  // access activates it again, and the chase takes longer.
  auto run = [](std::uint64_t refi_ps, std::uint64_t rfc_ps) {
    ArchConfig arch = unit_arch();
    arch.dram.tREFI_ps = refi_ps;
    arch.dram.tRFC_ps = rfc_ps;
    PerfDevice d(chase_kernel(24), arch);
    const std::uint64_t ring = build_ring(d, 32, 128);
    return d.perf("chase", {1, 1, 1}, {1, 1, 1}, ring, d.memory().allocate(8));
  };
  const KernelRun plain = run(0, 0);
  const KernelRun refreshed = run(1'000'000, 200'000);
  EXPECT_EQ(plain.total.dram_activates, 1u);
  const std::uint64_t refreshes = refreshed.time_ps / 1'000'000;
  EXPECT_GE(refreshes, 3u);
  EXPECT_GE(refreshed.total.dram_activates, refreshes);
  EXPECT_LE(refreshed.total.dram_activates, refreshes + 1);
  EXPECT_GT(refreshed.cycles, plain.cycles);
}

TEST(GpuMicrobench, PerBankRefreshClosesEachBanksRowAtItsOwnTimes) {
  // Two banks, per-bank refresh every 1 us for 200 ns, bank b from
  // 1 us + b x 500 ns on: a cold chase through one 4 KiB row of bank b
  // re-activates it once per window of that bank that falls inside the run.
  auto run = [](std::uint64_t bank) {
    ArchConfig arch = unit_arch();
    arch.dram.banks = 2;
    arch.dram.tREFI_ps = 1'000'000;
    arch.dram.tRFC_ps = 200'000;
    arch.dram.refresh_per_bank = true;
    PerfDevice d(chase_kernel(24), arch);
    // Row r of the channel is in bank r % 2 (4 KiB rows): pick the half of
    // an 8 KiB block that lies in `bank`.
    const std::uint64_t block = d.memory().allocate(3 * 4096, 4096);
    const std::uint64_t ring = block + ((block / 4096) % 2 == bank ? 0 : 4096);
    for (std::uint64_t i = 0; i < 32; ++i) {
      const std::uint64_t next = ring + (i + 1) % 32 * 128;
      d.memory().write(ring + i * 128, &next, sizeof next);
    }
    return d.perf("chase", {1, 1, 1}, {1, 1, 1}, ring, d.memory().allocate(8));
  };
  for (std::uint64_t bank : {0u, 1u}) {
    const KernelRun r = run(bank);
    const std::uint64_t offset = bank * 500'000;
    const std::uint64_t windows =
        r.time_ps > 1'000'000 + offset ? (r.time_ps - offset) / 1'000'000 : 0;
    EXPECT_GE(windows, 3u) << "bank " << bank;
    // The first activate, plus one per window (the last may fall after the last access).
    EXPECT_GE(r.total.dram_activates, windows) << "bank " << bank;
    EXPECT_LE(r.total.dram_activates, windows + 1) << "bank " << bank;
  }
}

}  // namespace
}  // namespace cnuas::gpu::testing
