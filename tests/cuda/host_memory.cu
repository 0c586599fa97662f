// Device memory costs host memory only for what is touched, 2 MiB (the GPU's
// page) at a time, and touching past the host-memory budget
// (CNUAS_HOST_MEMORY_LIMIT) is a CUDA error, not the OOM killer.
//
//   lazy: seven 10 GiB allocations (70 GiB, legal on an 80 GB GPU) with one
//     4 KiB memset each: the process's resident memory grows by the touched
//     host pages, far below 64 MiB (seven 2 MiB chunks at most).
//   limit_kernel (limit 16 MiB): a kernel that writes one word in each of 4
//     chunks of a 1 GiB allocation commits 8 MiB, which fits beside what the
//     runtime itself touched (a few chunks: the small-allocation page, the
//     module's globals); one that writes 16 chunks (32 MiB) cannot fit in 16
//     MiB whatever else is committed: cudaErrorMemoryAllocation, sticky; the
//     reset frees the allocation, and its chunks return to the budget.
//   limit_copy (limit 16 MiB): a 32 MiB copy into fresh device memory fails
//     with cudaErrorMemoryAllocation.
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "check.h"

__global__ void touch_chunks(char* p, int chunks) {
  for (int i = 0; i < chunks; ++i) p[static_cast<size_t>(i) << 21] = 1;
}

namespace {

long resident_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  CHECK(argc >= 2);
  const std::string mode = argv[1];
  if (mode == "lazy") {
    char* p[7];
    CUDA_OK(cudaFree(nullptr));  // the runtime and platform are up
    const long before = resident_kib();
    for (char*& q : p) {
      CUDA_OK(cudaMalloc(&q, 10ull << 30));
      CUDA_OK(cudaMemset(q + (5ull << 30), 1, 4096));
    }
    CUDA_OK(cudaDeviceSynchronize());
    const long grown = resident_kib() - before;
    std::printf("70 GiB allocated, resident memory grew by %ld KiB\n", grown);
    CHECK(grown >= 0 && grown < 64 * 1024);
    std::printf("PASS\n");
    return 0;
  }
  char* p = nullptr;
  CUDA_OK(cudaMalloc(&p, 1ull << 30));
  if (mode == "limit_kernel") {
    touch_chunks<<<1, 1>>>(p, 4);
    CUDA_OK(cudaDeviceSynchronize());
    touch_chunks<<<1, 1>>>(p, 16);
    CHECK(cudaDeviceSynchronize() == cudaErrorMemoryAllocation);
    CHECK(cudaGetLastError() == cudaErrorMemoryAllocation);
    CHECK(cudaMemset(p, 0, 16) == cudaErrorMemoryAllocation);  // sticky
    CUDA_OK(cudaDeviceReset());
    CUDA_OK(cudaMalloc(&p, 1ull << 30));
    touch_chunks<<<1, 1>>>(p, 4);
    CUDA_OK(cudaDeviceSynchronize());
    std::printf("PASS\n");
    return 0;
  }
  if (mode == "limit_copy") {
    std::vector<char> host(32u << 20, 7);
    CHECK(cudaMemcpy(p, host.data(), host.size(), cudaMemcpyHostToDevice) ==
          cudaErrorMemoryAllocation);
    std::printf("PASS\n");
    return 0;
  }
  std::fprintf(stderr, "unknown case '%s'\n", mode.c_str());
  return 1;
}
