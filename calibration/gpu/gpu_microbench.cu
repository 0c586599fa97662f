// The GPU model's microbenchmarks as one CUDA program, to run both on real
// hardware and on the simulated GPU (cnuas exec --gpu-mode performance), so
// that the architecture profile can be compared with the part it describes.
// Latencies come from clock64() around a dependent pointer chase; on the
// simulated GPU clock64() reads the performance model's SM cycle.
//
//   nvcc -O2 -cudart shared -gencode arch=compute_90,code=compute_90 \
//        -o gpu_microbench calibration/gpu/gpu_microbench.cu
//   ./gpu_microbench                                   # on an H100/H200
//   cnuas exec --gpu-mode performance -- ./gpu_microbench
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_OK(call)                                                                    \
  do {                                                                                   \
    const cudaError_t e_ = (call);                                                       \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

// One thread: a lap to warm the caches, then `loads` timed dependent loads.
__global__ void chase(const unsigned long long* start, int warm, int loads, long long* cycles,
                      unsigned long long* sink) {
  unsigned long long p = reinterpret_cast<unsigned long long>(start);
  for (int i = 0; i < warm; ++i) p = *reinterpret_cast<const unsigned long long*>(p);
  const long long t0 = clock64();
  for (int i = 0; i < loads; ++i) p = *reinterpret_cast<const unsigned long long*>(p);
  const long long t1 = clock64();
  *cycles = t1 - t0;
  *sink = p;
}

// Cycles per load over a ring of `nodes` pointers `stride` bytes apart.
double chase_cycles(std::size_t nodes, std::size_t stride, int warm, int loads) {
  const std::size_t bytes = nodes * stride;
  std::vector<unsigned long long> host(bytes / 8, 0);
  unsigned long long* ring;
  long long* cycles;
  unsigned long long* sink;
  CUDA_OK(cudaMalloc(&ring, bytes));
  CUDA_OK(cudaMalloc(&cycles, sizeof(long long)));
  CUDA_OK(cudaMalloc(&sink, sizeof(unsigned long long)));
  for (std::size_t i = 0; i < nodes; ++i)
    host[i * stride / 8] = reinterpret_cast<unsigned long long>(ring) + (i + 1) % nodes * stride;
  CUDA_OK(cudaMemcpy(ring, host.data(), bytes, cudaMemcpyHostToDevice));
  chase<<<1, 1>>>(ring, warm, loads, cycles, sink);
  long long total = 0;
  CUDA_OK(cudaMemcpy(&total, cycles, sizeof total, cudaMemcpyDeviceToHost));
  CUDA_OK(cudaFree(ring));
  CUDA_OK(cudaFree(cycles));
  CUDA_OK(cudaFree(sink));
  return static_cast<double>(total) / loads;
}

int main() {
  cudaDeviceProp prop;
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  // L1: 8 lines, warmed. L2: 4096 lines (512 KiB, beyond L1, within L2), warmed.
  // DRAM: 256 nodes 256 KiB + 128 B apart, cold (no warm-up lap).
  std::printf("l1_cycles=%.1f\n", chase_cycles(8, 128, 8, 256));
  std::printf("l2_cycles=%.1f\n", chase_cycles(4096, 128, 4096, 2048));
  std::printf("dram_cycles=%.1f\n", chase_cycles(256, (256 << 10) + 128, 0, 255));
  return 0;
}
