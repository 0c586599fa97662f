// Measures host-to-device and device-to-host copy times over a size sweep on a
// real GPU and prints them as a Cnuas observation set (CSV). Built and run by
// calibration/gpu/collect.sh on a machine with an NVIDIA GPU.
//
//   measure_copies TARGET [repetitions=5]
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#define CHECK(call)                                                                    \
  do {                                                                                 \
    cudaError_t status_ = (call);                                                      \
    if (status_ != cudaSuccess) {                                                      \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(status_)); \
      return 1;                                                                        \
    }                                                                                  \
  } while (0)

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s TARGET [repetitions]\n", argv[0]);
    return 2;
  }
  const std::string target = argv[1];
  const int repetitions = argc > 2 ? std::atoi(argv[2]) : 5;
  const size_t largest = size_t{1} << 30;
  void* host = nullptr;
  void* device = nullptr;
  CHECK(cudaMallocHost(&host, largest));  // pinned: DMA straight from host memory
  CHECK(cudaMalloc(&device, largest));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::printf("component,target,bytes,time,unit,repetition\n");
  for (int direction = 0; direction < 2; ++direction) {
    const char* suffix = direction == 0 ? "h2d" : "d2h";
    for (size_t bytes = 4096; bytes <= largest; bytes *= 2) {
      for (int r = -1; r < repetitions; ++r) {  // r = -1 warms up and is not reported
        CHECK(cudaEventRecord(start));
        if (direction == 0)
          CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice));
        else
          CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost));
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (r >= 0)
          std::printf("cnuas.pcie_root,%s-%s,%zu,%.3f,us,%d\n", target.c_str(), suffix, bytes, ms * 1000.0f, r);
      }
    }
  }
  CHECK(cudaFree(device));
  CHECK(cudaFreeHost(host));
  return 0;
}
