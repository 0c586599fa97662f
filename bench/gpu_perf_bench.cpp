// Speed of the detailed GPU model: simulated warp instructions and SM cycles
// per CPU second in performance mode, against the PTX engine alone (functional
// mode), on the project's SGEMM, reduction and STREAM triad.
//
//   gpu_perf_bench [WORKLOADS.ptx] [ARCH=h100-sxm] [SGEMM_SIZE=256] [N=4194304] [STATS.json]
//
// STATS.json receives the performance model's statistics of the three kernels, to check that
// a change meant to make the model faster leaves its results byte-identical.
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <vector>

#include <systemc>

#include "bench_ptx.h"
#include "gpu/gpu_model.h"
#include "gpu/perf_json.h"
#include "ptx/executor.h"

using namespace cnuas;

namespace {

// CPU seconds of the process (all its threads): on a shared machine wall time also counts
// the time spent waiting for a core, and varied twofold from run to run.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double seconds_of(const std::function<void()>& f) {
  const double t0 = cpu_seconds();
  f();
  return cpu_seconds() - t0;
}

}  // namespace

// sc_main: the model is built of sc_modules (SystemC supplies main).
int sc_main(int argc, char* argv[]) {
  const std::string file = argc > 1 ? argv[1] : CNUAS_WORKLOADS_PTX;
  const std::string arch_name = argc > 2 ? argv[2] : "h100-sxm";
  const int n = argc > 3 ? std::atoi(argv[3]) : 256;
  const int elements = argc > 4 ? std::atoi(argv[4]) : 1 << 22;
  const std::string stats_file = argc > 5 ? argv[5] : "";
  std::ofstream stats_out;
  if (!stats_file.empty()) {
    stats_out.open(stats_file);
    if (!stats_out) {
      std::fprintf(stderr, "gpu_perf_bench: cannot write the statistics file %s\n",
                   stats_file.c_str());
      return 2;
    }
  }
  auto module = bench::load_ptx_or_exit(file);
  ptx::DeviceMemory mem;
  std::ostringstream printed;
  ptx::Executor exec(mem, printed);
  ptx::LoadedModule lm(module, mem);
  gpu::PerformanceGpu gpu("gpu", gpu::load_arch(arch_name));

  std::vector<float> ones(std::max<std::size_t>(std::size_t(n) * n, std::size_t(elements)), 1.0f);
  const std::uint64_t a = mem.allocate(ones.size() * 4), b = mem.allocate(ones.size() * 4),
                      c = mem.allocate(ones.size() * 4), sum = mem.allocate(4);
  mem.write(a, ones.data(), ones.size() * 4);
  mem.write(b, ones.data(), ones.size() * 4);

  struct Case {
    const char* name;
    ptx::LaunchConfig config;
  };
  std::vector<Case> cases(3);
  cases[0].name = "sgemm";
  cases[0].config.grid = {static_cast<std::uint32_t>(n / 16), static_cast<std::uint32_t>(n / 16),
                          1};
  cases[0].config.block = {16, 16, 1};
  cases[0].config.params = bench::params(*module->find("sgemm"), a, b, c, n, n, n, 1.0f, 0.0f);
  cases[1].name = "reduce_sum";
  cases[1].config.grid = {static_cast<std::uint32_t>(elements / 256 / 8), 1, 1};
  cases[1].config.block = {256, 1, 1};
  cases[1].config.params = bench::params(*module->find("reduce_sum"), a, sum, elements);
  cases[2].name = "triad";
  cases[2].config.grid = {static_cast<std::uint32_t>(elements / 256), 1, 1};
  cases[2].config.block = {256, 1, 1};
  cases[2].config.params = bench::params(*module->find("triad"), a, b, c, 3.0f, elements);

  std::printf("architecture %s; SGEMM %dx%dx%d; reduction and triad over %d floats\n",
              arch_name.c_str(), n, n, n, elements);
  std::printf("%-11s %12s %12s %10s %10s %12s %12s %9s\n", "kernel", "warp instr", "cycles",
              "func s", "perf s", "M winstr/s", "M cycles/s", "slowdown");
  nlohmann::json stats = nlohmann::json::array();
  for (Case& k : cases) {
    ptx::LaunchStats f;
    const double functional = seconds_of([&] { f = exec.launch(lm, k.name, k.config); });
    gpu::KernelRun r;
    const double perf = seconds_of([&] { r = gpu.run(exec, lm, k.name, k.config); });
    std::printf("%-11s %12llu %12llu %10.3f %10.3f %12.2f %12.3f %8.2fx\n", k.name,
                static_cast<unsigned long long>(f.warp_instructions),
                static_cast<unsigned long long>(r.cycles), functional, perf,
                static_cast<double>(f.warp_instructions) / perf / 1e6,
                static_cast<double>(r.cycles) / perf / 1e6, perf / functional);
    if (!stats_file.empty()) stats.push_back(gpu::kernel_json(r, gpu.arch()));
  }
  if (!stats_file.empty()) {
    stats_out << stats.dump(1) << "\n";
    if (!stats_out) {
      std::fprintf(stderr, "gpu_perf_bench: cannot write the statistics file %s\n",
                   stats_file.c_str());
      return 2;
    }
  }
  return 0;
}
