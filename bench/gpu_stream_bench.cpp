// STREAM on the detailed GPU model: read, copy and triad over arrays of
// MIB MiB each (tests/gpu/stream_run.h), in the steady state of a long run.
//
//   gpu_stream_bench [ARCH=h100-sxm] [MIB=64] [KERNELS=read,copy,triad]
#include <systemc>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gpu/power_model.h"
#include "stream_run.h"

using namespace cnuas;

int sc_main(int argc, char* argv[]) {
  const gpu::ArchConfig arch = gpu::load_arch(argc > 1 ? argv[1] : "h100-sxm");
  const std::uint64_t mib = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 64;
  const std::string kernels = argc > 3 ? argv[3] : "read,copy,triad";
  const double peak = (arch.dram.channel_bytes_per_s * Rational(arch.dram.channels)).to_double();
  std::printf("architecture %s, %llu MiB per array, DRAM peak %.1f GB/s\n", arch.name.c_str(),
              static_cast<unsigned long long>(mib), peak / 1e9);
  for (const char* kernel : {"read", "copy", "triad"}) {
    if (kernels.find(kernel) == std::string::npos) continue;
    const gpu::testing::StreamResult s = gpu::testing::run_stream(arch, kernel, mib);
    const gpu::Counters& t = s.run.total;
    std::uint64_t data = 0;
    for (std::uint64_t v : t.bank_data_ps) data += v;
    const gpu::Energy energy = gpu::energy_of(t, arch, s.run.time_ps);
    const double seconds = static_cast<double>(s.run.time_ps) * 1e-12;
    std::printf(
        "%-6s %8.1f GB/s (%.1f %% of peak), %llu cycles; DRAM bus busy %.1f %%, row hits "
        "%.1f %%; power %.0f W (DRAM %.0f W)\n",
        kernel, s.bytes_per_s / 1e9, 100 * s.bytes_per_s / peak,
        static_cast<unsigned long long>(s.run.cycles),
        100.0 * static_cast<double>(data) /
            (static_cast<double>(s.run.time_ps) * arch.dram.channels),
        100.0 * static_cast<double>(t.dram_row_hits) /
            static_cast<double>(t.dram_row_hits + t.dram_activates + 1),
        energy.total() / seconds, energy.dram / seconds);
  }
  return 0;
}
