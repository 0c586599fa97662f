// A device assert (issue 13): a kernel whose assertions all hold runs
// normally; one where a single thread's assertion fails prints the CUDA
// runtime's message for that thread (file, line, function, block, thread,
// expression; the test's pattern checks it) and the launch fails with a
// sticky cudaErrorAssert.
#include <cassert>
#include <cstdio>

#include "check.h"

// Every element must be below the limit; doubles it.
__global__ void double_below(int* v, int limit) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(v[i] < limit);
  v[i] *= 2;
}

int main() {
  constexpr int kBlocks = 3, kThreads = 64, n = kBlocks * kThreads;
  int host[n];
  for (int i = 0; i < n; ++i) host[i] = i;
  int* d;
  CUDA_OK(cudaMalloc(&d, sizeof host));
  CUDA_OK(cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice));
  double_below<<<kBlocks, kThreads>>>(d, n);  // every v[i] = i < 192: no assertion fails
  CUDA_OK(cudaDeviceSynchronize());
  int back[n];
  CUDA_OK(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(back[i] == 2 * i);

  // Only element 133 reaches the limit: 133 = 2 * 64 + 5, block [2,0,0], thread [5,0,0].
  for (int i = 0; i < n; ++i) host[i] = i == 133 ? 1000 : i;
  CUDA_OK(cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice));
  double_below<<<kBlocks, kThreads>>>(d, n);
  CHECK(cudaDeviceSynchronize() == cudaErrorAssert);
  CHECK(cudaGetLastError() == cudaErrorAssert);
  CHECK(cudaGetLastError() == cudaErrorAssert);  // sticky: not reset
  int* more = nullptr;
  CHECK(cudaMalloc(&more, 16) == cudaErrorAssert);
  std::printf("PASS\n");
  return 0;
}
