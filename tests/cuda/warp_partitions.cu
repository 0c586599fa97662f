// Warp operations with member masks that cover part of a converged warp
// (issue 13): cooperative-groups labeled_partition + reduce(greater) +
// atomicMax, and __reduce_*_sync, __ballot_sync, __all_sync, __any_sync and
// __match_any_sync where each lane names its own partition's mask. Every
// result is checked against a host computation over the same partitions.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "check.h"

namespace cg = cooperative_groups;

constexpr int kWarps = 4, kThreads = kWarps * 32, kLabels = 3;

// The partition of a lane: interleaved, so no group is a contiguous tile.
__host__ __device__ int label_of(int t) {
  return (t % 32) * 7 % kLabels;
}

// Each labeled partition takes the maximum of its values; its leader folds it
// into a per-(warp, label) slot with atomicMax.
__global__ void partition_max(const int* in, int* slot_max, int* lane_max) {
  const int t = threadIdx.x;
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  cg::coalesced_group part = cg::labeled_partition(warp, label_of(t));
  const int m = cg::reduce(part, in[t], cg::greater<int>());
  lane_max[t] = m;
  if (part.thread_rank() == 0) atomicMax(&slot_max[(t / 32) * kLabels + label_of(t)], m);
}

// The same partitions through the raw intrinsics: the mask comes from
// __match_any_sync over the label.
__global__ void partition_votes(const int* in, unsigned* out) {
  const int t = threadIdx.x;
  const unsigned mask = __match_any_sync(0xffffffffu, label_of(t));
  const int v = in[t];
  unsigned* o = out + t * 6;
  o[0] = mask;
  o[1] = __reduce_add_sync(mask, static_cast<unsigned>(v));
  o[2] = static_cast<unsigned>(__reduce_min_sync(mask, v));
  o[3] = __ballot_sync(mask, v > 0);
  o[4] = __all_sync(mask, v > -50);
  o[5] = __any_sync(mask, v > 90);
}

int main() {
  std::vector<int> in(kThreads);
  unsigned seed = 12345;
  for (int& v : in) {
    seed = seed * 1103515245u + 12345u;
    v = static_cast<int>((seed >> 16) % 201) - 100;  // -100..100
  }
  int *d_in, *d_slots, *d_lane;
  unsigned* d_votes;
  CUDA_OK(cudaMalloc(&d_in, kThreads * sizeof(int)));
  CUDA_OK(cudaMalloc(&d_slots, kWarps * kLabels * sizeof(int)));
  CUDA_OK(cudaMalloc(&d_lane, kThreads * sizeof(int)));
  CUDA_OK(cudaMalloc(&d_votes, kThreads * 6 * sizeof(unsigned)));
  CUDA_OK(cudaMemcpy(d_in, in.data(), kThreads * sizeof(int), cudaMemcpyHostToDevice));
  std::vector<int> slots(kWarps * kLabels, -1000);
  CUDA_OK(cudaMemcpy(d_slots, slots.data(), slots.size() * sizeof(int), cudaMemcpyHostToDevice));
  partition_max<<<1, kThreads>>>(d_in, d_slots, d_lane);
  partition_votes<<<1, kThreads>>>(d_in, d_votes);
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<int> lane(kThreads);
  std::vector<unsigned> votes(kThreads * 6);
  CUDA_OK(cudaMemcpy(slots.data(), d_slots, slots.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(lane.data(), d_lane, kThreads * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_OK(
      cudaMemcpy(votes.data(), d_votes, votes.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));

  // Host reference: for lane t, the lanes of its warp with the same label.
  for (int t = 0; t < kThreads; ++t) {
    const int w = t / 32;
    unsigned mask = 0, sum = 0, ballot = 0;
    int mx = -1000, mn = 1000;
    bool all = true, any = false;
    for (int k = w * 32; k < w * 32 + 32; ++k) {
      if (label_of(k) != label_of(t)) continue;
      mask |= 1u << (k % 32);
      sum += static_cast<unsigned>(in[k]);
      mx = std::max(mx, in[k]);
      mn = std::min(mn, in[k]);
      if (in[k] > 0) ballot |= 1u << (k % 32);
      all = all && in[k] > -50;
      any = any || in[k] > 90;
    }
    CHECK(lane[t] == mx);
    CHECK(slots[w * kLabels + label_of(t)] == mx);
    const unsigned* o = &votes[t * 6];
    CHECK(o[0] == mask);
    CHECK(o[1] == sum);
    CHECK(static_cast<int>(o[2]) == mn);
    CHECK(o[3] == ballot);
    CHECK(o[4] == static_cast<unsigned>(all));
    CHECK(o[5] == static_cast<unsigned>(any));
  }
  std::printf("PASS\n");
  return 0;
}
