// PTX engine throughput: thread instructions per second on one core for a
// compute-bound kernel (tiled SGEMM) and a memory-bound one (STREAM triad).
//
//   ptx_bench [WORKLOADS.ptx] [SGEMM_SIZE=256] [TRIAD_N=4194304]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "bench_ptx.h"
#include "ptx/executor.h"

using namespace cnuas::ptx;

namespace {

void report(const char* name, const LaunchStats& s, double seconds) {
  std::printf(
      "%-8s %12llu warp instr %14llu thread instr %8.3f s  %7.1f M thread instr/s  %6.2f M warp "
      "instr/s\n",
      name, static_cast<unsigned long long>(s.warp_instructions),
      static_cast<unsigned long long>(s.thread_instructions), seconds,
      static_cast<double>(s.thread_instructions) / seconds / 1e6,
      static_cast<double>(s.warp_instructions) / seconds / 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string file = argc > 1 ? argv[1] : CNUAS_WORKLOADS_PTX;
  const int n = argc > 2 ? std::atoi(argv[2]) : 256;
  const int triad_n = argc > 3 ? std::atoi(argv[3]) : 1 << 22;
  auto module = cnuas::bench::load_ptx_or_exit(file);
  DeviceMemory mem;
  Executor exec(mem, std::cout);
  LoadedModule lm(module, mem);

  std::vector<float> host(static_cast<std::size_t>(n) * n, 1.0f);
  const std::uint64_t a = mem.allocate(host.size() * 4), b = mem.allocate(host.size() * 4),
                      c = mem.allocate(host.size() * 4);
  mem.write(a, host.data(), host.size() * 4);
  mem.write(b, host.data(), host.size() * 4);
  LaunchConfig cfg;
  cfg.grid = {static_cast<std::uint32_t>(n / 16), static_cast<std::uint32_t>(n / 16), 1};
  cfg.block = {16, 16, 1};
  cfg.params = cnuas::bench::params(*module->find("sgemm"), a, b, c, n, n, n, 1.0f, 0.0f);
  auto t0 = std::chrono::steady_clock::now();
  LaunchStats s = exec.launch(lm, "sgemm", cfg);
  auto t1 = std::chrono::steady_clock::now();
  std::printf("SGEMM %dx%dx%d, 16x16 tiles\n", n, n, n);
  report("sgemm", s, std::chrono::duration<double>(t1 - t0).count());

  const std::uint64_t x = mem.allocate(std::uint64_t{4} * triad_n),
                      y = mem.allocate(std::uint64_t{4} * triad_n),
                      z = mem.allocate(std::uint64_t{4} * triad_n);
  LaunchConfig tcfg;
  tcfg.grid = {static_cast<std::uint32_t>(triad_n / 256), 1, 1};
  tcfg.block = {256, 1, 1};
  tcfg.params = cnuas::bench::params(*module->find("triad"), x, y, z, 3.0f, triad_n);
  t0 = std::chrono::steady_clock::now();
  s = exec.launch(lm, "triad", tcfg);
  t1 = std::chrono::steady_clock::now();
  std::printf("STREAM triad, %d elements\n", triad_n);
  report("triad", s, std::chrono::duration<double>(t1 - t0).count());
  return 0;
}
