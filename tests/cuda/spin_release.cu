// Kernels that spin on memory something outside them sets later, as public
// programs do: the runtime cannot run such a kernel to its end when it is
// launched, so it stops the grid and continues it when the host next calls the
// runtime (docs/ptx-engine.md, "Grids that wait for the host").
//  - the host sets a pinned latch after launching a spinning kernel and the
//    work queued behind it (the UnifiedMemoryPerf pattern);
//  - a kernel on one stream waits for a flag a kernel launched later on another
//    stream sets;
//  - the host sets a managed flag, then launches more work before waiting;
//  - another host thread sets the latch while the launching one waits;
//  - a kernel waiting for a flag nothing sets fails the wait with
//    cudaErrorLaunchTimeout, as a watchdog-stopped kernel does.
#include <chrono>
#include <thread>

#include "check.h"

__global__ void wait_for_latch(volatile unsigned* latch, int* out) {
  while (latch[0] < 1) {
  }
  out[threadIdx.x] = static_cast<int>(latch[0]) * 100 + threadIdx.x;
}

__global__ void add_one(int* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

__global__ void set_flag(volatile int* flag, int value) {
  *flag = value;
}

__global__ void wait_for_flag(volatile int* flag, int* out) {
  while (*flag == 0) {
  }
  out[blockIdx.x] = *flag + blockIdx.x;
}

int main() {
  constexpr int kThreads = 32;
  // 1. The host releases the kernel after queueing a copy and a kernel behind it.
  unsigned* latch = nullptr;
  int *out = nullptr, *host = nullptr;
  CUDA_OK(cudaMallocHost(&latch, sizeof *latch));
  CUDA_OK(cudaMallocHost(&host, kThreads * sizeof(int)));
  CUDA_OK(cudaMalloc(&out, kThreads * sizeof(int)));
  CUDA_OK(cudaMemset(out, 0, kThreads * sizeof(int)));
  cudaStream_t s;
  CUDA_OK(cudaStreamCreate(&s));
  cudaEvent_t launched, released;
  CUDA_OK(cudaEventCreate(&launched));
  CUDA_OK(cudaEventCreate(&released));
  *latch = 0;
  CUDA_OK(cudaEventRecord(launched, s));
  wait_for_latch<<<1, kThreads, 0, s>>>(latch, out);
  CUDA_OK(cudaEventRecord(released, s));
  add_one<<<1, kThreads, 0, s>>>(out, kThreads);
  CUDA_OK(cudaMemcpyAsync(host, out, kThreads * sizeof(int), cudaMemcpyDeviceToHost, s));
  // Still waiting for the latch however long the host polls; each poll costs
  // the host 1 us of simulated time (docs/cuda-runtime.md).
  constexpr int kPolls = 200;
  for (int p = 0; p < kPolls; ++p) CHECK(cudaStreamQuery(s) == cudaErrorNotReady);
  *latch = 3;
  CUDA_OK(cudaStreamSynchronize(s));
  for (int t = 0; t < kThreads; ++t) CHECK(host[t] == 300 + t + 1);
  // The kernel cannot have ended before the host set the latch.
  float ms = 0;
  CUDA_OK(cudaEventElapsedTime(&ms, launched, released));
  CHECK(ms >= kPolls * 1e-3f);

  // 2. A kernel on another stream, launched later, sets the flag.
  int *flag = nullptr, *waited = nullptr;
  CUDA_OK(cudaMalloc(&flag, sizeof(int)));
  CUDA_OK(cudaMalloc(&waited, 4 * sizeof(int)));
  CUDA_OK(cudaMemset(flag, 0, sizeof(int)));
  cudaStream_t other;
  CUDA_OK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  cudaStream_t waiting;
  CUDA_OK(cudaStreamCreateWithFlags(&waiting, cudaStreamNonBlocking));
  wait_for_flag<<<4, 1, 0, waiting>>>(flag, waited);
  set_flag<<<1, 1, 0, other>>>(flag, 7);
  CUDA_OK(cudaDeviceSynchronize());
  int w[4] = {};
  CUDA_OK(cudaMemcpy(w, waited, sizeof w, cudaMemcpyDeviceToHost));
  for (int b = 0; b < 4; ++b) CHECK(w[b] == 7 + b);

  // 3. A managed flag the host sets before launching more work, then waits.
  int* managed = nullptr;
  CUDA_OK(cudaMallocManaged(&managed, sizeof(int)));
  *managed = 0;
  CUDA_OK(cudaMemset(waited, 0, 4 * sizeof(int)));
  wait_for_flag<<<2, 1, 0, s>>>(managed, waited);
  CUDA_OK(cudaStreamQuery(other));  // unrelated work completes meanwhile
  *managed = 5;
  add_one<<<1, 4, 0, s>>>(waited, 4);
  CUDA_OK(cudaStreamSynchronize(s));
  CUDA_OK(cudaMemcpy(w, waited, sizeof w, cudaMemcpyDeviceToHost));
  CHECK(w[0] == 6 && w[1] == 7 && w[2] == 1 && w[3] == 1);

  // 4. Another host thread sets the latch a second after the launch, while
  //    this one waits: a kernel sees host stores as they happen.
  *latch = 0;
  wait_for_latch<<<1, kThreads, 0, s>>>(latch, out);
  std::thread late([latch] {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    *reinterpret_cast<volatile unsigned*>(latch) = 4;
  });
  CUDA_OK(cudaStreamSynchronize(s));
  late.join();
  CUDA_OK(cudaMemcpy(host, out, kThreads * sizeof(int), cudaMemcpyDeviceToHost));
  for (int t = 0; t < kThreads; ++t) CHECK(host[t] == 400 + t);

  // 5. Nothing sets the flag: the wait fails as a watchdog-stopped kernel does.
  CUDA_OK(cudaMemset(flag, 0, sizeof(int)));
  wait_for_flag<<<1, 1, 0, s>>>(flag, waited);
  CHECK(cudaStreamSynchronize(s) == cudaErrorLaunchTimeout);
  std::printf("PASS\n");
  return 0;
}
