// L2 read bandwidth on the detailed GPU model (tests/gpu/l2_run.h): every SM reads an
// L2-resident buffer past L1; the slope between 2 and 6 passes over it.
//
//   gpu_l2_bench [ARCH=h100-sxm] [FLOAT4S_PER_THREAD=4]
#include <systemc>

#include <cstdio>
#include <cstdlib>

#include "l2_run.h"

using namespace cnuas;

int sc_main(int argc, char* argv[]) {
  const gpu::ArchConfig arch = gpu::load_arch(argc > 1 ? argv[1] : "h100-sxm");
  const std::uint32_t per_thread =
      argc > 2 ? static_cast<std::uint32_t>(std::strtoul(argv[2], nullptr, 10)) : 4;
  const gpu::testing::L2ReadResult r = gpu::testing::run_l2_read(arch, per_thread);
  const gpu::Counters& t = r.longer.total;
  std::printf(
      "architecture %s, buffer %.1f MiB: L2 read %.1f GB/s; L2 hit rate %.1f %%\n",
      arch.name.c_str(), static_cast<double>(r.buffer_bytes) / (1 << 20), r.bytes_per_s / 1e9,
      100.0 * static_cast<double>(t.l2_hits) / static_cast<double>(t.l2_hits + t.l2_misses));
  return 0;
}
