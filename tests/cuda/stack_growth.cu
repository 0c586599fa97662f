// A kernel whose own frame (a 3000-byte local array indexed at run time) is
// larger than CUDA's default 1 KiB per-thread stack: the driver grows the
// stack for the launch and keeps it grown (cuCtxSetLimit: "The driver
// automatically increases the per-thread stack size for each kernel launch as
// needed. This size isn't reset back to the original value after each
// launch"), so the kernel runs and the stack-size limit reads at least 3000
// afterwards.
#include <cstdio>
#include <vector>

#include "check.h"

constexpr int kPerThread = 750, kThreads = 32;

// Each thread reverses its slice through the local array.
__global__ void reverse_through_local(const int* in, int* out, int n) {
  int buf[kPerThread];
  const int* mine = in + threadIdx.x * n;
  for (int i = 0; i < n; ++i) buf[i] = mine[i];
  for (int i = 0; i < n; ++i) out[threadIdx.x * n + i] = buf[n - 1 - i];
}

int main() {
  std::size_t before = 0, after = 0;
  CUDA_OK(cudaDeviceGetLimit(&before, cudaLimitStackSize));
  CHECK(before == 1024);  // CUDA's default
  std::vector<int> in(kPerThread * kThreads), out(in.size(), -1);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>(i * 7 + 3);
  int *din = nullptr, *dout = nullptr;
  CUDA_OK(cudaMalloc(&din, in.size() * sizeof(int)));
  CUDA_OK(cudaMalloc(&dout, out.size() * sizeof(int)));
  CUDA_OK(cudaMemcpy(din, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice));
  reverse_through_local<<<1, kThreads>>>(din, dout, kPerThread);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemcpy(out.data(), dout, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (int t = 0; t < kThreads; ++t)
    for (int i = 0; i < kPerThread; ++i)
      CHECK(out[t * kPerThread + i] == in[t * kPerThread + kPerThread - 1 - i]);
  CUDA_OK(cudaDeviceGetLimit(&after, cudaLimitStackSize));
  CHECK(after >= kPerThread * sizeof(int));
  std::printf("stack limit %zu before the launch, %zu after\nPASS\n", before, after);
  CUDA_OK(cudaFree(din));
  CUDA_OK(cudaFree(dout));
  return 0;
}
