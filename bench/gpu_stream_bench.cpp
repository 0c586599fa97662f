// STREAM on the detailed GPU model: read, copy and triad over arrays of
// MIB MiB each, one float4 per thread, every SM full of warps. Bandwidth counts
// the bytes the kernel asks for (copy 2, triad 3 arrays), as STREAM does.
//
//   gpu_stream_bench [ARCH=h100-sxm] [MIB=64] [KERNELS=read,copy,triad]
#include <systemc>

#include <cstdio>
#include <cstdlib>
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

void put(std::vector<std::uint8_t>& p, const void* v, std::size_t bytes) {
  const std::size_t at = (p.size() + bytes - 1) / bytes * bytes;
  p.resize(at + bytes);
  std::memcpy(p.data() + at, v, bytes);
}

void report(const char* what, const gpu::ArchConfig& arch, const gpu::KernelRun& r,
            std::uint64_t bytes) {
  const double seconds = static_cast<double>(r.time_ps) * 1e-12;
  const double peak = (arch.dram.channel_bytes_per_s * Rational(arch.dram.channels)).to_double();
  std::printf("%-6s %8.1f GB/s (%.1f %% of %.1f GB/s peak), %llu cycles, row hits %.1f %%\n", what,
              static_cast<double>(bytes) / seconds / 1e9,
              100 * static_cast<double>(bytes) / seconds / peak, peak / 1e9,
              static_cast<unsigned long long>(r.cycles),
              100.0 * static_cast<double>(r.total.dram_row_hits) /
                  static_cast<double>(r.total.dram_row_hits + r.total.dram_activates + 1));
  std::uint64_t data = 0, noc = r.total.noc_busy_ps;
  for (std::uint64_t v : r.total.bank_data_ps) data += v;
  std::printf(
      "       DRAM bus busy %.1f %%, reads %llu writes %llu bursts, L2 hits %llu misses %llu, "
      "NoC port busy %.1f %%\n",
      100.0 * static_cast<double>(data) / (static_cast<double>(r.time_ps) * arch.dram.channels),
      static_cast<unsigned long long>(r.total.dram_reads),
      static_cast<unsigned long long>(r.total.dram_writes),
      static_cast<unsigned long long>(r.total.l2_hits),
      static_cast<unsigned long long>(r.total.l2_misses),
      100.0 * static_cast<double>(noc) /
          (static_cast<double>(r.time_ps) * (arch.sm.count + arch.l2.slices)));
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  const gpu::ArchConfig arch = gpu::load_arch(argc > 1 ? argv[1] : "h100-sxm");
  const std::uint64_t mib = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 64;
  const std::uint64_t n = (mib << 20) / 16;  // float4s per array
  const ptx::Dim3 block{256, 1, 1};
  const std::string kernels = argc > 3 ? argv[3] : "read,copy,triad";
  auto wanted = [&](const char* k) { return kernels.find(k) != std::string::npos; };
  std::printf("architecture %s, %llu MiB per array\n", arch.name.c_str(),
              static_cast<unsigned long long>(mib));
  for (const char* kernel : {"read", "copy", "triad"}) {
    if (!wanted(kernel)) continue;
    Device d;
    const std::string name = kernel;
    const std::string text = name == "read"   ? gpu::testing::stream_kernel()
                             : name == "copy" ? gpu::testing::stream_copy_kernel()
                                              : gpu::testing::stream_triad_kernel();
    const int arrays = name == "read" ? 1 : name == "copy" ? 2 : 3;
    auto module = ptx::Module::parse(text, name + ".ptx");
    ptx::LoadedModule loaded(module, d.memory);
    gpu::PerformanceGpu g(name, arch);
    // A first run over other arrays, together 1.5 times the L2, leaves the L2
    // holding what this kernel leaves there (its share of dirty lines), so the
    // measured run evicts as a long STREAM run does.
    const std::uint64_t warm = (arch.l2.size_bytes * 3 / 2 / arrays / 16 + 255) / 256 * 256;
    gpu::KernelRun r;
    for (const std::uint64_t count : {warm, n}) {
      std::vector<std::uint64_t> at;
      for (int i = 0; i < arrays; ++i) at.push_back(d.memory.allocate(count * 16, 4096));
      ptx::LaunchConfig c;
      c.grid = {static_cast<std::uint32_t>(count / 256), 1, 1};
      c.block = block;
      const float q = 3.0f;
      for (std::uint64_t a : at) put(c.params, &a, 8);
      if (name == "read") put(c.params, &at[0], 8);  // out: never written
      if (name == "triad") put(c.params, &q, 4);
      put(c.params, &count, 8);
      r = g.run(d.executor, loaded, name == "read" ? "stream" : name, c);
    }
    report(kernel, arch, r, arrays * n * 16);
  }
  return 0;
}
