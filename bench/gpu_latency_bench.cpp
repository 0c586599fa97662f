// What an architecture profile predicts for the classic microbenchmarks:
// pointer-chase latency in L1, L2 and DRAM, and the share of peak DRAM
// bandwidth a streaming read reaches. Compare with published measurements of
// the part (see the sources in its profile).
//
//   gpu_latency_bench [ARCH=h100-sxm]
#include <systemc>

#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "gpu/gpu_model.h"
#include "kernels.h"
#include "ptx/executor.h"

using namespace cnuas;

namespace {

struct Device {
  ptx::DeviceMemory memory;
  std::ostringstream printed;
  ptx::Executor executor{memory, printed};
};

std::vector<std::uint8_t> params(std::initializer_list<std::uint64_t> values) {
  std::vector<std::uint8_t> p(values.size() * 8);
  std::size_t k = 0;
  for (std::uint64_t v : values) std::memcpy(p.data() + 8 * k++, &v, 8);
  return p;
}

int g_models = 0;

// Cycles of a chase of `loads` loads over `nodes` nodes `stride` bytes apart.
std::uint64_t chase_cycles(const gpu::ArchConfig& arch, std::uint64_t nodes, std::uint64_t stride,
                           int loads) {
  Device d;
  auto module = ptx::Module::parse(gpu::testing::chase_kernel(loads), "chase.ptx");
  ptx::LoadedModule loaded(module, d.memory);
  const std::uint64_t base = d.memory.allocate(nodes * stride, 4096);
  for (std::uint64_t i = 0; i < nodes; ++i) {
    const std::uint64_t next = base + (i + 1) % nodes * stride;
    d.memory.write(base + i * stride, &next, 8);
  }
  ptx::LaunchConfig c;
  c.grid = {1, 1, 1};
  c.block = {1, 1, 1};
  c.params = params({base, d.memory.allocate(8)});
  gpu::PerformanceGpu gpu("gpu" + std::to_string(g_models++), arch);
  return gpu.run(d.executor, loaded, "chase", c).cycles;
}

double slope(const gpu::ArchConfig& arch, std::uint64_t nodes, std::uint64_t stride, int k1,
             int k2) {
  return static_cast<double>(chase_cycles(arch, nodes, stride, k2) -
                             chase_cycles(arch, nodes, stride, k1)) /
         (k2 - k1);
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  const gpu::ArchConfig arch = gpu::load_arch(argc > 1 ? argv[1] : "h100-sxm");
  const std::uint64_t l1_lines = arch.l1.size_bytes / arch.l1.line_bytes;
  std::printf("architecture %s (%u SMs at %.3f GHz)\n", arch.name.c_str(), arch.sm.count,
              arch.sm.clock_hz.to_double() / 1e9);
  std::printf("L1 hit latency   %7.1f cycles (chase over 8 lines)\n", slope(arch, 8, 128, 64, 192));
  // Twice the L1's lines: LRU misses every time; the ring fits L2.
  const std::uint64_t ring = 2 * l1_lines;
  std::printf("L2 hit latency   %7.1f cycles (chase over %llu lines)\n",
              slope(arch, ring, 128, static_cast<int>(2 * ring), static_cast<int>(4 * ring)),
              static_cast<unsigned long long>(ring));
  // Cold lines a row apart in one channel: every load misses L2 and opens a row.
  const std::uint64_t far =
      std::uint64_t{arch.dram.row_bytes} * arch.dram.channels * arch.dram.banks;
  std::printf("DRAM latency     %7.1f cycles (cold chase, %llu-byte stride)\n",
              slope(arch, 512, far, 64, 192), static_cast<unsigned long long>(far));

  // Streaming read: every SM full of warps, float4 per thread.
  Device d;
  auto module = ptx::Module::parse(gpu::testing::stream_kernel(), "stream.ptx");
  ptx::LoadedModule loaded(module, d.memory);
  const std::uint64_t n = std::uint64_t{arch.sm.count} * 64 * 1024;  // float4s
  const std::uint64_t a = d.memory.allocate(n * 16, 4096);
  ptx::LaunchConfig c;
  c.grid = {static_cast<std::uint32_t>(n / 256), 1, 1};
  c.block = {256, 1, 1};
  c.params = params({a, d.memory.allocate(4), n});
  gpu::PerformanceGpu gpu("stream", arch);
  const gpu::KernelRun r = gpu.run(d.executor, loaded, "stream", c);
  const double seconds = static_cast<double>(r.time_ps) * 1e-12;
  const double bandwidth =
      static_cast<double>(r.total.dram_reads * arch.dram.burst_bytes) / seconds;
  const double peak = (arch.dram.channel_bytes_per_s * Rational(arch.dram.channels)).to_double();
  std::printf("stream read      %7.1f GB/s of %.1f GB/s peak (%.1f %%), %llu MiB in %llu cycles\n",
              bandwidth / 1e9, peak / 1e9, 100 * bandwidth / peak,
              static_cast<unsigned long long>(n * 16 >> 20),
              static_cast<unsigned long long>(r.cycles));
  const std::uint64_t hits = r.total.dram_row_hits, activates = r.total.dram_activates;
  std::uint64_t data = 0, active = 0;
  for (std::uint64_t v : r.total.bank_data_ps) data += v;
  for (std::uint64_t v : r.total.channel_active_ps) active += v;
  std::printf("                 row hit rate %.1f %%, DRAM efficiency %.1f %%\n",
              100.0 * static_cast<double>(hits) / static_cast<double>(hits + activates),
              100.0 * static_cast<double>(data) / static_cast<double>(active));
  return 0;
}
