// Checkpoint write throughput: a program whose device memory is MIB MiB of
// float data (a smooth signal plus pseudo-random low bits, about as
// compressible as trained weights) copied in by the host, then two small
// kernels. Checkpointing at launch 1 writes the whole image:
//   cnuas exec --checkpoint DIR --checkpoint-at 1 -- build/bench/checkpoint_bench 1536
// prints the seconds the write took and the file's size (docs/performance.md).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void touch(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.f;
}

int main(int argc, char** argv) {
  const std::size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1024;
  const std::size_t n = mib << 18;  // floats
  std::vector<float> host(n);
  std::uint32_t state = 12345;
  for (std::size_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    host[i] = std::sin(static_cast<float>(i) * 1e-3f) + static_cast<float>(state >> 16) * 1e-7f;
  }
  float* d = nullptr;
  if (cudaMalloc(&d, n * sizeof(float)) != cudaSuccess) return 1;
  if (cudaMemcpy(d, host.data(), n * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess)
    return 1;
  touch<<<4, 256>>>(d, 1024);
  touch<<<4, 256>>>(d, 1024);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  std::printf("PASS\n");
  return 0;
}
