// A GPU hash table with open addressing (linear probing): one thread inserts
// one key with atomicCAS, then one thread looks up one key, half of them
// absent. Checked against what the host knows it inserted.
// Usage: hash_table [keys] (default 4 Mi keys in a table of twice as many slots).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"

constexpr unsigned kEmpty = 0;  // no key is 0 (see key_of)
constexpr unsigned kMissing = 0xffffffffu;

// Distinct, never 0 for i < 2^32 - 1: multiplication by an odd constant is a
// bijection of the 32-bit integers.
__host__ __device__ unsigned key_of(unsigned i) {
  return (i + 1) * 2654435761u;
}
__host__ __device__ unsigned value_of(unsigned key) {
  return key ^ 0x5bd1e995u;
}

__device__ unsigned slot_of(unsigned key, unsigned mask) {
  unsigned h = key;  // a 32-bit finalizer mix
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h & mask;
}

__global__ void insert(unsigned* keys, unsigned* values, unsigned mask, const unsigned* in,
                       unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned key = in[i];
  unsigned slot = slot_of(key, mask);
  for (;;) {
    const unsigned prev = atomicCAS(&keys[slot], kEmpty, key);
    if (prev == kEmpty || prev == key) {
      values[slot] = value_of(key);
      return;
    }
    slot = (slot + 1) & mask;
  }
}

__global__ void lookup(const unsigned* keys, const unsigned* values, unsigned mask,
                       const unsigned* queries, unsigned* out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned key = queries[i];
  unsigned slot = slot_of(key, mask);
  for (;;) {
    const unsigned k = keys[slot];
    if (k == key) {
      out[i] = values[slot];
      return;
    }
    if (k == kEmpty) {
      out[i] = kMissing;
      return;
    }
    slot = (slot + 1) & mask;
  }
}

static double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char** argv) {
  const unsigned n = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 4u << 20;
  CHECK(n > 0);
  unsigned slots = 1;
  while (slots < 2 * n) slots *= 2;  // load factor at most 1/2
  const unsigned mask = slots - 1;

  // Queries: the n inserted keys interleaved with n keys never inserted.
  std::vector<unsigned> in(n), queries(2 * n);
  for (unsigned i = 0; i < n; ++i) {
    in[i] = key_of(i);
    queries[2 * i] = key_of(i);
    queries[2 * i + 1] = key_of(n + i);
  }
  unsigned *d_keys, *d_values, *d_in, *d_queries, *d_out;
  CUDA_OK(cudaMalloc(&d_keys, slots * sizeof(unsigned)));
  CUDA_OK(cudaMalloc(&d_values, slots * sizeof(unsigned)));
  CUDA_OK(cudaMalloc(&d_in, n * sizeof(unsigned)));
  CUDA_OK(cudaMalloc(&d_queries, 2 * n * sizeof(unsigned)));
  CUDA_OK(cudaMalloc(&d_out, 2 * n * sizeof(unsigned)));
  CUDA_OK(cudaMemset(d_keys, 0, slots * sizeof(unsigned)));
  CUDA_OK(cudaMemcpy(d_in, in.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_queries, queries.data(), 2 * n * sizeof(unsigned), cudaMemcpyHostToDevice));

  const unsigned block = 256;
  auto t0 = std::chrono::steady_clock::now();
  insert<<<(n + block - 1) / block, block>>>(d_keys, d_values, mask, d_in, n);
  CUDA_OK(cudaDeviceSynchronize());
  const double insert_s = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  lookup<<<(2 * n + block - 1) / block, block>>>(d_keys, d_values, mask, d_queries, d_out, 2 * n);
  CUDA_OK(cudaDeviceSynchronize());
  const double lookup_s = seconds_since(t0);

  std::vector<unsigned> out(2 * n), keys(slots);
  CUDA_OK(cudaMemcpy(out.data(), d_out, 2 * n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(keys.data(), d_keys, slots * sizeof(unsigned), cudaMemcpyDeviceToHost));
  // Every inserted key is found with its value, no absent key is, and the
  // table holds exactly n keys (no key was inserted twice).
  unsigned wrong = 0, used = 0;
  for (unsigned i = 0; i < n; ++i) {
    wrong += out[2 * i] != value_of(key_of(i));
    wrong += out[2 * i + 1] != kMissing;
  }
  for (unsigned k : keys) used += k != kEmpty;
  std::printf(
      "hash table: %u keys in %u slots; insert %.3f s wall (%.2f M keys/s), "
      "lookup of %u keys %.3f s wall (%.2f M keys/s)\n",
      n, slots, insert_s, n / insert_s / 1e6, 2 * n, lookup_s, 2 * n / lookup_s / 1e6);
  CHECK(wrong == 0);
  CHECK(used == n);
  std::printf("PASS\n");
  return 0;
}
