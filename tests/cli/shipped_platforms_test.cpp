// The shipped platforms pinned to figures derived by hand from their profiles,
// so that a timing change has to be deliberate.
//
// Every expected value is computed here from the profile figures it names,
// with the rules of docs/concepts.md: an occupancy and a latency are each exact
// and rounded up to the picosecond once; a stage takes the lane that frees
// first (ties: the lowest index) from max(ready, lane free), holds it for its
// occupancy, and its result follows after its latency; an engine (a NIC queue,
// a DMA engine) is held until its data has left the lane it feeds; a
// switch frame holds its ingress wire and, `latency` after it started there,
// its egress wire. Serial stages follow one another; in overlap a stage is
// ready when the previous one's main lane started plus its latency, and the
// operation ends with its slowest stage. At equal ready times stages are
// booked in arrival order. A change in those rules changes these pins: update
// the derivation beside a number, not only the number.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "cli/cli_harness.h"
#include "cli/hand_timing.h"

namespace cnuas {
using namespace testing_support;
using nlohmann::json;

namespace {

struct PlatformRun {
  json stats;
  std::vector<json> stages;  // stage records of the trace (power events left out)
};

PlatformRun run_platform(const std::string& name, bool trace = true) {
  const std::string stats = scratch_dir() + "/pin_" + name + ".json",
                    trace_file = scratch_dir() + "/pin_" + name + ".jsonl";
  std::string args = "run " + source_path("platforms/" + name + ".yaml") + " --stats " + stats;
  if (trace) args += " --trace " + trace_file;
  if (name == "with-plugin") args += std::string(" --plugin ") + CNUAS_EXAMPLE_PLUGIN;
  const CommandResult r = run_cnuas(args);
  EXPECT_EQ(r.exit_code, 0) << name << "\n" << r.err;
  PlatformRun out{json::parse(read_file(stats)), {}};
  if (trace)
    for (json& line : read_jsonl(trace_file))
      if (line.contains("op")) out.stages.push_back(std::move(line));
  return out;
}

std::uint64_t u(const json& value) {
  return value.get<std::uint64_t>();
}

std::vector<std::uint64_t> lane_busy(const json& element) {
  std::vector<std::uint64_t> out;
  for (const json& lane : element["lanes"]) out.push_back(u(lane["busy_ps"]));
  return out;
}

// Joules from microwatt-picoseconds (1e-18 J), without losing the integer part to rounding.
double joules(Wide uw_ps) {
  constexpr Wide kNano = 1'000'000'000;
  const Wide nanojoules = uw_ps / kNano;
  return static_cast<double>(static_cast<std::uint64_t>(nanojoules / kNano)) +
         static_cast<double>(static_cast<std::uint64_t>(nanojoules % kNano)) / 1e9;
}

constexpr std::uint64_t kUs = 1'000'000, kMs = 1'000'000'000;

// The busy time of lane `lane` of an element's stats.
std::uint64_t lane(const json& element, std::size_t index) {
  return u(element["lanes"][index]["busy_ps"]);
}

// profiles/gpu/h100-sxm.yaml: 3.35 TB/s HBM3, 989.4 TFLOP/s dense BF16, 4 us launch;
// one kernel lane (lane 0) and one device-memory lane for bytes-only work (lane 1).
// cnuas.gpu: bytes alone are a memory access (bytes + 2 x reduce_bytes at the
// last element) / bandwidth; a kernel is launch + max(flops / peak, bytes / bandwidth).
constexpr Wide kH100BytesPerS = 3'350'000'000'000, kH100FlopsPerS = 989'400'000'000'000;
const Exact kH100Launch = ps(4 * kUs);
std::uint64_t h100_access(Wide bytes) {
  return ceil_ps(at_rate(bytes, kH100BytesPerS));
}
std::uint64_t h100_kernel(Wide flops, Wide bytes) {
  return ceil_ps(kH100Launch +
                 larger(at_rate(flops, kH100FlopsPerS), at_rate(bytes, kH100BytesPerS)));
}

// profiles/pcie/gen5-x16.yaml on gen4-x16.yaml: 32 GT/s, x16, 128b/130b, 256 B
// payload and 26 B per TLP, 2 % of link time for DLLPs, two DMA engines feeding
// each port's link (lanes: port p's engines at 3p, 3p + 1, its link at 3p + 2).
std::uint64_t gen5_dma(Wide bytes) {
  return ceil_ps(pcie_dma(bytes, 32, 16, 2));
}

// profiles/switch/nvswitch-hgx-h100.yaml: 450 GB/s per port and direction; 500 ns
// port-to-port latency (cut-through): a frame's egress starts 500 ns after its ingress.
std::uint64_t nvswitch_wire(Wide bytes) {
  return ceil_ps(at_rate(bytes, 450'000'000'000));
}
constexpr std::uint64_t kNvswitchLatency = 500'000;

// profiles/switch/spectrum4-sn5600.yaml: 800 Gbit/s = 100e9 B/s per port, 300 ns.
std::uint64_t spectrum4_wire(Wide bytes) {
  return ceil_ps(at_rate(bytes, 100'000'000'000));
}
constexpr std::uint64_t kSpectrumLatency = 300'000;

// profiles/nic/connectx7-400g.yaml: 400 Gbit/s = 50e9 B/s, 4096 B MTU, 82 B per
// packet on the wire; 600 ns latency after the wire; 26.875 M messages/s per
// queue (37.2 ns, below every wire time here). Per direction: 8 queues, then
// the wire (towards the PCIe switch: lanes 0-7 and 8; towards the network:
// 9-16 and 17).
std::uint64_t connectx7_wire(Wide bytes) {
  return ceil_ps(nic_wire(bytes, 50'000'000'000, 4096, 82));
}
constexpr std::uint64_t kNicLatency = 600'000;

// profiles/mgmt/modbus-rtu-19200.yaml: (8 B request + 7 B response + 2 x 3.5
// characters of silence) = 22 characters x 11 bits at 19200 baud = 242 / 19200 s.
const std::uint64_t kModbusRead = ceil_ps(Exact{242 * kPsPerSecond, 19200});  // 12 604 166 667

// Microwatts, the unit of the power roll-up, from the profiles' watts.
constexpr Wide watts(Wide w) {
  return w * 1'000'000;
}

}  // namespace

// platforms/default.yaml writes its figures out (from host/xeon-icount,
// pcie/gen4-x16 and gpu/h100-sxm): host 1 ns per instruction, 8 lanes; PCIe
// Gen4 x16 with 256 B payload (default), 26 B per TLP, no DLLP share (default)
// and one DMA engine per port (ports: host, then gpu; lanes engine, link each);
// GPU 3.35 TB/s, 989.4 TFLOP/s, 4 us launch, 2 lanes, no memory lane.
TEST(ShippedPlatformPins, Default) {
  // Copies of 64 MiB with 20000 driver instructions:
  //   host   C = 20000 x 1 ns = 20 us
  //   PCIe   P = (67108864 + 262144 TLPs x 26 B) = 73924608 B x 8 x 130 / (16e9 x 128 x 16) s
  //            = 2 346 240 000 ps exactly, on the link (the engine feeding it is held as long)
  //   GPU    G = 67108864 B / 3.35e12 B/s = 20 032 496.7 -> 20 032 497 ps
  //   kernel K = 4 us + max(50e12 / 989.4e12 s = 50 535 678 188.8 ps,
  //                         80 GiB / 3.35e12 B/s = 25 641 595 797.0 ps) -> 50 539 678 189 ps
  // None has a latency: occupancy is all of it.
  const std::uint64_t C = 20 * kUs, P = ceil_ps(pcie_dma(64 * kMiB, 16, 16, 0)),
                      G = h100_access(64 * kMiB), K = h100_kernel(50'000'000'000'000, 80 * kGiB);
  EXPECT_EQ(P, 2'346'240'000u);
  EXPECT_EQ(K, 50'539'678'189u);
  // h2d is serial and repeats without an interval, so its two runs follow each
  // other: H = C + P + G each. The four kernels (interval 0: all ready at 2H)
  // share the GPU's two lanes: two end at 2H + K, two at 2H + 2K. d2h (serial)
  // then takes G + P + C = H, through the port towards the host.
  const std::uint64_t H = C + P + G;
  const PlatformRun run = run_platform("default");
  const json& s = run.stats;
  EXPECT_EQ(u(s["makespan_ps"]), 3 * H + 2 * K);  // 108 238 173 869 ps
  EXPECT_EQ(u(s["stages"]), 13u);                 // 2 x 3 + 4 + 3
  const json& gpu = s["elements"]["default.gpu"];
  EXPECT_EQ(u(gpu["stages"]), 7u);
  EXPECT_EQ(u(gpu["busy_ps"]), 3 * G + 4 * K);
  EXPECT_EQ(u(gpu["queue_wait_ps"]["max"]), K);  // the second pair of kernels waits for the first
  // Towards the host: d2h's engine and link; towards the gpu: the two h2d's.
  EXPECT_EQ(lane_busy(s["elements"]["default.pcie"]),
            (std::vector<std::uint64_t>{P, P, 2 * P, 2 * P}));
  EXPECT_EQ(u(s["elements"]["default.host"]["busy_ps"]), 3 * C);
  EXPECT_EQ(u(s["operations"]["d2h"]["end_ps"]), 3 * H + 2 * K);
}

// platforms/h100-node.yaml with workloads/gemm-offload.yaml.
TEST(ShippedPlatformPins, H100Node) {
  // host/doorbell: 1 us per operation, 1 lane.
  // pcie/gen5-x16: 128 MiB -> (134217728 + 524288 x 26) = 147849216 B x 8 x 130 x 100
  //   / (32e9 x 128 x 16 x 98) s = 2 394 122 448.98 -> P = 2 394 122 449 ps on a link.
  // memory/h100-sxm-hbm3: 5 banks of 670 GB/s, 4 KiB interleave: a 128 MiB access
  //   holds its bank H = 134217728 / 670e9 s = 200 324 967.2 -> 200 324 968 ps, then its
  //   400 ns access latency follows (the bank is free meanwhile).
  // compute/h100-sxm-bf16-dense: 989.4 TFLOP/s, 4 us, 1 lane:
  //   T = 4 us + 2 x 8192^3 / 989.4e12 s = 4 000 000 + 1 111 291 315.7 -> 1 115 291 316 ps.
  const std::uint64_t D = 1 * kUs, P = gen5_dma(128 * kMiB),
                      H = ceil_ps(at_rate(128 * kMiB, 670'000'000'000)), L = 400'000,
                      T = ceil_ps(ps(4 * kUs) +
                                  at_rate(Wide{2} * 8192 * 8192 * 8192, kH100FlopsPerS));
  EXPECT_EQ(P, 2'394'122'449u);
  EXPECT_EQ(H, 200'324'968u);
  EXPECT_EQ(T, 1'115'291'316u);
  // load_a and load_b (serial) are ready at 0; the doorbell's one lane takes A
  // over [0, D], B over [D, 2D]. Both then go towards hbm, through one link of
  // the root (two engines feed it): A holds it over [D, D + P], B from D + P to
  // D + 2P (its engine is held from 2D). Each has a bank of its own (address /
  // 4 KiB mod 5: A at 0 -> bank 0, B at 128 MiB = 32768 x 4 KiB -> bank 3): B
  // ends at D + 2P + H + L. gemm takes T.
  // store_c (overlap, bank 1: 256 MiB = 65536 x 4 KiB) holds its bank from the
  // gemm's end; the root's link towards the host is ready 400 ns later (the
  // bank's latency) and is the slowest stage: it ends after P.
  const std::uint64_t gemm_end = D + 2 * P + H + L + T;
  const PlatformRun run = run_platform("h100-node");
  const json& s = run.stats;
  EXPECT_EQ(u(s["makespan_ps"]), gemm_end + L + P);  // 8 499 783 631 ps
  EXPECT_EQ(u(s["operations"]["gemm"]["end_ps"]), gemm_end);
  EXPECT_EQ(lane_busy(s["elements"]["h100-node.hbm"]), (std::vector<std::uint64_t>{H, H, 0, H, 0}));
  // Root ports: host (engines 0, 1, link 2), hbm (engines 3, 4, link 5).
  EXPECT_EQ(lane_busy(s["elements"]["h100-node.pcie"]),
            (std::vector<std::uint64_t>{P, 0, P, P, 2 * P - D, 2 * P}));
  EXPECT_EQ(u(s["elements"]["h100-node.tensor"]["busy_ps"]), T);
  EXPECT_EQ(u(s["elements"]["h100-node.host"]["queue_wait_ps"]["max"]), D);  // load_b's doorbell
  // load_b waited D for the doorbell, then D + P - 2D for the link.
  EXPECT_EQ(u(s["elements"]["h100-node.pcie"]["queue_wait_ps"]["max"]), P - D);
}

// platforms/with-plugin.yaml: a cnuas.pipe feeding the example plugin's memory.
TEST(ShippedPlatformPins, WithPlugin) {
  // dma: 25 GB/s, 100 ns latency, 1 lane: 4096 B hold the lane D = 163 840 ps, then
  // the 100 ns latency follows while the lane serves the next write.
  // vendor_mem (plugins/example): 20 ns + ceil(4096 / 16) ns = V = 276 ns, 2 lanes.
  const std::uint64_t D = ceil_ps(at_rate(4096, 25'000'000'000)), Ld = 100'000, V = 276'000;
  // Four writes ready at 0, 50, 100, 150 ns (periodic), serial. Each is ready
  // before the previous leaves the dma's lane (50 ns < D), so the lane is busy
  // back to back: write i holds it over [iD, (i + 1)D] and reaches the memory
  // at (i + 1)D + Ld. The memory's two lanes alternate: writes 0 and 2 on
  // lane 0, 1 and 3 on lane 1; write 2 is ready at 3D + Ld = 591.52 ns after
  // write 0 left at D + Ld + V = 539.84 ns, so no write waits there.
  const PlatformRun run = run_platform("with-plugin");
  const json& s = run.stats;
  EXPECT_EQ(u(s["makespan_ps"]), 4 * D + Ld + V);  // 1 031 360 ps
  EXPECT_EQ(u(s["elements"]["with-plugin.dma"]["busy_ps"]), 4 * D);
  EXPECT_EQ(u(s["elements"]["with-plugin.dma"]["queue_wait_ps"]["max"]), 3 * D - 150'000);
  EXPECT_EQ(lane_busy(s["elements"]["with-plugin.vendor_mem"]),
            (std::vector<std::uint64_t>{2 * V, 2 * V}));
  EXPECT_EQ(u(s["elements"]["with-plugin.vendor_mem"]["queue_wait_ps"]["max"]), 0u);
}

// platforms/two-gpu-nvlink.yaml: two H200s joined by NVLink, fed over PCIe Gen5.
TEST(ShippedPlatformPins, TwoGpuNvlink) {
  // pcie/gen5-x16: 1 GiB -> (1073741824 + 4194304 x 26) = 1182793728 B
  //   -> 19 152 979 591.8 -> P = 19 152 979 592 ps on the link towards gpu[0].
  // gpu/h200-sxm: 4.8 TB/s, 1 kernel lane and the memory lane (lane 1):
  //   M = 1073741824 / 4.8e12 s = 223 696 213.3 -> 223 696 214 ps; a
  //   reducing receive reads the arrival and the local copy once more:
  //   R = 3 GiB / 4.8e12 s = 671 088 640 ps exactly.
  // link/nvlink4-x18: 18 x 200 Gbit/s, no line code = 450e9 B/s, one wire:
  //   W = 1073741824 / 450e9 s = 2 386 092 942.2 -> 2 386 092 943 ps (occupancy);
  //   0.3 m at 0.7 c: 0.3 / (0.7 x 299792458) s = 1 429.56 -> 1 430 ps (latency).
  const std::uint64_t P = gen5_dma(kGiB), M = ceil_ps(at_rate(kGiB, 4'800'000'000'000)),
                      R = ceil_ps(at_rate(3 * kGiB, 4'800'000'000'000));
  const std::uint64_t W = ceil_ps(at_rate(kGiB, 450'000'000'000)),
                      Lp = ceil_ps(Exact{3 * kPsPerSecond, Wide{7} * 299'792'458});
  EXPECT_EQ(W, 2'386'092'943u);
  EXPECT_EQ(Lp, 1'430u);
  EXPECT_EQ(R, 671'088'640u);
  // load (host -> pcie -> gpu[0], overlap) ends with its DMA: P. peer_copy
  // (gpu[0] -> nvlink[0] -> gpu[1]: of the two three-element routes the NVLink
  // one is declared first), overlap: W + Lp. The allreduce of 2 GiB over two
  // ranks: 1 GiB chunks, 2(n-1) = 2 steps of two transfers, one per direction;
  // step 0 reduces on arrival. A step takes W + Lp on its links: its sends'
  // reads (M) and its receives (M + R, after the sends' reads on the same
  // memory lane) end sooner.
  const std::uint64_t L = W + Lp;
  const PlatformRun run = run_platform("two-gpu-nvlink");
  const json& s = run.stats;
  EXPECT_EQ(u(s["makespan_ps"]), P + 3 * L);  // 26 311 262 711 ps
  const json& e = s["elements"];
  EXPECT_EQ(u(e["two-gpu-nvlink.nvlink[0]"]["stages"]), 3u);      // peer copy + one per step
  EXPECT_EQ(u(e["two-gpu-nvlink.nvlink[0]"]["busy_ps"]), 3 * W);  // the latency holds nothing
  EXPECT_EQ(u(e["two-gpu-nvlink.nvlink[1]"]["busy_ps"]), 2 * W);
  // A GPU's memory lane serves its accesses: gpu[0] the load, the peer copy's
  // send, and per step a send and a receive (R reducing, M not): 5M + R; a
  // receive arrives Lp after its step began, while the GPU's own send (M)
  // holds the memory lane: it waits M - Lp. gpu[1]: the peer copy's arrival,
  // then the same steps: 4M + R.
  EXPECT_EQ(u(e["two-gpu-nvlink.gpu[0]"]["busy_ps"]), 5 * M + R);
  EXPECT_EQ(lane(e["two-gpu-nvlink.gpu[0]"], 1), 5 * M + R);  // all on the memory lane
  EXPECT_EQ(u(e["two-gpu-nvlink.gpu[1]"]["busy_ps"]), 4 * M + R);
  EXPECT_EQ(u(e["two-gpu-nvlink.gpu[1]"]["queue_wait_ps"]["max"]), M - Lp);
  EXPECT_EQ(u(e["two-gpu-nvlink.pcie"]["busy_ps"]), 2 * P);  // an engine and its link
}

// platforms/hgx-h100-server.yaml: eight H100s on an NVSwitch, loaded over PCIe.
TEST(ShippedPlatformPins, HgxH100Server) {
  // host/xeon-icount: launch = 200000 x 1 ns + 8 requests x 2 us = 216 us; a load's driver
  //   submit 5000 x 1 ns = 5 us (8 lanes: no waiting).
  // pcie/gen5-x16 (root and switches): 256 MiB -> (268435456 + 1048576 x 26) B
  //   -> 4 788 244 897.96 -> P256 = 4 788 244 898 ps on a link.
  // gpu/h100-sxm: 128 MiB chunk M = 134217728 / 3.35e12 = 40 064 993.4 -> 40 064 994 ps;
  //   reducing receive R = 3 x 128 MiB / 3.35e12 = 120 194 980.3 -> 120 194 981 ps;
  //   256 MiB load 80 129 986.9 -> 80 129 987 ps;
  //   step = 4 us + max(2e12 / 989.4e12 s = 2 021 427 127.6, 4 GiB / 3.35e12 s =
  //   1 282 079 789.9) -> 2 025 427 128 ps.
  // switch/nvswitch-hgx-h100: N = 134217728 / 450e9 s -> 298 261 618 ps on each wire.
  const std::uint64_t launch = 200'000 * 1'000 + 8 * 2 * kUs, P256 = gen5_dma(256 * kMiB),
                      M = h100_access(128 * kMiB), R = h100_access(3 * 128 * kMiB),
                      N = nvswitch_wire(128 * kMiB),
                      step = h100_kernel(2'000'000'000'000, 4 * kGiB);
  EXPECT_EQ(P256, 4'788'244'898u);
  EXPECT_EQ(N, 298'261'618u);
  EXPECT_EQ(R, 120'194'981u);
  EXPECT_EQ(step, 2'025'427'128u);
  // load_gpu0 and load_gpu7 (overlap, after launch) leave the root by different
  // ports (towards pcie_sw[0] and pcie_sw[3]) and end with their DMAs: launch +
  // P256. The allreduce over gpu[0..7], 1 GiB: 128 MiB chunks, 2(n-1) = 14
  // steps, each transfer gpu[i] -> nvswitch -> gpu[i+1] (the NVLink
  // connections are declared first), overlap: it holds gpu[i]'s ingress wire
  // from the step's start, the egress wire towards gpu[i+1] from 500 ns later,
  // N each. A GPU reads its send (M), then its receive (R or M) waits for the
  // memory lane: both end sooner than N. So each step takes 500 ns + N, and
  // step follows on gpu[3]; the three BMC polls end at 3 ms, long before.
  const std::uint64_t allreduce_end = launch + P256 + 14 * (kNvswitchLatency + N);
  const PlatformRun run = run_platform("hgx-h100-server");
  const json& s = run.stats;
  EXPECT_EQ(u(s["makespan_ps"]), allreduce_end + step);  // 11 212 334 678 ps
  const json& c = s["collectives"]["allreduce"];
  EXPECT_EQ(u(c["start_ps"]), launch + P256);
  EXPECT_EQ(u(c["time_ps"]), 14 * (kNvswitchLatency + N));
  const json& e = s["elements"];
  const json& nvs = e["hgx-h100-server.nvswitch"];
  EXPECT_EQ(u(nvs["stages"]), 14u * 8);
  // 8 egress wires, then one ingress wire per GPU: each carries one frame per step.
  EXPECT_EQ(lane_busy(nvs), std::vector<std::uint64_t>(16, 14 * N));
  EXPECT_EQ(u(nvs["queue_wait_ps"]["max"]), 0u);
  // Per step a GPU's memory lane serves its send (M) and, after it, its
  // receive (R in the 7 reducing steps, M in the 7 others); the kernel runs on
  // the kernel lane.
  const std::uint64_t allreduce_gpu = 21 * M + 7 * R;
  EXPECT_EQ(u(e["hgx-h100-server.gpu[3]"]["busy_ps"]), allreduce_gpu + step);
  EXPECT_EQ(u(e["hgx-h100-server.gpu[0]"]["busy_ps"]), allreduce_gpu + h100_access(256 * kMiB));
  EXPECT_EQ(lane(e["hgx-h100-server.gpu[3]"], 0), step);           // the kernel lane
  EXPECT_EQ(lane(e["hgx-h100-server.gpu[3]"], 1), allreduce_gpu);  // the memory lane
  EXPECT_EQ(u(e["hgx-h100-server.gpu[1]"]["queue_wait_ps"]["max"]), M - kNvswitchLatency);
  // Root ports: host, then pcie_sw[0..3] (engines 3p, 3p + 1, link 3p + 2).
  std::vector<std::uint64_t> root(15, 0);
  root[3] = root[5] = root[12] = root[14] = P256;
  EXPECT_EQ(lane_busy(e["hgx-h100-server.root"]), root);
  EXPECT_EQ(u(e["hgx-h100-server.host"]["busy_ps"]), launch + 2 * 5 * kUs);
  EXPECT_EQ(u(e["hgx-h100-server.bmc"]["busy_ps"]), 3 * kMs);
}

// What the rack draws at `t` according to the trace: its idle power plus the
// active power of every main lane a stage holds then (a cross-check of the
// power roll-up from the trace, not a derivation).
static double load_from_trace(const std::vector<json>& stages, std::uint64_t t) {
  double load = 7272;
  for (const json& st : stages) {
    if (st.contains("part") || u(st["start_ps"]) > t || u(st["free_ps"]) <= t) continue;
    const std::string c = st["component"];
    for (const auto& [part, w] : std::vector<std::pair<const char*, double>>{{".gpu[", 560},
                                                                             {".nvswitch", 20},
                                                                             {".pcie_sw[", 5},
                                                                             {".root", 5},
                                                                             {".nic[", 2},
                                                                             {".tor", 10},
                                                                             {".bmc", 1}})
      if (c.find(part) != std::string::npos) load += w;
  }
  return load;
}

// platforms/rack-4x-hgx.yaml: four HGX servers, a ToR switch, an ORV3 shelf.
TEST(ShippedPlatformPins, Rack4xHgx) {
  // The allreduce: 32 ranks (server[0].gpu[0..7], server[1].gpu[0..7], ...),
  // 256 MiB per rank -> 8 MiB chunks, 2 x 31 steps of 32 transfers = 1984.
  // Inside a server a transfer is gpu -> nvswitch -> gpu; from server[s].gpu[7]
  // to server[s+1].gpu[0] it is gpu[7] -> pcie_sw[3] -> nic[6] -> tor ->
  // nic[0] -> pcie_sw[0] -> gpu[0] (the first shortest route found). Per transfer:
  const std::uint64_t M8 = h100_access(8 * kMiB),  // 2 504 062.1 -> 2 504 063 ps
      R8 = h100_access(3 * 8 * kMiB),              // 7 512 186.3 -> 7 512 187 ps
      N8 = nvswitch_wire(8 * kMiB),                // 18 641 351.1 -> 18 641 352 ps
      P8 = gen5_dma(8 * kMiB),                     // 9240576 B -> 149 632 653.06 -> 149 632 654 ps
      X8 = connectx7_wire(8 * kMiB),  // (8388608 + 2048 x 82) B / 50e9 = 171 130 880 ps
      T8 = spectrum4_wire(8 * kMiB);  // 8388608 B / 100e9 = 83 886 080 ps
  EXPECT_EQ(X8, 171'130'880u);
  EXPECT_EQ(T8, 83'886'080u);
  // compute: 20 TFLOP on server[2].gpu[5]: K = 4 us + 20e12 / 989.4e12 s -> 20 218 271 276 ps
  // on the kernel lane, from 0: the allreduce's transfers use the memory lane.
  const std::uint64_t K = h100_kernel(20'000'000'000'000, 0);
  // The allreduce is paced by the NIC wires: every server's gpu[7] runs up to
  // 7 steps ahead of its crossing (a crossing at step s needs the previous
  // server's crossing at step s - 8 and 7 NVLink hops of ~19 us), so the wire
  // of nic[6] towards the ToR carries its 62 chunks back to back from 0 (the
  // first send reaches it at once: every stage before it starts at 0). The
  // last chunk leaves it at 62 X8; 600 ns later (the NIC's latency) the ToR's
  // ingress takes it, its egress 300 ns later, the next server's nic[0] wire
  // at the same time; that wire frees X8 later and the NIC's 600 ns latency
  // follows. The PCIe link (P8) and the GPU after it end sooner.
  const std::uint64_t allreduce_end = 62 * X8 + kNicLatency + kSpectrumLatency + kNicLatency;
  // shelf_poll: every 20 ms from 0, serial: BMC sensor read 1 ms, one Modbus
  // transaction, the shelf's register read 1 ms. The last (ready 180 ms) ends
  // the run.
  const std::uint64_t poll = 1 * kMs + kModbusRead + 1 * kMs;
  const PlatformRun run = run_platform("rack-4x-hgx");
  const json& s = run.stats;
  EXPECT_EQ(u(s["makespan_ps"]), 180 * kMs + poll);  // 194 604 166 667 ps
  EXPECT_EQ(u(s["operation_groups"]["allreduce"]["count"]), 2u * 31 * 32);
  EXPECT_EQ(u(s["operations"]["compute"]["end_ps"]), K);
  const json& c = s["collectives"]["allreduce"];
  EXPECT_EQ(u(c["end_ps"]), allreduce_end);  // 10 611 614 560 ps
  // nccl-tests' figures: algbw = 256 MiB / time, busbw = algbw x 2 x 31 / 32.
  EXPECT_NEAR(c["algbw_GBps"].get<double>(), 268435456.0 / allreduce_end * 1000, 1e-3);
  EXPECT_NEAR(c["busbw_GBps"].get<double>(), 268435456.0 / allreduce_end * 1000 * 62 / 32, 1e-3);

  // Busy time is what the lanes were held: every GPU's memory lane serves 62
  // sends (M8), 31 reducing receives (R8) and 31 other receives (M8); a
  // server's NVSwitch carries its seven inner transfers per step, 7 x 62 = 434,
  // on an ingress and an egress wire each; each server's nic[6] wire towards
  // the ToR and its nic[0] wire towards pcie_sw[0] carry 62 chunks; so do
  // pcie_sw[3]'s link towards nic[6] (port 3: lane 11) and pcie_sw[0]'s
  // towards gpu[0] (port 1: lane 5); the ToR carries 4 x 62 frames in and out.
  const json& e = s["elements"];
  for (int server = 0; server < 4; ++server) {
    const std::string at = "rack-4x-hgx.server[" + std::to_string(server) + "].";
    for (int g = 0; g < 8; ++g) {
      const std::string name = at + "gpu[" + std::to_string(g) + "]";
      const bool kernel = server == 2 && g == 5;
      EXPECT_EQ(u(e[name]["stages"]), kernel ? 125u : 124u) << name;
      EXPECT_EQ(lane(e[name], 1), 93 * M8 + 31 * R8) << name;
      EXPECT_EQ(lane(e[name], 0), kernel ? K : 0) << name;
    }
    EXPECT_EQ(u(e[at + "nvswitch"]["stages"]), 434u);
    EXPECT_EQ(u(e[at + "nvswitch"]["busy_ps"]), 2 * 434 * N8);
    EXPECT_EQ(lane(e[at + "pcie_sw[3]"], 11), 62 * P8) << at;
    EXPECT_EQ(lane(e[at + "pcie_sw[0]"], 5), 62 * P8) << at;
    EXPECT_EQ(lane(e[at + "nic[6]"], 17), 62 * X8) << at;
    EXPECT_EQ(lane(e[at + "nic[0]"], 8), 62 * X8) << at;
  }
  EXPECT_EQ(u(e["rack-4x-hgx.tor"]["stages"]), 248u);
  EXPECT_EQ(u(e["rack-4x-hgx.tor"]["busy_ps"]), 2 * 248 * T8);
  EXPECT_EQ(u(e["rack-4x-hgx.modbus"]["busy_ps"]), 10 * kModbusRead);

  // Power (rack r0; the Modbus bus has no rack). Idle: per server host 200 W,
  // root and four PCIe switches 5 x 5 W, eight GPUs 8 x 140 W, eight NICs 8 x
  // 15 W, NVSwitch 200 W, BMC 3 W = 1668 W; x 4 + ToR 600 W = 7272 W.
  const json& rack = s["power"]["racks"]["r0"];
  const Wide idle = watts(4 * (200 + 5 * 5 + 8 * 140 + 8 * 15 + 200 + 3) + 600);
  EXPECT_EQ(rack["idle_w"].get<double>(), static_cast<double>(idle / watts(1)));  // 7272 W
  // Peak at 1.5 us: every GPU's memory lane reads its first send (until M8 =
  // 2.5 us) and server[2].gpu[5] runs the kernel (33 x 560 W); seven NVSwitch
  // egress wires per server (since 500 ns, 20 W); for each of the four
  // crossings the ToR's egress wire (since 900 ns, 10 W), both NIC wires (TX
  // since 0, RX since 900 ns, 2 W each), the sending pcie_sw[3]'s link (since
  // 0) and, from 1.5 us (the RX wire's start + the NIC's 600 ns), the
  // receiving pcie_sw[0]'s link (5 W each); the first poll's BMC read (1 W).
  // Engines and ingress wires draw nothing.
  EXPECT_EQ(rack["peak_w"].get<double>(),
            7272.0 + 33 * 560 + 4 * 7 * 20 + 4 * (10 + 2 * 2 + 2 * 5) + 1);  // 26 409 W
  EXPECT_EQ(u(rack["peak_at_ps"]), 2 * kNicLatency + kSpectrumLatency);
  // Energy: idle over the run plus active power over every main lane's busy time.
  const Wide active = watts(560) * (Wide{32} * (93 * M8 + 31 * R8) + K) + watts(20) * 4 * 434 * N8 +
                      watts(5) * 4 * 2 * 62 * P8 + watts(2) * 4 * 2 * 62 * X8 +
                      watts(10) * 248 * T8 + watts(1) * 10 * kMs;
  const Wide energy = idle * (180 * kMs + poll) + active;
  EXPECT_NEAR(rack["energy_j"].get<double>(), joules(energy), 1e-8);
  // The shelf's input: 97.5 % efficient supplies.
  EXPECT_NEAR(rack["input_energy_j"].get<double>(), joules(energy * 1000 / 975), 1e-8);

  // Supply failures at 10 ms and 20 ms: six 5.5 kW supplies, one in reserve.
  // At 20 ms the load is the idle draw plus the kernel (560 W, until 20.2 ms)
  // plus the BMC starting the second poll (1 W). At 10 ms the allreduce still
  // runs (it ends at 10.6 ms): that load is checked against the trace, not
  // derived. It never nears the rated 27.5 kW: no over_capacity; the working
  // supplies always cover the load: the battery (7.92 MJ) is never used.
  const json& events = s["power"]["events"];
  ASSERT_EQ(events.size(), 3u);
  const double at_10ms = load_from_trace(run.stages, 10 * kMs);
  EXPECT_GT(at_10ms, 7272.0 + 560);
  const std::vector<std::tuple<std::uint64_t, std::string, double, double>> expected = {
      {10 * kMs, "supply_failure", at_10ms, 5 * 5500.0},
      {10 * kMs, "redundancy_lost", at_10ms, 5 * 5500.0},
      {20 * kMs, "supply_failure", 7272.0 + 560 + 1, 4 * 5500.0}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto& [t, kind, load, capacity] = expected[i];
    EXPECT_EQ(u(events[i]["t_ps"]), t) << i;
    EXPECT_EQ(events[i]["event"], kind) << i;
    EXPECT_EQ(events[i]["load_w"].get<double>(), load) << i;
    EXPECT_EQ(events[i]["capacity_w"].get<double>(), capacity) << i;
    EXPECT_EQ(events[i]["battery_j"].get<double>(), 7'920'000.0) << i;
  }
  EXPECT_EQ(load_from_trace(run.stages, 2 * kNicLatency + kSpectrumLatency),
            rack["peak_w"].get<double>());
  // Telemetry: each read sees the load when it completes at the shelf. The
  // first (14.6 ms) sees the kernel running, after the allreduce; the others
  // the idle rack.
  const json& telemetry = rack["telemetry"];
  ASSERT_EQ(telemetry.size(), 10u);
  for (std::uint64_t i = 0; i < 10; ++i) {
    EXPECT_EQ(u(telemetry[i]["t_ps"]), i * 20 * kMs + poll) << i;
    EXPECT_EQ(telemetry[i]["load_w"].get<double>(), i == 0 ? 7272.0 + 560 : 7272.0) << i;
  }
}

// platforms/hgx-2node.yaml: two HGX servers, eight 400G NICs each, one leaf switch.
TEST(ShippedPlatformPins, Hgx2Node) {
  // ring: 16 ranks (server[0].gpu[0..7], server[1].gpu[0..7]), 1 GiB, 8 channels
  // of 128 MiB: 8 MiB chunks, 30 steps. Channel c's ring runs each server's
  // GPUs from c + 1, so it leaves a server from gpu[c] (c = 0..7: every NIC
  // sends one channel's crossings and receives another's), through its rail:
  // gpu[g] -> pcie_sw -> nic[g] -> leaf -> nic[g'] -> pcie_sw -> gpu[g'].
  const std::uint64_t M8 = h100_access(8 * kMiB), X8 = connectx7_wire(8 * kMiB),
                      X64 = connectx7_wire(64 * kMiB), N128 = nvswitch_wire(128 * kMiB);
  EXPECT_EQ(X64, 1'369'047'040u);  // (67108864 + 16384 x 82) B / 50e9
  // Each NIC's wire towards the leaf carries its channel's 30 chunks back to
  // back (the crossing at step s needs the other server's at s - 8 and 7 NVLink
  // hops: it is always queued in time). It starts once the sending GPU's
  // memory lane has read the chunk: in the first step every GPU reads one
  // chunk per channel, in channel order, so channel 7's first crossing waits
  // for 7 reads (7 M8). Its last chunk leaves at 7 M8 + 30 X8, reaches the
  // receiving NIC's wire 900 ns later (the NIC's latency, the leaf's), which
  // frees X8 later; the NIC's 600 ns latency follows.
  const std::uint64_t ring = 7 * M8 + 30 * X8 + kNicLatency + kSpectrumLatency + kNicLatency;
  // hierarchical: reduce-scatter in each server (7 steps of 128 MiB over the
  // NVSwitch: 500 ns + N128 each), each 128 MiB chunk's allreduce between the
  // servers over its rail (2 steps of 64 MiB, one each way per step: X64 on
  // each wire plus 1.5 us of latencies), allgather in each server (7 steps).
  const std::uint64_t hierarchical =
      14 * (kNvswitchLatency + N128) + 2 * (X64 + 2 * kNicLatency + kSpectrumLatency);
  const PlatformRun run = run_platform("hgx-2node");
  const json& s = run.stats;
  const json& c = s["collectives"];
  EXPECT_EQ(u(c["ring"]["time_ps"]), ring);                  // 5 152 954 841 ps
  EXPECT_EQ(u(c["hierarchical"]["start_ps"]), ring);         // after the ring
  EXPECT_EQ(u(c["hierarchical"]["time_ps"]), hierarchical);  // 6 923 756 732 ps
  EXPECT_EQ(u(s["makespan_ps"]), ring + hierarchical);
  EXPECT_EQ(u(c["ring"]["transfers"]), 8u * 30 * 16);
  EXPECT_EQ(u(c["ring"]["channels"]), 8u);
  // The NCCL figures: busbw = 1 GiB / time x 2 x 15 / 16. The ring's
  // textbook bound is the servers' eight NICs: each wire carries 2 x 15 / 16 x
  // 128 MiB, i.e. busbw <= 8 x 50e9 x 4096 / 4178 B/s (the payload's share of
  // the wire) = 392.2 GB/s; the simulated ring is within 0.5 % of it.
  const double busbw = c["ring"]["busbw_GBps"].get<double>();
  EXPECT_NEAR(busbw, 1073741824.0 / ring * 1000 * 30 / 16, 1e-3);
  EXPECT_LT(busbw, 8 * 50.0 * 4096 / 4178);
  EXPECT_GT(busbw, 0.995 * 8 * 50.0 * 4096 / 4178);
  // Every NIC's two wires (towards its PCIe switch: lane 8; towards the leaf:
  // lane 17) carry 30 ring chunks and 2 hierarchical ones.
  for (int server = 0; server < 2; ++server)
    for (int n = 0; n < 8; ++n) {
      const std::string name =
          "hgx-2node.server[" + std::to_string(server) + "].nic[" + std::to_string(n) + "]";
      EXPECT_EQ(lane(s["elements"][name], 17), 30 * X8 + 2 * X64) << name;
      EXPECT_EQ(lane(s["elements"][name], 8), 30 * X8 + 2 * X64) << name;
    }
}

// platforms/cluster-1024.yaml: 32 racks under 16 spines.
TEST(ShippedPlatformPins, Cluster1024) {
  // allreduce: 128 ranks (rack[r].server[k].gpu[0] in that order), 64 MiB ->
  // 512 KiB chunks, 2 x 127 steps x 128 = 32512 transfers; from server[k] to
  // server[k+1] of one rack: gpu[0] -> pcie_sw[0] -> nic[0] -> tor -> nic[0]
  // -> pcie_sw[0] -> gpu[0] (7 stages); from rack r's server[3] to rack r+1:
  // the same through tor -> spine -> tor (9 stages), the spine chosen per pair
  // of ends (ECMP).
  // background: all_to_all over rack[r].server[0].gpu[4], 32 ranks, 1 GiB ->
  // 32 MiB chunks, 31 rounds of 32 transfers (round k: rank i to rank i + k),
  // gpu[4] -> pcie_sw[2] -> nic[4] -> tor -> spine -> tor -> nic[4] ->
  // pcie_sw[2] -> gpu[4].
  const std::uint64_t X512 = connectx7_wire(512 * kKiB),  // (524288 + 128 x 82) x 20 ps
      X32 = connectx7_wire(32 * kMiB),                    // (33554432 + 8192 x 82) x 20 ps
      P32 = gen5_dma(32 * kMiB);                          // 36962304 B -> 598 530 613 ps
  EXPECT_EQ(X512, 10'695'680u);
  EXPECT_EQ(X32, 684'523'520u);
  EXPECT_EQ(P32, 598'530'613u);
  // The background is paced by its NICs: each rank's nic[4] sends its 31
  // chunks on one wire, back to back from 0 (its PCIe link feeds them faster:
  // P32 < X32), and in each round every rank receives exactly one chunk, on
  // its nic[4]'s other wire, in the same rhythm. The last chunk leaves a wire
  // at 31 X32, reaches the receiving NIC's wire 1.5 us later (the NIC's 600
  // ns, three switch ports' 300 ns each), which frees X32 later; the NIC's
  // 600 ns follow. The allreduce shares ToR and spine ports with it: a few of
  // its 512 KiB frames may delay the background a little (checked, not
  // derived: under 0.1 %).
  const std::uint64_t background =
      31 * X32 + 2 * kNicLatency + 3 * kSpectrumLatency;  // 21 222 329 120 ps
  const PlatformRun run = run_platform("cluster-1024", false);
  const json& s = run.stats;
  EXPECT_GE(u(s["makespan_ps"]), background);
  EXPECT_LT(u(s["makespan_ps"]), background + background / 1000);
  EXPECT_EQ(u(s["collectives"]["background"]["end_ps"]), u(s["makespan_ps"]));
  EXPECT_EQ(u(s["operations_count"]), 2u * 127 * 128 + 32 * 31);
  // The allreduce's first step inside rack 0 meets no other traffic: its NIC
  // wires (X512 each, the second from 900 ns) and the 600 ns NIC latency decide.
  EXPECT_EQ(u(s["operations"]["allreduce#0"]["end_ps"]), X512 + 2 * kNicLatency + kSpectrumLatency);
  EXPECT_EQ(u(s["operations"]["allreduce#0"]["stages"]), 7u);
  EXPECT_EQ(u(s["operations"]["allreduce#3"]["stages"]), 9u);

  const json& e = s["elements"];
  // The spines: 32 racks x 254 steps of the allreduce leave a rack, and all
  // 992 background transfers, spread over the 16 spines by ECMP.
  std::uint64_t spine_stages = 0;
  int spines_used = 0;
  for (int spine = 0; spine < 16; ++spine) {
    const std::uint64_t n = u(e["cluster-1024.spine[" + std::to_string(spine) + "]"]["stages"]);
    spine_stages += n;
    spines_used += n > 0;
  }
  EXPECT_EQ(spine_stages, 32u * 254 + 992);
  EXPECT_EQ(spines_used, 16);
  for (int r : {0, 17, 31}) {
    const std::string at = "cluster-1024.rack[" + std::to_string(r) + "].";
    // A ToR: 3 inner allreduce transfers per step, one out of the rack and one
    // in, over 254 steps; 31 background sends and 31 receives.
    EXPECT_EQ(u(e[at + "tor"]["stages"]), 5u * 254 + 62) << r;
    // pcie_sw[2]'s links towards gpu[4] (port 1: lane 5) and nic[4] (port 3: lane 11).
    EXPECT_EQ(lane(e[at + "server[0].pcie_sw[2]"], 5), 31 * P32) << r;
    EXPECT_EQ(lane(e[at + "server[0].pcie_sw[2]"], 11), 31 * P32) << r;
    EXPECT_EQ(lane(e[at + "server[0].nic[4]"], 8), 31 * X32) << r;
    EXPECT_EQ(lane(e[at + "server[0].nic[4]"], 17), 31 * X32) << r;
    EXPECT_EQ(lane(e[at + "server[1].nic[0]"], 8), 254 * X512) << r;
    EXPECT_EQ(lane(e[at + "server[1].nic[0]"], 17), 254 * X512) << r;
  }

  // Power: each rack idles at 7272 W (as in rack-4x-hgx); the spines, in no
  // rack, at 16 x 600 W. Nothing fails and no rack nears its 27.5 kW: no events.
  const json& racks = s["power"]["racks"];
  EXPECT_EQ(racks.size(), 33u);
  for (int r = 0; r < 32; ++r)
    EXPECT_EQ(racks["r" + std::to_string(r)]["idle_w"].get<double>(), 7272.0) << r;
  EXPECT_TRUE(s["power"]["events"].empty());
  EXPECT_EQ(racks["(no rack)"]["idle_w"].get<double>(), 16 * 600.0);
}

}  // namespace cnuas
