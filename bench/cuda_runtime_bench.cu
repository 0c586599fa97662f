// Host cost of the simulated CUDA runtime: how many small kernel launches,
// async copies and event round trips per second of wall-clock time it sustains,
// and the simulated time those operations took. Built with nvcc -cudart shared;
// run with build/bin/cnuas exec -- build/bench/cuda_runtime_bench.
#include <chrono>
#include <cstdio>

__global__ void bump(int* x) {
  x[threadIdx.x] += 1;
}

static double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main() {
  int* d = nullptr;
  int* h = nullptr;
  cudaMalloc(&d, 32 * sizeof(int));
  cudaMallocHost(&h, 32 * sizeof(int));
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);

  const int launches = 20000;
  auto t0 = std::chrono::steady_clock::now();
  cudaEventRecord(a, s);
  for (int i = 0; i < launches; ++i) bump<<<1, 32, 0, s>>>(d);
  cudaEventRecord(b, s);
  cudaEventSynchronize(b);
  double wall = seconds_since(t0);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  std::printf("kernel launches: %d in %.3f s wall = %.0f launches/s; %.3f ms simulated\n",
              launches, wall, launches / wall, ms);

  const int copies = 20000;
  t0 = std::chrono::steady_clock::now();
  cudaEventRecord(a, s);
  for (int i = 0; i < copies; ++i)
    cudaMemcpyAsync(h, d, 32 * sizeof(int), cudaMemcpyDeviceToHost, s);
  cudaEventRecord(b, s);
  cudaEventSynchronize(b);
  wall = seconds_since(t0);
  cudaEventElapsedTime(&ms, a, b);
  std::printf("async copies: %d in %.3f s wall = %.0f copies/s; %.3f ms simulated\n", copies,
              wall, copies / wall, ms);

  const int syncs = 5000;
  t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < syncs; ++i) {
    bump<<<1, 32, 0, s>>>(d);
    cudaStreamSynchronize(s);
  }
  wall = seconds_since(t0);
  std::printf("launch + synchronize: %d in %.3f s wall = %.0f round trips/s\n", syncs, wall,
              syncs / wall);
  return h[0] == launches ? 0 : 1;  // the copies ran after every launch of the first loop
}
