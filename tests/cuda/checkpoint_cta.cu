// Checkpoints inside a kernel (cnuas exec --checkpoint-at KERNEL:CTA): a
// kernel whose CTAs are resident together, mid-execution, at the checkpoint.
// Launch 0 (fill) writes the input; launch 1 (relay) is the one to cut: CTA b
// writes shared memory, announces itself (flags[b] = 1), and then its threads
// diverge: every third thread spins until CTA b + 1 has announced itself, the
// others fold shared memory in a loop as long as their thread index. CTA 0
// thus spins until the CTAs after it run beside it, so when CTA 1 or later is
// about to begin CTA 0 is resident, with diverged warps and shared memory in
// use. Launch 2 (combine) folds the result. Every value is checked against a
// host reference; stdout carries a checksum that the test compares between
// runs, and CTA 0 prints from the device before the checkpoint.
// Usage: checkpoint_cta [ctas] [salt]  (default 6 CTAs, salt 0: relay's
// parameter, which changes its launch but not fill's)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"

constexpr int kThreads = 64;

__global__ void fill(int* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) in[i] = (i * 37 + 11) % 1009;
}

__global__ void relay(const int* in, volatile int* flags, int* out, int ctas, int salt) {
  __shared__ int sh[kThreads];
  const int t = threadIdx.x, b = blockIdx.x;
  if (t == 0 && b == 0) printf("device: relay CTA 0 begins\n");
  sh[t] = in[b * kThreads + t] + salt;
  __syncthreads();
  if (t == 0) flags[b] = 1;
  int acc = 0;
  if (t % 3 == 0) {
    if (b + 1 < ctas)
      while (flags[b + 1] == 0) {
      }
    acc = b;
  } else {
    for (int i = 0; i < t; ++i) acc += sh[(t + i) % kThreads] ^ i;
  }
  __syncthreads();
  out[b * kThreads + t] = acc + sh[(t + 1) % kThreads];
}

__global__ void combine(const int* out, int n, unsigned long long* sum) {
  unsigned long long s = 0;
  for (int i = 0; i < n; ++i) s = s * 31 + static_cast<unsigned>(out[i]);
  *sum = s;
}

int main(int argc, char** argv) {
  const int ctas = argc > 1 ? std::atoi(argv[1]) : 6;
  const int salt = argc > 2 ? std::atoi(argv[2]) : 0;
  CHECK(ctas > 0 && ctas <= 64);
  const int n = ctas * kThreads;
  int *in = nullptr, *flags = nullptr, *out = nullptr;
  unsigned long long* sum = nullptr;
  CUDA_OK(cudaMalloc(&in, n * sizeof(int)));
  CUDA_OK(cudaMalloc(&flags, ctas * sizeof(int)));
  CUDA_OK(cudaMalloc(&out, n * sizeof(int)));
  CUDA_OK(cudaMalloc(&sum, sizeof(unsigned long long)));
  CUDA_OK(cudaMemset(flags, 0, ctas * sizeof(int)));
  fill<<<ctas, kThreads>>>(in, n);
  CUDA_OK(cudaGetLastError());
  relay<<<ctas, kThreads>>>(in, flags, out, ctas, salt);
  CUDA_OK(cudaGetLastError());
  combine<<<1, 1>>>(out, n, sum);
  CUDA_OK(cudaDeviceSynchronize());

  std::vector<int> got(n), want(n);
  unsigned long long got_sum = 0, want_sum = 0;
  CUDA_OK(cudaMemcpy(got.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(&got_sum, sum, sizeof got_sum, cudaMemcpyDeviceToHost));
  for (int b = 0; b < ctas; ++b) {
    int sh[kThreads];
    for (int t = 0; t < kThreads; ++t) sh[t] = ((b * kThreads + t) * 37 + 11) % 1009 + salt;
    for (int t = 0; t < kThreads; ++t) {
      int acc = 0;
      if (t % 3 == 0) {
        acc = b;
      } else {
        for (int i = 0; i < t; ++i) acc += sh[(t + i) % kThreads] ^ i;
      }
      want[b * kThreads + t] = acc + sh[(t + 1) % kThreads];
    }
  }
  for (int i = 0; i < n; ++i) want_sum = want_sum * 31 + static_cast<unsigned>(want[i]);
  for (int i = 0; i < n; ++i) CHECK(got[i] == want[i]);
  CHECK(got_sum == want_sum);
  std::printf("relay: %d CTAs, checksum %llu\n", ctas, got_sum);
  CUDA_OK(cudaFree(in));
  CUDA_OK(cudaFree(flags));
  CUDA_OK(cudaFree(out));
  CUDA_OK(cudaFree(sum));
  std::printf("PASS\n");
  return 0;
}
