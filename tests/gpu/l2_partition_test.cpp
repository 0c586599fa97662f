// The two L2 partitions of the H100 SXM profile, and its L2 bandwidth.
//
// h100-sxm: 80 slices, one per DRAM channel; consecutive 256-byte chunks go to consecutive
// channels, so chunk c is homed at slice c mod 80, in partition 0 for slices 0-39 and 1 for
// 40-79. SMs 0-67 (GPCs 0-3) are near partition 0. A single-CTA kernel runs on one of the first
// SMs (partition 0).
//
// Pointer chase per load, in SM cycles (SM, NoC and L2 all at 1.98 GHz):
//  - near (the line homed, or copied, in partition 0): the profile's L2 chase, 260 cycles
//    (L1 tag 33 + request flit 1 + NoC 62 + L2 hit 100 + response flit 1 + NoC 62 + the
//    cycle boundaries), as gpu_latency_bench measures it;
//  - far (homed in partition 1, no copy yet): the near slice looks for a copy (the hit latency,
//    100 L2 cycles), sends the request across the partition crossbar (8-byte header at 128 B a
//    cycle, 0.0625, + far_latency 57), the home slice hits (100, already counted in the near
//    path) and sends the 32-byte sector back (0.25 + 57): 260 + 100 + 114 + 0.3 = 474.3
//    (the model: 474, the fraction lost at cycle boundaries). Published: 265.5 and 475 cycles
//    (te42kyfo/gpu-benches, gpu-latency/h100_pcie.txt: a chase within half the L2, and beyond it).
#include <gtest/gtest.h>

#include <vector>

#include "gpu/address_map.h"
#include "gpu_harness.h"
#include "l2_run.h"
#include "stream_run.h"

