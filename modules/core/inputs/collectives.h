// Collective operations expanded into point-to-point transfers with their data
// dependencies, as NCCL runs them, over ranks 0..n-1 (the order of
// `participants:`), grouped into nodes (ranks whose names share everything
// before the last '.', e.g. the GPUs of "server[1]").
//
//   ring_allreduce          2(n-1) steps; at step s position i of the ring sends
//                           chunk (i - s) mod n to position i+1 once it has
//                           received step s-1 from position i-1; the first n-1
//                           steps reduce on arrival
//   ring_reduce_scatter     the first n-1 of those steps
//   ring_allgather          n-1 steps of the same ring (no reduction)
//   tree_allreduce          binary tree (parent of i is (i-1)/2): reduce to rank 0,
//                           then broadcast back, whole buffer on every edge
//   hierarchical_allreduce  a ring reduce-scatter inside every node, a ring
//                           allreduce of each chunk between the nodes (among the
//                           ranks at the same place in their node), a ring
//                           allgather inside every node
//   nvls_allreduce          in-switch reduction (NVLink SHARP): rank j owns slice
//                           j (bytes/n), moved in 8 pieces; for each piece every
//                           rank sends its copy to the switch, the switch
//                           delivers the sum to the owner, the owner sends it
//                           back up and the switch multicasts it to the others;
//                           the owner asks for its next piece once the sum of
//                           the previous one has arrived
//   all_to_all              every rank sends one chunk to every other rank at once,
//                           issued in rounds of peer offset (round k: rank i to
//                           rank i + k), as NCCL orders point-to-point work
//
// With C channels the buffer is split into C parts carried by independent
// copies of the pattern (NCCL's channels: one per NIC or NVLink port). Ring
// channels over several nodes rotate each node's order by the channel number,
// so that channel c leaves every node from a different rank (and its NIC).
//
// `bytes` is the buffer size per rank; a piece is split evenly, the remainder
// going one byte each to the lowest pieces, so no byte is lost or invented.
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
  HierarchicalAllreduce,
  NvlsAllreduce,
  AllToAll
};

std::optional<CollectiveKind> collective_by_name(const std::string& name);
std::vector<std::string> collective_names();
const char* collective_name(CollectiveKind kind);

// NCCL's bus bandwidth factor, busbw = algbw x numerator / denominator
// (nccl-tests' definitions: 2(n-1)/n for an allreduce, (n-1)/n otherwise).
struct BusFactor {
  std::uint64_t numerator;
  std::uint64_t denominator;
};
BusFactor bus_bandwidth_factor(CollectiveKind kind, std::uint32_t ranks);

struct CollectiveShape {
  std::uint32_t ranks = 0;
  std::vector<std::uint32_t> node_of;  // per rank: its node, 0.. in order of first appearance
  std::uint32_t channels = 1;
};

// The shape of `participants` (grouped by the text before their last '.').
CollectiveShape collective_shape(const std::vector<std::string>& participants,
                                 std::uint32_t channels);

struct Transfer {
  static constexpr std::uint32_t kSwitch = UINT32_MAX;  // the reducing switch (nvls_allreduce)
  std::uint32_t source;                                 // rank, or kSwitch
  std::uint32_t target;                                 // rank, or kSwitch
  std::uint64_t bytes;
  bool reduce = false;               // the target combines the data with its own on arrival
  std::vector<std::uint32_t> after;  // indices of transfers that must complete first
};

std::vector<Transfer> expand_collective(CollectiveKind kind, const CollectiveShape& shape,
                                        std::uint64_t bytes);

// How many transfers expand_collective gives, without expanding (for size limits).
std::uint64_t collective_transfer_count(CollectiveKind kind, const CollectiveShape& shape);

}  // namespace cnuas
