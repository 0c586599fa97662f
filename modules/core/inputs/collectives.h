// Collective operations expanded into point-to-point transfers with their data
// dependencies, over ranks 0..n-1 (the order of `participants:`).
//
//   ring_allreduce       2(n-1) steps; at step s rank i sends chunk (i - s) mod n
//                        to rank i+1 once it has received step s-1 from rank i-1
//   ring_reduce_scatter  the first n-1 of those steps
//   ring_allgather       n-1 steps of the same ring
//   tree_allreduce       binary tree (parent of i is (i-1)/2): reduce to rank 0,
//                        then broadcast back, whole buffer on every edge
//   all_to_all           every rank sends one chunk to every other rank at once
//
// `bytes` is the buffer size per rank; a chunk is bytes/n, the remainder going
// one byte each to the lowest chunk indices, so no byte is lost or invented.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cnuas {

enum class CollectiveKind {
  RingAllreduce,
  RingReduceScatter,
  RingAllgather,
  TreeAllreduce,
  AllToAll
};

std::optional<CollectiveKind> collective_by_name(const std::string& name);
std::vector<std::string> collective_names();

struct Transfer {
  std::uint32_t source;  // rank
  std::uint32_t target;  // rank
  std::uint64_t bytes;
  std::vector<std::uint32_t> after;  // indices of transfers that must complete first
};

std::vector<Transfer> expand_collective(CollectiveKind kind, std::uint32_t ranks,
                                        std::uint64_t bytes);

// How many transfers expand_collective gives, without expanding (for size limits).
std::uint64_t collective_transfer_count(CollectiveKind kind, std::uint32_t ranks);

}  // namespace cnuas
