// The classic microbenchmarks on each shipped architecture profile against the
// figures their sources measured: dependent chains (latency, cycles per
// operation) and independent instructions on a full SM (throughput, operations
// per SM per cycle), each within 10 % of the figure, or of the nearest end of
// a range where the sources disagree. The tensor instructions are in
// tensor_rate_test.cpp, STREAM in published_test.cpp, L2 hits in
// l2_partition_test.cpp.
//
// Sources: [JMS] Luo et al.'s suite rerun on H100 SXM at 1980 MHz, CUDA 12.9
// (github.com/Johnsonms/NVIDIA-Hopper-Benchmark, reproduction/H100-dapperdingo/
// summary.md); [LUO] Luo et al., arXiv:2402.13499 (H800 PCIe, the same GH100 SM);
// [JIA] Jia et al., arXiv:1804.06826 (Pascal). The H200 has the H100's SM.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>

#include "gpu_harness.h"

namespace cnuas::gpu::testing {
namespace {

enum class Bench { AluLatency, AluThroughput, L1Chase, SharedChase, DramChase };

struct PublishedMicro {
  const char* name;
  const char* arch;
  Bench bench;
  const char* op;    // alu benches: "fma" or "add"
  const char* type;  // alu benches: "f32", "f64", "u32"
  double low, high;  // the published figure or range
};

void PrintTo(const PublishedMicro& p, std::ostream* os) {
  *os << p.arch << " " << p.name;
}

// K dependent loads of one shared word holding its own address.
std::string shared_chase_kernel(int k) {
  std::string s =
      ".visible .entry schase(.param .u64 out)\n{\n"
      "  .shared .align 8 .b8 buf[64];\n  .reg .u32 %r<3>;\n  .reg .u64 %rd<2>;\n"
      "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, buf;\n"
      "  st.shared.u32 [%r1], %r1;\n";
  for (int i = 0; i < k; ++i) s += "  ld.shared.u32 %r1, [%r1];\n";
  s += "  st.global.u32 [%rd1], %r1;\n  ret;\n}\n";
  return ptx_module(s);
}

// [JMS]'s DRAM latency benchmark (mem_lat_dram.cu): K dependent ld.global.cg (past L1)
// through a chain of pointers 32 bytes apart that no kernel touched before.
std::string dram_chase_kernel(int k) {
  std::string s =
      ".visible .entry dchase(.param .u64 start, .param .u64 out)\n{\n"
      "  .reg .u64 %rd<4>;\n"
      "  ld.param.u64 %rd1, [start];\n  ld.param.u64 %rd2, [out];\n";
  for (int i = 0; i < k; ++i) s += "  ld.global.cg.u64 %rd1, [%rd1];\n";
  s += "  st.global.u64 [%rd2], %rd1;\n  ret;\n}\n";
  return ptx_module(s);
}

// The figure the model gives for `p`, from runs of 16 and 48 operations (the DRAM chase:
// 4096 and 8192).
double model_figure(const PublishedMicro& p) {
  const ArchConfig arch = load_arch(p.arch);
  auto cycles = [&](int k) -> double {
    switch (p.bench) {
      case Bench::AluLatency:
      case Bench::AluThroughput: {
        const bool latency = p.bench == Bench::AluLatency;
        PerfDevice d(alu_kernel(k, p.op, p.type, latency), arch);
        // Throughput: one CTA of 32 warps on one SM, eight per scheduler.
        const std::uint32_t threads = latency ? 32 : 1024;
        const std::uint64_t out = d.memory().allocate(8);
        return static_cast<double>(d.perf("alu", {1, 1, 1}, {threads, 1, 1}, out).cycles);
      }
      case Bench::L1Chase: {
        PerfDevice d(chase_kernel(k), arch);
        // 8 lines: every load after the first lap hits.
        const std::uint64_t start = build_ring(d, 8, 128);
        return static_cast<double>(
            d.perf("chase", {1, 1, 1}, {1, 1, 1}, start, d.memory().allocate(8)).cycles);
      }
      case Bench::DramChase: {
        PerfDevice d(dram_chase_kernel(k), arch);
        const std::uint64_t start = build_ring(d, 8192, 32);
        return static_cast<double>(
            d.perf("dchase", {1, 1, 1}, {1, 1, 1}, start, d.memory().allocate(8)).cycles);
      }
      case Bench::SharedChase: {
        PerfDevice d(shared_chase_kernel(k), arch);
        return static_cast<double>(
            d.perf("schase", {1, 1, 1}, {1, 1, 1}, d.memory().allocate(8)).cycles);
      }
    }
    return 0;
  };
  // The DRAM chase: [JMS]'s 8192 loads, the slope over the second half.
  const bool dram = p.bench == Bench::DramChase;
  const int k1 = dram ? 4096 : 16, k2 = dram ? 8192 : 48;
  const double per_op = (cycles(k2) - cycles(k1)) / (k2 - k1);
  if (p.bench != Bench::AluThroughput) return per_op;
  // Operations per SM per cycle: 32 warps x 32 lanes, an FMA counting two.
  const double per_lane = std::string(p.op) == "fma" ? 2 : 1;
  return 32 * 32 * per_lane / per_op;
}

const PublishedMicro kPublished[] = {
    // H100 SXM [JMS]: latencies (cycles) and CUDA-core throughput (operations per SM per cycle).
    {"fp32_fma_latency", "h100-sxm", Bench::AluLatency, "fma", "f32", 4.07, 4.07},
    {"fp64_fma_latency", "h100-sxm", Bench::AluLatency, "fma", "f64", 8.04, 8.04},
    {"int32_add_latency", "h100-sxm", Bench::AluLatency, "add", "u32", 4.12, 4.12},
    {"fp32_fma_throughput", "h100-sxm", Bench::AluThroughput, "fma", "f32", 248.31, 248.31},
    {"fp64_fma_throughput", "h100-sxm", Bench::AluThroughput, "fma", "f64", 126.25, 126.25},
    // Shared memory 29.0 [LUO] and 29.015 [JMS]; an L1 hit 32.0 [LUO] (H800) to 41.12 [JMS].
    {"shared_latency", "h100-sxm", Bench::SharedChase, "", "", 29.0, 29.015},
    {"l1_latency", "h100-sxm", Bench::L1Chase, "", "", 32.0, 41.12},
    // [JMS]'s chase of 32-byte steps through arrays past the L2: 484 cycles from 64 MB up.
    {"dram_chase_latency", "h100-sxm", Bench::DramChase, "", "", 484.0, 484.0},
    {"fp32_fma_latency", "h200-sxm", Bench::AluLatency, "fma", "f32", 4.07, 4.07},
    {"fp32_fma_throughput", "h200-sxm", Bench::AluThroughput, "fma", "f32", 248.31, 248.31},
    {"shared_latency", "h200-sxm", Bench::SharedChase, "", "", 29.0, 29.015},
    {"l1_latency", "h200-sxm", Bench::L1Chase, "", "", 32.0, 41.12},
    // GTX 1080 Ti (Pascal) [JIA]: a dependent FP32 operation 6 cycles, an L1 hit about 82,
    // shared memory about 24.
    {"fp32_fma_latency", "gtx-1080-ti", Bench::AluLatency, "fma", "f32", 6.0, 6.0},
    {"l1_latency", "gtx-1080-ti", Bench::L1Chase, "", "", 82.0, 82.0},
    {"shared_latency", "gtx-1080-ti", Bench::SharedChase, "", "", 24.0, 24.0},
};

class GpuPublishedMicro : public ::testing::TestWithParam<PublishedMicro> {};

TEST_P(GpuPublishedMicro, WithinTenPercentOfThePublishedFigure) {
  const PublishedMicro& p = GetParam();
  const double model = model_figure(p);
  const double error = model < p.low    ? (model - p.low) / p.low
                       : model > p.high ? (model - p.high) / p.high
                                        : 0.0;
  EXPECT_LE(std::abs(error), 0.10)
      << p.arch << " " << p.name << ": model " << model << ", published " << p.low << "-" << p.high;
}

INSTANTIATE_TEST_SUITE_P(Profiles, GpuPublishedMicro, ::testing::ValuesIn(kPublished),
                         [](const ::testing::TestParamInfo<PublishedMicro>& param) {
                           std::string name =
                               std::string(param.param.arch) + "_" + param.param.name;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace cnuas::gpu::testing
