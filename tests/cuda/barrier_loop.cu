// __syncthreads() inside loops every remaining thread runs (issue 13): a
// uniform trip count given as an argument, with and without threads that
// returned before the loop (also with the barrier inside a device function
// that is not inlined), the non-aligned barrier.sync reached from two
// branches, and a tree reduction whose loop halves the stride. Each result is checked against a
// host computation.
#include <cstdio>
#include <vector>

#include "check.h"

constexpr int kThreads = 96;  // three warps

// `rounds` times: each live thread adds its right neighbour's value (ring over
// the live threads) in shared memory, with a barrier between reading and
// writing. Threads t >= live return first.
__global__ void ring_rounds(const int* in, int* out, int live, int rounds) {
  __shared__ int v[kThreads];
  const int t = threadIdx.x;
  if (t >= live) return;
  v[t] = in[t];
  for (int r = 0; r < rounds; ++r) {
    __syncthreads();
    const int next = v[t] + v[(t + 1) % live];
    __syncthreads();
    v[t] = next;
  }
  out[t] = v[t];
}

// Sum of kThreads values by halving strides; every thread runs every trip.
__global__ void tree_sum(const int* in, int* out) {
  __shared__ int v[kThreads * 2];
  const int t = threadIdx.x;
  v[t] = in[t];
  v[t + kThreads] = 0;
  __syncthreads();
  for (int stride = 128; stride > 0; stride >>= 1) {  // 128 >= kThreads: covers all
    if (t < stride && t + stride < 2 * kThreads) v[t] += v[t + stride];
    __syncthreads();
  }
  if (t == 0) *out = v[0];
}

// The non-aligned barrier.sync 0 in a loop, reached from two different
// branches inside each warp (even and odd lanes): `rounds` times, every thread
// adds 1 (even lanes) or 2 (odd lanes) to a shared counter with an atomic,
// meeting the others at the barrier after each round.
__global__ void split_rounds(int* out, int rounds) {
  __shared__ int counter;
  if (threadIdx.x == 0) counter = 0;
  __syncthreads();
  for (int r = 0; r < rounds; ++r) {
    if (threadIdx.x % 2 == 0) {
      atomicAdd(&counter, 1);
      asm volatile("barrier.sync 0;" ::: "memory");
    } else {
      atomicAdd(&counter, 2);
      asm volatile("barrier.sync 0;" ::: "memory");
    }
    // After round r every thread sees (r + 1) * (48 * 1 + 48 * 2).
    if (counter != (r + 1) * 144) atomicAdd(out, 1);
    asm volatile("barrier.sync 0;" ::: "memory");
  }
}

// The barrier inside a device function that is not inlined, called from a
// uniform loop after threads t >= live returned: each call adds the thread's
// index to its slot, then meets the others.
__device__ __noinline__ void add_and_sync(int* slots, int t) {
  slots[t] += t;
  __syncthreads();
}

__global__ void rounds_in_function(int* out, int live, int rounds) {
  __shared__ int slots[kThreads];
  const int t = threadIdx.x;
  if (t >= live) return;
  slots[t] = 0;
  for (int r = 0; r < rounds; ++r) add_and_sync(slots, t);
  out[t] = slots[(t + 1) % live];  // written by another thread: needs the barriers
}

// Host reference for ring_rounds.
std::vector<int> ring_reference(const std::vector<int>& in, int live, int rounds) {
  std::vector<int> v(in.begin(), in.begin() + live);
  for (int r = 0; r < rounds; ++r) {
    std::vector<int> next(live);
    for (int t = 0; t < live; ++t) next[t] = v[t] + v[(t + 1) % live];
    v = next;
  }
  return v;
}

int main() {
  std::vector<int> in(kThreads);
  for (int t = 0; t < kThreads; ++t) in[t] = (t * 37) % 11 - 5;
  int *d_in, *d_out, *d_sum;
  CUDA_OK(cudaMalloc(&d_in, kThreads * sizeof(int)));
  CUDA_OK(cudaMalloc(&d_out, kThreads * sizeof(int)));
  CUDA_OK(cudaMalloc(&d_sum, sizeof(int)));
  CUDA_OK(cudaMemcpy(d_in, in.data(), kThreads * sizeof(int), cudaMemcpyHostToDevice));
  // All threads; then 70 (warp 2 keeps 6 lanes); then 40 (warp 2 gone
  // entirely, warp 1 keeps 8 lanes).
  for (int live : {kThreads, 70, 40}) {
    for (int rounds : {0, 1, 5}) {
      CUDA_OK(cudaMemset(d_out, 0, kThreads * sizeof(int)));
      ring_rounds<<<1, kThreads>>>(d_in, d_out, live, rounds);
      CUDA_OK(cudaDeviceSynchronize());
      std::vector<int> out(kThreads);
      CUDA_OK(cudaMemcpy(out.data(), d_out, kThreads * sizeof(int), cudaMemcpyDeviceToHost));
      const std::vector<int> want = ring_reference(in, live, rounds);
      for (int t = 0; t < live; ++t) CHECK(out[t] == want[t]);
    }
  }
  for (int live : {kThreads, 70, 40}) {
    CUDA_OK(cudaMemset(d_out, 0, kThreads * sizeof(int)));
    rounds_in_function<<<1, kThreads>>>(d_out, live, 3);
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<int> out(kThreads);
    CUDA_OK(cudaMemcpy(out.data(), d_out, kThreads * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < live; ++t) CHECK(out[t] == 3 * ((t + 1) % live));  // 3 rounds of +index
  }
  CUDA_OK(cudaMemset(d_sum, 0, sizeof(int)));
  split_rounds<<<1, kThreads>>>(d_sum, 4);
  CUDA_OK(cudaDeviceSynchronize());
  int mismatches = -1;
  CUDA_OK(cudaMemcpy(&mismatches, d_sum, sizeof mismatches, cudaMemcpyDeviceToHost));
  CHECK(mismatches == 0);
  tree_sum<<<1, kThreads>>>(d_in, d_sum);
  CUDA_OK(cudaDeviceSynchronize());
  int sum = 0, want = 0;
  for (int x : in) want += x;
  CUDA_OK(cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost));
  CHECK(sum == want);
  std::printf("PASS\n");
  return 0;
}
