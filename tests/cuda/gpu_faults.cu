// GPU faults injected at simulated times (cnuas exec --faults FILE) as a CUDA
// program sees them, on the default platform (one H100-like GPU whose kernel
// lane holding is the 4 us launch overhead plus the kernel's instruction time,
// behind PCIe Gen4 x16). The first argument names the case; the faults files
// are in tests/cuda/faults/.
//
//   fail_running ERROR [reset_clears]: the fault (at 1 us) hits the first
//     kernel, running over [0, 4 us + a few ps]: its synchronize returns ERROR,
//     every later call too (sticky); cudaDeviceReset clears it (or, for a GPU
//     off the bus, does not).
//   fail_next ERROR: the fault (at 10 us) falls while no kernel runs: the first
//     kernel ended at about 4 us and a 64 MiB copy to the device (about 2.1 ms
//     at 31.5 GB/s) keeps the host busy past it; the next kernel fails.
//   run [throttled]: two equal kernels, a copy between them, all ending well;
//     prints the kernel times in ps and checks them against each other.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"

__global__ void count(int* out, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += i;
  *out = s;
}

namespace {

cudaError_t error_named(const char* name) {
  for (int e = 0; e < 1000; ++e)
    if (std::strcmp(cudaGetErrorName(static_cast<cudaError_t>(e)), name) == 0)
      return static_cast<cudaError_t>(e);
  return cudaErrorUnknown;
}

// A kernel launch timed by events, in simulated picoseconds (a float of
// milliseconds carries them to within a picosecond at these sizes).
double timed_count(int* out, int n) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a);
  count<<<1, 1>>>(out, n);
  cudaEventRecord(b);
  if (cudaEventSynchronize(b) != cudaSuccess) return -1;
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  return static_cast<double>(ms) * 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  CHECK(argc >= 2);
  const std::string mode = argv[1];
  int* out = nullptr;
  CUDA_OK(cudaMalloc(&out, sizeof(int)));
  if (mode == "fail_running") {
    CHECK(argc >= 3);
    const cudaError_t expected = error_named(argv[2]);
    const bool reset_clears = argc >= 4 && std::strcmp(argv[3], "reset_clears") == 0;
    count<<<1, 1>>>(out, 10);
    CHECK(cudaDeviceSynchronize() == expected);
    CHECK(cudaGetLastError() == expected);
    CHECK(cudaMemset(out, 0, sizeof(int)) == expected);  // sticky
    CHECK(cudaDeviceSynchronize() == expected);
    CUDA_OK(cudaDeviceReset());
    if (!reset_clears) {
      // The GPU is gone: nothing runs on it again in this process.
      CHECK(cudaMalloc(&out, sizeof(int)) == expected);
      std::printf("PASS\n");
      return 0;
    }
    CHECK(cudaGetLastError() == cudaSuccess);
    CUDA_OK(cudaMalloc(&out, sizeof(int)));
    count<<<1, 1>>>(out, 10);  // the fault is spent: a new context runs
    CUDA_OK(cudaDeviceSynchronize());
    int s = 0;
    CUDA_OK(cudaMemcpy(&s, out, sizeof s, cudaMemcpyDeviceToHost));
    CHECK(s == 45);
    std::printf("PASS\n");
    return 0;
  }
  if (mode == "fail_next") {
    CHECK(argc >= 3);
    const cudaError_t expected = error_named(argv[2]);
    count<<<1, 1>>>(out, 10);
    CUDA_OK(cudaDeviceSynchronize());  // ended at about 4 us, before the fault
    const std::size_t bytes = 64u << 20;
    std::vector<char> host(bytes, 1);
    char* big = nullptr;
    CUDA_OK(cudaMalloc(&big, bytes));
    CUDA_OK(cudaMemcpy(big, host.data(), bytes, cudaMemcpyHostToDevice));  // no kernel
    count<<<1, 1>>>(out, 10);
    CHECK(cudaDeviceSynchronize() == expected);
    CHECK(cudaMemcpy(big, host.data(), 16, cudaMemcpyHostToDevice) == expected);  // sticky
    std::printf("PASS\n");
    return 0;
  }
  if (mode == "run") {
    // Two equal kernels, a 64 MiB copy between them (about 2.1 ms): the
    // first runs before 20 us, the second after 1 ms.
    const double first = timed_count(out, 1000);
    const std::size_t bytes = 64u << 20;
    std::vector<char> host(bytes, 1);
    char* big = nullptr;
    CUDA_OK(cudaMalloc(&big, bytes));
    CUDA_OK(cudaMemcpy(big, host.data(), bytes, cudaMemcpyHostToDevice));
    const double second = timed_count(out, 1000);
    CHECK(first > 0 && second > 0);
    int s = 0;
    CUDA_OK(cudaMemcpy(&s, out, sizeof s, cudaMemcpyDeviceToHost));
    CHECK(s == 499500);
    std::printf("first %.0f ps second %.0f ps\n", first, second);
    if (argc >= 3 && std::strcmp(argv[2], "throttled") == 0) {
      // faults/throttle.yaml. The second kernel runs wholly at half the clock
      // (0.99 of 1.98 GHz): its lane holding W (launch overhead and
      // instructions) takes 2 W. The first starts at 0 with a third of the
      // clock (0.66 GHz) over [0, 1 us): in that microsecond it does
      // floor(1e6 / 3) = 333333 ps of its work, the rest at full speed from
      // 1 us, so it ends at 1e6 + W - 333333 = W + 666667 ps.
      const double w = second / 2;
      CHECK(first > w + 666667 - 2 && first < w + 666667 + 2);
    } else {
      CHECK(second > first - 1 && second < first + 1);
    }
    std::printf("PASS\n");
    return 0;
  }
  std::fprintf(stderr, "unknown case '%s'\n", mode.c_str());
  return 1;
}
