// Exclusive prefix sums of many arrays in shared memory (the scan sample's
// pattern): 6.5 Mi uints cut into arrays of 4 to 256 Ki elements. Each
// 256-thread block scans 1024 elements (four per thread, loaded as uint4):
// a per-thread serial scan, a block scan of the thread totals (Hillis-Steele
// in shared memory with __syncthreads), then each thread adds its offset.
// Arrays longer than 1024 take two more launches: the scan of the chunk
// totals, and adding each chunk's offset. Checked against a host scan.
// Usage: prefix_scan [elements] [iterations]   (default 6815744, 1)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"

constexpr unsigned kThreads = 256, kChunk = 4 * kThreads;

// Inclusive scan of one value per thread across the block.
__device__ unsigned block_scan(unsigned v, unsigned* s) {
  s[threadIdx.x] = v;
  __syncthreads();
  for (unsigned off = 1; off < blockDim.x; off <<= 1) {
    const unsigned add = threadIdx.x >= off ? s[threadIdx.x - off] : 0;
    __syncthreads();
    s[threadIdx.x] += add;
    __syncthreads();
  }
  return s[threadIdx.x];
}

// Exclusive scan of segments of `len` (4..1024) elements; with `totals`, each
// 1024-element chunk's sum is written too.
__global__ void scan_chunks(uint4* out, const uint4* in, unsigned len, unsigned* totals) {
  __shared__ unsigned s[kThreads];
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  uint4 v = in[i];
  v.y += v.x;  // inclusive within the thread
  v.z += v.y;
  v.w += v.z;
  // Threads of one segment scan together: mask the block scan by segment.
  const unsigned per_segment = len / 4;  // threads per segment (len >= 4)
  const unsigned inclusive = block_scan(v.w, s);
  const unsigned first = threadIdx.x - threadIdx.x % per_segment;
  const unsigned before = first ? s[first - 1] : 0;
  const unsigned offset = inclusive - v.w - before;
  out[i] = make_uint4(offset, offset + v.x, offset + v.y, offset + v.z);
  if (totals && threadIdx.x == blockDim.x - 1) totals[blockIdx.x] = inclusive;
}

// Exclusive scan of the chunk totals of each array (one block per array).
__global__ void scan_totals(unsigned* totals, unsigned chunks_per_array) {
  __shared__ unsigned s[kThreads];
  unsigned* t = totals + blockIdx.x * chunks_per_array;
  unsigned carry = 0;
  for (unsigned base = 0; base < chunks_per_array; base += blockDim.x) {
    const unsigned k = base + threadIdx.x;
    const unsigned v = k < chunks_per_array ? t[k] : 0;
    const unsigned inc = block_scan(v, s);
    if (k < chunks_per_array) t[k] = carry + inc - v;
    carry += s[blockDim.x - 1];
    __syncthreads();
  }
}

__global__ void add_offsets(uint4* out, const unsigned* totals) {
  const unsigned add = totals[blockIdx.x];
  uint4& v = out[blockIdx.x * blockDim.x + threadIdx.x];
  v.x += add, v.y += add, v.z += add, v.w += add;
}

int main(int argc, char** argv) {
  const unsigned n = argc > 1 ? unsigned(std::atoi(argv[1])) : 13u * 1048576u / 2u;
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 1;
  CHECK(n % kChunk == 0 && iterations > 0);
  std::vector<unsigned> in(n), got(n), want(n);
  unsigned r = 2009;
  for (unsigned& v : in) v = (r = r * 1103515245u + 12345u) >> 16;
  uint4 *d_in, *d_out;
  unsigned* d_totals;
  CUDA_OK(cudaMalloc(&d_in, n * sizeof(unsigned)));
  CUDA_OK(cudaMalloc(&d_out, n * sizeof(unsigned)));
  CUDA_OK(cudaMalloc(&d_totals, n / kChunk * sizeof(unsigned)));
  CUDA_OK(cudaMemcpy(d_in, in.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  double wall = 0;
  int sizes = 0;
  for (unsigned len = 4; len <= 262144; len <<= 1) {
    if (n % len) continue;
    const auto t0 = std::chrono::steady_clock::now();
    for (int it = 0; it < iterations; ++it) {
      const unsigned segment = len < kChunk ? len : kChunk;
      scan_chunks<<<n / kChunk, kThreads>>>(d_out, d_in, segment,
                                            len > kChunk ? d_totals : nullptr);
      if (len > kChunk) {
        scan_totals<<<n / len, kThreads>>>(d_totals, len / kChunk);
        add_offsets<<<n / kChunk, kThreads>>>(d_out, d_totals);
      }
    }
    CUDA_OK(cudaDeviceSynchronize());
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CUDA_OK(cudaMemcpy(got.data(), d_out, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (unsigned a = 0; a < n; a += len) {
      unsigned sum = 0;
      for (unsigned k = 0; k < len; ++k) want[a + k] = sum, sum += in[a + k];
    }
    for (unsigned k = 0; k < n; ++k)
      if (got[k] != want[k]) {
        std::fprintf(stderr, "arrays of %u: element %u is %u, expected %u\n", len, k, got[k],
                     want[k]);
        return 1;
      }
    ++sizes;
  }
  std::printf("prefix scan: %u elements, %d array sizes, %d iterations: %.2f s wall\n", n, sizes,
              iterations, wall);
  CUDA_OK(cudaFree(d_in));
  CUDA_OK(cudaFree(d_out));
  CUDA_OK(cudaFree(d_totals));
  std::printf("PASS\n");
  return 0;
}
