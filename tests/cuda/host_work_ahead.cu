// A host function's effect may run ahead of simulated time while the host is
// busy in its own code; simulated time, and so the trace and the statistics,
// must not depend on that. Run with an argument: the milliseconds the host
// computes (sleeps) after issuing the host function, before its next CUDA call.
// host_work_ahead.sh runs it with 0 and 200 ms and compares the outputs.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "check.h"

constexpr int kN = 4096;

__global__ void fill(int* out, int n, int k) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = k * i;
}

__global__ void add_into(int* out, const int* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] += in[i];
}

struct Seen {
  const int* data;
  std::atomic<long long> last{-1};
};

void CUDART_CB look(void* p) {
  auto* s = static_cast<Seen*>(p);
  s->last.store(s->data[kN - 1]);
}

int main(int argc, char** argv) {
  const int busy_ms = argc > 1 ? std::atoi(argv[1]) : 0;
  int *a = nullptr, *b = nullptr, *host = nullptr;
  CUDA_OK(cudaMalloc(&a, kN * sizeof(int)));
  CUDA_OK(cudaMalloc(&b, kN * sizeof(int)));
  CUDA_OK(cudaMallocHost(&host, kN * sizeof(int)));
  cudaStream_t s1, s2;
  CUDA_OK(cudaStreamCreate(&s1));
  CUDA_OK(cudaStreamCreate(&s2));

  // s1: a = 3i, copied to the host, then the host function reads the copy.
  fill<<<kN / 256, 256, 0, s1>>>(a, kN, 3);
  CUDA_OK(cudaMemcpyAsync(host, a, kN * sizeof(int), cudaMemcpyDeviceToHost, s1));
  Seen seen{host};
  CUDA_OK(cudaLaunchHostFunc(s1, look, &seen));
  // s2 runs concurrently on the device: b = 5i.
  fill<<<kN / 256, 256, 0, s2>>>(b, kN, 5);
  std::this_thread::sleep_for(std::chrono::milliseconds(busy_ms));
  // Busy for 200 ms, far beyond the helper's 40 ms: the host function has run
  // already, after the kernel and copy before it.
  if (busy_ms >= 200) CHECK(seen.last.load() == 3LL * (kN - 1));
  // After the host's own work: a += b on s1, behind the host function.
  add_into<<<kN / 256, 256, 0, s1>>>(a, b, kN);
  CUDA_OK(cudaStreamSynchronize(s2));
  CUDA_OK(cudaMemcpyAsync(host, a, kN * sizeof(int), cudaMemcpyDeviceToHost, s1));
  CUDA_OK(cudaStreamSynchronize(s1));

  // The host function saw the first copy: 3 * (kN - 1); the result is 8i.
  CHECK(seen.last.load() == 3LL * (kN - 1));
  for (int i = 0; i < kN; ++i) CHECK(host[i] == 8 * i);
  CUDA_OK(cudaFree(a));
  CUDA_OK(cudaFree(b));
  CUDA_OK(cudaFreeHost(host));
  std::printf("PASS\n");
  return 0;
}