namespace cnuas::gpu::testing {
namespace {

// rewrite: a walk that reads each node past L1 and writes it back: the line ends in its home
// slice, dirty, and the writes drop any copy in the SM's partition. walk: reads each node past
// L1, which leaves a copy of a far line in the SM's partition.
const char* kRewrite = R"(
.visible .entry rewrite(.param .u64 start, .param .u64 n)
{
  .reg .u64 %rd<5>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [start];
  ld.param.u64 %rd2, [n];
LOOP:
  ld.global.cg.u64 %rd3, [%rd1];
  st.global.u64 [%rd1], %rd3;
  mov.u64 %rd1, %rd3;
  sub.u64 %rd2, %rd2, 1;
  setp.ne.u64 %p1, %rd2, 0;
  @%p1 bra LOOP;
  ret;
}
.visible .entry walk(.param .u64 start, .param .u64 n)
{
  .reg .u64 %rd<5>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [start];
  ld.param.u64 %rd2, [n];
LOOP:
  ld.global.cg.u64 %rd1, [%rd1];
  sub.u64 %rd2, %rd2, 1;
  setp.ne.u64 %p1, %rd2, 0;
  @%p1 bra LOOP;
  ret;
}
)";

constexpr std::uint64_t kChunk = 256, kChannels = 80;

// Cycles of a K-load chase over `nodes` lines homed in `partition`, each node the first line
// of a chunk; `fresh`: the nodes are rewritten first (homed, no copy), else walked once first
// (copied to the near partition). Neither leaves them in an L1.
std::uint64_t chase_cycles(int k, std::uint32_t partition, bool fresh) {
  const std::uint32_t nodes = 64;
  PerfDevice d(chase_kernel(k) + kRewrite, load_arch("h100-sxm"));
  // From a chunk of channel 0 on.
  const std::uint64_t block = d.memory().allocate(kChunk * kChannels * (nodes + 1), kChunk);
  const std::uint64_t base =
      block + kChunk * ((kChannels - block / kChunk % kChannels) % kChannels);
  auto node = [&](std::uint32_t j) {
    return base + kChunk * (kChannels * j + partition * kChannels / 2 + j % (kChannels / 2));
  };
  for (std::uint32_t j = 0; j < nodes; ++j) {
    const std::uint64_t next = node((j + 1) % nodes);
    d.memory().write(node(j), &next, 8);
  }
  const std::uint64_t out = d.memory().allocate(8);
  const std::uint64_t start = node(0);
  d.perf(fresh ? "rewrite" : "walk", {1, 1, 1}, {1, 1, 1}, start, std::uint64_t{nodes});
  return d.perf("chase", {1, 1, 1}, {1, 1, 1}, start, out).cycles;
}

double per_load(std::uint32_t partition, bool fresh) {
  return static_cast<double>(chase_cycles(48, partition, fresh) -
                             chase_cycles(16, partition, fresh)) /
         32;
}

TEST(GpuL2Partitions, ANearLineHitsAtTheNearLatency) {
  EXPECT_NEAR(per_load(0, true), 260.0, 1.0);
}

TEST(GpuL2Partitions, AFarLineWithoutACopyHitsAtTheFarLatency) {
  EXPECT_NEAR(per_load(1, true), 474.3, 1.0);
}

TEST(GpuL2Partitions, AFarLineReadBeforeHitsItsNearCopy) {
  // The first chase left a copy of every node in partition 0: near latency.
  EXPECT_NEAR(per_load(1, false), 260.0, 1.0);
}

TEST(GpuL2Partitions, StreamingAddressesSpreadOverBothPartitions) {
  const ArchConfig arch = load_arch("h100-sxm");
  const AddressMap map(arch);
  // 1 MiB of consecutive lines: 4096 chunks, 51.2 per channel, half the channels in each
  // partition: 2048 chunks (8192 lines) each, within a chunk's rounding.
  std::uint64_t in[2] = {};
  for (std::uint64_t a = 0; a < (1 << 20); a += arch.l2.line_bytes)
    ++in[map.partition_of_slice(map.slice(a))];
  EXPECT_NEAR(static_cast<double>(in[0]), 4096.0, 2 * 40);
  EXPECT_NEAR(static_cast<double>(in[1]), 4096.0, 2 * 40);
  // An SM of the first GPC reads partition 1's lines at their mirror slice, in partition 0.
  EXPECT_EQ(map.near_slice(45, 0), 5u);
  EXPECT_EQ(map.near_slice(5, 0), 5u);
  EXPECT_EQ(map.near_slice(5, arch.sm.count - 1), 45u);
}

TEST(GpuL2Partitions, OnePartitionProfilesKeepOne) {
  const ArchConfig arch = load_arch("gtx-1080-ti");
  EXPECT_EQ(arch.l2.partitions, 1u);
  const AddressMap map(arch);
  for (std::uint32_t s = 0; s < arch.l2.slices; ++s)
    EXPECT_EQ(map.near_slice(s, arch.sm.count - 1), s);
}

// With few MSHRs per slice, both partitions' copy slices used to fill their
// tables with reads waiting on the other partition, whose home slices then had
// no entry for the fetches forwarded to them: every warp waited on memory for
// ever (seen on H200 with 53-byte slice ports and 64 MiB triad arrays). Copy
// entries never take a slice's last MSHR, so streaming finishes, and the
// fetches from the far half still go through the copy slices.
TEST(GpuL2Partitions, FarFetchesNeverDeadlockTheMshrs) {
  ArchConfig arch = load_arch("h100-sxm");
  arch.l2.mshrs = 2;
  arch.l2.size_bytes = 5 << 20;  // a tenth: the warm-up pass before the measured one shrinks too
  const StreamResult r = run_stream(arch, "triad", 1);
  EXPECT_GT(r.bytes_per_s, 0.0);
  EXPECT_GT(r.run.total.l2_misses, 0u);
}

TEST(GpuL2Bandwidth, H100L2ResidentReadWithinTenPercentOfThePublishedFigure) {
  // Published: 9.8 TB/s for an L2-resident read over 16-30 MB on H200 (te42kyfo/gpu-benches,
  // gpu-l2-cache/h200.txt), the same GH100 die, L2 (50 MB) and clock as H100 SXM (132 SMs,
  // 1.98 GHz). The profile's ceiling: 80 slices x 64 B x 1.98 GHz = 10.1 TB/s.
  const L2ReadResult r = run_l2_read(load_arch("h100-sxm"), 4);
  EXPECT_EQ(r.longer.total.l2_misses, 0u);  // resident: every sector hits
  EXPECT_NEAR(r.bytes_per_s / 1e12, 9.8, 0.98);
  EXPECT_LE(r.bytes_per_s / 1e12, 80 * 64 * 1.98e9 / 1e12);
}

}  // namespace
}  // namespace cnuas::gpu::testing
