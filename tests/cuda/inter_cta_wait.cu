// CTAs that wait for other CTAs of an ordinary (not cooperative) launch, which
// hardware completes because many CTAs are resident at once:
//  - a reverse chain: CTA b waits for a flag CTA b+1 sets, so the last CTA
//    must run first;
//  - a software grid barrier: one CTA per SM counts itself in, spins until all
//    have, then reads what every other CTA wrote before the barrier.
// Before resident CTAs ran together, CTA 0 spun until the instruction limit.
#include "check.h"

__global__ void reverse_chain(volatile int* flags, int* order, int* counter) {
  const int b = blockIdx.x;
  if (threadIdx.x == 0) {
    if (b + 1 < gridDim.x)
      while (flags[b + 1] == 0) {
      }
    order[b] = atomicAdd(counter, 1);
    __threadfence();
    flags[b] = 1;
  }
  __syncthreads();
}

__global__ void grid_barrier(int* values, int* sums, unsigned* arrived) {
  const int b = blockIdx.x;
  if (threadIdx.x == 0) values[b] = 3 * b + 1;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(arrived, 1u);
    while (atomicAdd(arrived, 0u) < gridDim.x) {
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    int s = 0;
    for (int i = 0; i < gridDim.x; ++i) s += reinterpret_cast<volatile int*>(values)[i];
    sums[b] = s;
  }
}

int main() {
  const int chain = 16;
  int *flags = nullptr, *order = nullptr, *counter = nullptr;
  CUDA_OK(cudaMalloc(&flags, chain * sizeof(int)));
  CUDA_OK(cudaMalloc(&order, chain * sizeof(int)));
  CUDA_OK(cudaMalloc(&counter, sizeof(int)));
  CUDA_OK(cudaMemset(flags, 0, chain * sizeof(int)));
  CUDA_OK(cudaMemset(counter, 0, sizeof(int)));
  reverse_chain<<<chain, 64>>>(flags, order, counter);
  CUDA_OK(cudaDeviceSynchronize());
  int got[chain];
  CUDA_OK(cudaMemcpy(got, order, sizeof got, cudaMemcpyDeviceToHost));
  for (int b = 0; b < chain; ++b) CHECK(got[b] == chain - 1 - b);

  int sms = 0;
  CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int *values = nullptr, *sums = nullptr;
  unsigned* arrived = nullptr;
  CUDA_OK(cudaMalloc(&values, sms * sizeof(int)));
  CUDA_OK(cudaMalloc(&sums, sms * sizeof(int)));
  CUDA_OK(cudaMalloc(&arrived, sizeof(unsigned)));
  CUDA_OK(cudaMemset(arrived, 0, sizeof(unsigned)));
  grid_barrier<<<sms, 128>>>(values, sums, arrived);
  CUDA_OK(cudaDeviceSynchronize());
  int* host = new int[sms];
  CUDA_OK(cudaMemcpy(host, sums, sms * sizeof(int), cudaMemcpyDeviceToHost));
  // sum over b of (3b + 1) = 3 sms (sms - 1) / 2 + sms
  const int expected = 3 * sms * (sms - 1) / 2 + sms;
  for (int b = 0; b < sms; ++b) CHECK(host[b] == expected);
  delete[] host;
  std::printf("PASS\n");
  return 0;
}
