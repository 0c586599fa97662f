// Dynamic parallelism (issue 13): kernels launching kernels, built with
// -rdc=true. Checks against the host:
//  - every block of a parent grid launches a child grid over its segment:
//    data[i] = i * i afterwards;
//  - a recursive quicksort, one grid per partition, children on device-side
//    streams, nested many levels deep: the array equals std::sort's;
//  - a tail launch from block 0 sums the partial sums all blocks of its parent
//    grid write: it must run after the whole parent grid (a child that ran at
//    its launch would see blocks 1-3's partials still unwritten: -1);
//  - a launch of a block with 2048 threads fails in the kernel with
//    cudaErrorInvalidConfiguration, which cudaGetLastError then returns
//    (and clears: a second call gives cudaSuccess).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "check.h"

__global__ void square(int* segment, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) segment[i] = segment[i] * segment[i];
}

__global__ void per_block_children(int* data, int per_block) {
  if (threadIdx.x == 0)
    square<<<(per_block + 63) / 64, 64>>>(data + blockIdx.x * per_block, per_block);
}

__device__ void selection_sort(unsigned* a, int lo, int hi) {
  for (int i = lo; i < hi; ++i) {
    int m = i;
    for (int j = i + 1; j <= hi; ++j)
      if (a[j] < a[m]) m = j;
    const unsigned t = a[i];
    a[i] = a[m];
    a[m] = t;
  }
}

__global__ void quicksort(unsigned* a, int lo, int hi, int depth, int* max_depth) {
  atomicMax(max_depth, depth);
  if (hi - lo < 16) {
    selection_sort(a, lo, hi);
    return;
  }
  const unsigned pivot = a[hi];
  int store = lo;
  for (int i = lo; i < hi; ++i)
    if (a[i] < pivot) {
      const unsigned t = a[i];
      a[i] = a[store];
      a[store++] = t;
    }
  a[hi] = a[store];
  a[store] = pivot;
  cudaStream_t left, right;
  cudaStreamCreateWithFlags(&left, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&right, cudaStreamNonBlocking);
  if (store - 1 > lo) quicksort<<<1, 1, 0, left>>>(a, lo, store - 1, depth + 1, max_depth);
  if (store + 1 < hi) quicksort<<<1, 1, 0, right>>>(a, store + 1, hi, depth + 1, max_depth);
  cudaStreamDestroy(left);
  cudaStreamDestroy(right);
}

__global__ void total(const long long* partial, int blocks, long long* out) {
  long long sum = 0;
  for (int b = 0; b < blocks; ++b) sum += partial[b];
  *out = sum;
}

__global__ void partial_sums(const int* in, long long* partial, long long* out) {
  __shared__ long long s[64];
  s[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
  __syncthreads();
  for (int w = 32; w > 0; w /= 2) {
    if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = s[0];
    if (blockIdx.x == 0) total<<<1, 1, 0, cudaStreamTailLaunch>>>(partial, gridDim.x, out);
  }
}

__global__ void too_large(int* errors) {
  square<<<1, 2048>>>(nullptr, 0);
  errors[0] = cudaGetLastError();
  errors[1] = cudaGetLastError();
}

int main() {
  // Per-block children.
  const int blocks = 8, per_block = 100, n = blocks * per_block;
  std::vector<int> data(n);
  for (int i = 0; i < n; ++i) data[i] = i;
  int* d = nullptr;
  CUDA_OK(cudaMalloc(&d, n * sizeof(int)));
  CUDA_OK(cudaMemcpy(d, data.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  per_block_children<<<blocks, 32>>>(d, per_block);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaMemcpy(data.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(data[i] == i * i);
  std::printf("per-block children: %d segments squared\n", blocks);

  // Recursive quicksort.
  const int count = 3000;
  std::vector<unsigned> keys(count);
  std::uint32_t x = 12345;
  for (unsigned& k : keys) k = (x = x * 1664525u + 1013904223u) >> 8;
  unsigned* dk = nullptr;
  int* dmax = nullptr;
  CUDA_OK(cudaMalloc(&dk, count * sizeof(unsigned)));
  CUDA_OK(cudaMalloc(&dmax, sizeof(int)));
  CUDA_OK(cudaMemset(dmax, 0, sizeof(int)));
  CUDA_OK(cudaMemcpy(dk, keys.data(), count * sizeof(unsigned), cudaMemcpyHostToDevice));
  quicksort<<<1, 1>>>(dk, 0, count - 1, 0, dmax);
  CUDA_OK(cudaGetLastError());
  std::vector<unsigned> sorted(count);
  CUDA_OK(cudaMemcpy(sorted.data(), dk, count * sizeof(unsigned), cudaMemcpyDeviceToHost));
  std::sort(keys.begin(), keys.end());
  CHECK(sorted == keys);
  int depth = 0;
  CUDA_OK(cudaMemcpy(&depth, dmax, sizeof depth, cudaMemcpyDeviceToHost));
  CHECK(depth >= 5);  // 3000 keys in partitions of under 16 need at least log2(3000/16) levels
  std::printf("quicksort: %d keys sorted, %d levels of child grids\n", count, depth);

  // Tail launch after the whole parent grid.
  const int sum_blocks = 4;
  std::vector<int> values(sum_blocks * 64);
  long long expect = 0;
  for (std::size_t i = 0; i < values.size(); ++i) expect += values[i] = static_cast<int>(i * 3 + 1);
  int* dv = nullptr;
  long long *dpartial = nullptr, *dout = nullptr;
  CUDA_OK(cudaMalloc(&dv, values.size() * sizeof(int)));
  CUDA_OK(cudaMalloc(&dpartial, sum_blocks * sizeof(long long)));
  CUDA_OK(cudaMalloc(&dout, sizeof(long long)));
  CUDA_OK(cudaMemcpy(dv, values.data(), values.size() * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(dpartial, 0xff, sum_blocks * sizeof(long long)));  // -1 each
  partial_sums<<<sum_blocks, 64>>>(dv, dpartial, dout);
  CUDA_OK(cudaGetLastError());
  long long got = 0;
  CUDA_OK(cudaMemcpy(&got, dout, sizeof got, cudaMemcpyDeviceToHost));
  CHECK(got == expect);
  std::printf("tail launch: total %lld\n", got);

  // A launch the device runtime refuses.
  int* derr = nullptr;
  CUDA_OK(cudaMalloc(&derr, 2 * sizeof(int)));
  too_large<<<1, 1>>>(derr);
  CUDA_OK(cudaGetLastError());
  int errors[2] = {-1, -1};
  CUDA_OK(cudaMemcpy(errors, derr, sizeof errors, cudaMemcpyDeviceToHost));
  CHECK(errors[0] == cudaErrorInvalidConfiguration);
  CHECK(errors[1] == cudaSuccess);
  std::printf("device-side launch of 2048 threads: error %d\nPASS\n", errors[0]);
  return 0;
}
