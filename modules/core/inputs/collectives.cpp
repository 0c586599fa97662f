#include "core/inputs/collectives.h"

#include <algorithm>
#include <map>

namespace cnuas {
namespace {

constexpr std::uint32_t kNone = UINT32_MAX;
// Pieces of each rank's slice in nvls_allreduce (a pipeline of that depth).
constexpr std::uint32_t kNvlsSteps = 8;

// Piece `i` of `bytes` split into `parts`: even, the remainder one byte each to the lowest pieces.
std::uint64_t share(std::uint64_t bytes, std::uint32_t parts, std::uint32_t i) {
  return bytes / parts + (i < bytes % parts ? 1 : 0);
}

// Steps [from, to) of the ring schedule over `order` (position -> rank): at
// step s position i sends chunk (i - s) mod n of `bytes` to position i+1 once
// it has what position i-1 sent it at step s-1 (at the first step: once
// `received[i]` is done, kNone for nothing). Steps below `reduce_until` reduce
// on arrival. Returns, per position, the transfer it received last.
std::vector<std::uint32_t> ring(std::vector<Transfer>& out, const std::vector<std::uint32_t>& order,
                                std::uint64_t bytes, std::uint32_t from, std::uint32_t to,
                                std::uint32_t reduce_until, std::vector<std::uint32_t> received) {
  const auto n = static_cast<std::uint32_t>(order.size());
  std::vector<std::uint32_t> now(n, kNone);
  for (std::uint32_t s = from; s < to; ++s) {
    for (std::uint32_t i = 0; i < n; ++i) {
      Transfer t{
          order[i], order[(i + 1) % n], share(bytes, n, (i + n - s % n) % n), s < reduce_until, {}};
      if (received[i] != kNone) t.after.push_back(received[i]);
      now[(i + 1) % n] = static_cast<std::uint32_t>(out.size());
      out.push_back(std::move(t));
    }
    received = now;
  }
  return received;
}

// A binary tree over ranks 0..n-1 (parent of k is (k-1)/2): transfer k-1 of
// the reduction carries rank k's partial sum to its parent once k's children
// have reported; then rank k receives the result from its parent once the
// parent has it.
void tree(std::vector<Transfer>& out, std::uint32_t n, std::uint64_t bytes) {
  const auto base = static_cast<std::uint32_t>(out.size());
  for (std::uint32_t k = 1; k < n; ++k) {
    Transfer t{k, (k - 1) / 2, bytes, true, {}};
    for (std::uint32_t child : {2 * k + 1, 2 * k + 2})
      if (child < n) t.after.push_back(base + child - 1);
    out.push_back(std::move(t));
  }
  const std::uint32_t reduce = base + n - 1;
  for (std::uint32_t k = 1; k < n; ++k) {
    const std::uint32_t parent = (k - 1) / 2;
    Transfer t{parent, k, bytes, false, {}};
    if (parent == 0) {
      for (std::uint32_t child : {1u, 2u})
        if (child < n) t.after.push_back(base + child - 1);
    } else {
      t.after.push_back(reduce + parent - 1);
    }
    out.push_back(std::move(t));
  }
}

// The ranks of each node, in rank order.
std::vector<std::vector<std::uint32_t>> nodes_of(const CollectiveShape& shape) {
  std::vector<std::vector<std::uint32_t>> nodes;
  for (std::uint32_t r = 0; r < shape.ranks; ++r) {
    if (shape.node_of[r] >= nodes.size()) nodes.resize(shape.node_of[r] + 1);
    nodes[shape.node_of[r]].push_back(r);
  }
  return nodes;
}

// Channel c's ring: the nodes in order, each node's ranks rotated by c (so the
// ring leaves each node from a different rank); one node keeps its order.
std::vector<std::uint32_t> ring_order(const std::vector<std::vector<std::uint32_t>>& nodes,
                                      std::uint32_t c) {
  std::vector<std::uint32_t> order;
  for (const auto& node : nodes)
    for (std::size_t k = 0; k < node.size(); ++k)
      order.push_back(nodes.size() == 1 ? node[k] : node[(c + k) % node.size()]);
  return order;
}

void hierarchical(std::vector<Transfer>& out, const std::vector<std::vector<std::uint32_t>>& nodes,
                  std::uint64_t bytes) {
  const auto local = static_cast<std::uint32_t>(nodes[0].size());
  const auto count = static_cast<std::uint32_t>(nodes.size());
  const std::vector<std::uint32_t> none(local, kNone);
  // Reduce-scatter inside each node: position p ends with chunk (p + 1) mod L reduced.
  std::vector<std::vector<std::uint32_t>> scattered;
  for (const auto& node : nodes)
    scattered.push_back(ring(out, node, bytes, 0, local - 1, local - 1, none));
  // Each chunk's allreduce between the nodes, among the ranks at position p.
  std::vector<std::vector<std::uint32_t>> reduced(count, std::vector<std::uint32_t>(local));
  for (std::uint32_t p = 0; p < local; ++p) {
    std::vector<std::uint32_t> order, before;
    for (std::uint32_t m = 0; m < count; ++m) {
      order.push_back(nodes[m][p]);
      before.push_back(scattered[m][p]);
    }
    const std::vector<std::uint32_t> last = ring(out, order, share(bytes, local, (p + 1) % local),
                                                 0, 2 * (count - 1), count - 1, before);
    for (std::uint32_t m = 0; m < count; ++m) reduced[m][p] = last[m];
  }
  // Allgather inside each node, starting from each position's own chunk.
  for (std::uint32_t m = 0; m < count; ++m)
    ring(out, nodes[m], bytes, local - 1, 2 * (local - 1), 0, reduced[m]);
}

// Each owner j's slice goes in kNvlsSteps pieces; the owner asks for the next
// piece's sum once the previous one has come back, so the phases overlap.
void nvls(std::vector<Transfer>& out, std::uint32_t n, std::uint64_t bytes) {
  std::vector<std::uint32_t> delivered(n, kNone);
  for (std::uint32_t k = 0; k < kNvlsSteps; ++k)
    for (std::uint32_t j = 0; j < n; ++j) {
      const std::uint64_t piece = share(share(bytes, n, j), kNvlsSteps, k);
      Transfer deliver{Transfer::kSwitch, j, piece, false, {}};
      for (std::uint32_t i = 0; i < n; ++i) {
        deliver.after.push_back(static_cast<std::uint32_t>(out.size()));
        Transfer push{i, Transfer::kSwitch, piece, false, {}};
        if (delivered[j] != kNone) push.after.push_back(delivered[j]);
        out.push_back(std::move(push));
      }
      delivered[j] = static_cast<std::uint32_t>(out.size());
      out.push_back(std::move(deliver));
      const auto up = static_cast<std::uint32_t>(out.size());
      out.push_back({j, Transfer::kSwitch, piece, false, {delivered[j]}});
      for (std::uint32_t i = 0; i < n; ++i)
        if (i != j) out.push_back({Transfer::kSwitch, i, piece, false, {up}});
    }
}

struct Named {
  const char* name;
  CollectiveKind kind;
};
const Named kNames[] = {{"ring_allreduce", CollectiveKind::RingAllreduce},
                        {"ring_reduce_scatter", CollectiveKind::RingReduceScatter},
                        {"ring_allgather", CollectiveKind::RingAllgather},
                        {"tree_allreduce", CollectiveKind::TreeAllreduce},
                        {"hierarchical_allreduce", CollectiveKind::HierarchicalAllreduce},
                        {"nvls_allreduce", CollectiveKind::NvlsAllreduce},
                        {"all_to_all", CollectiveKind::AllToAll}};

}  // namespace

std::optional<CollectiveKind> collective_by_name(const std::string& name) {
  for (const Named& n : kNames)
    if (name == n.name) return n.kind;
  return std::nullopt;
}

std::vector<std::string> collective_names() {
  std::vector<std::string> names;
  for (const Named& n : kNames) names.emplace_back(n.name);
  return names;
}

const char* collective_name(CollectiveKind kind) {
  for (const Named& n : kNames)
    if (n.kind == kind) return n.name;
  return "";
}

BusFactor bus_bandwidth_factor(CollectiveKind kind, std::uint32_t ranks) {
  switch (kind) {
    case CollectiveKind::RingAllreduce:
    case CollectiveKind::TreeAllreduce:
    case CollectiveKind::HierarchicalAllreduce:
    case CollectiveKind::NvlsAllreduce:
      return {2 * (std::uint64_t{ranks} - 1), ranks};
    case CollectiveKind::RingReduceScatter:
    case CollectiveKind::RingAllgather:
    case CollectiveKind::AllToAll:
      return {std::uint64_t{ranks} - 1, ranks};
  }
  return {1, 1};
}

CollectiveShape collective_shape(const std::vector<std::string>& participants,
                                 std::uint32_t channels) {
  CollectiveShape shape;
  shape.ranks = static_cast<std::uint32_t>(participants.size());
  shape.channels = channels;
  std::map<std::string, std::uint32_t> nodes;
  for (const std::string& name : participants) {
    const std::size_t dot = name.rfind('.');
    const std::string node = dot == std::string::npos ? "" : name.substr(0, dot);
    shape.node_of.push_back(
        nodes.emplace(node, static_cast<std::uint32_t>(nodes.size())).first->second);
  }
  return shape;
}

std::uint64_t collective_transfer_count(CollectiveKind kind, const CollectiveShape& shape) {
  const std::uint64_t n = shape.ranks, c = shape.channels;
  std::uint64_t nodes = 0;
  for (std::uint32_t m : shape.node_of) nodes = std::max<std::uint64_t>(nodes, m + 1);
  const std::uint64_t local = nodes == 0 ? 0 : n / nodes;
  switch (kind) {
    case CollectiveKind::RingAllreduce:
      return c * 2 * (n - 1) * n;
    case CollectiveKind::RingReduceScatter:
    case CollectiveKind::RingAllgather:
    case CollectiveKind::AllToAll:
      return c * (n - 1) * n;
    case CollectiveKind::TreeAllreduce:
      return c * 2 * (n - 1);
    case CollectiveKind::HierarchicalAllreduce:
      return c * (nodes * 2 * local * (local - 1) + local * nodes * 2 * (nodes - 1));
    case CollectiveKind::NvlsAllreduce:
      return c * kNvlsSteps * n * (2 * n + 1);
  }
  return 0;
}

std::vector<Transfer> expand_collective(CollectiveKind kind, const CollectiveShape& shape,
                                        std::uint64_t bytes) {
  const std::uint32_t n = shape.ranks;
  const auto nodes = nodes_of(shape);
  std::vector<Transfer> out;
  out.reserve(collective_transfer_count(kind, shape));
  const std::vector<std::uint32_t> none(n, kNone);
  for (std::uint32_t c = 0; c < shape.channels; ++c) {
    const std::uint64_t part = share(bytes, shape.channels, c);
    switch (kind) {
      case CollectiveKind::RingAllreduce:
        ring(out, ring_order(nodes, c), part, 0, 2 * (n - 1), n - 1, none);
        break;
      case CollectiveKind::RingReduceScatter:
        ring(out, ring_order(nodes, c), part, 0, n - 1, n - 1, none);
        break;
      case CollectiveKind::RingAllgather:
        ring(out, ring_order(nodes, c), part, 0, n - 1, 0, none);
        break;
      case CollectiveKind::TreeAllreduce:
        tree(out, n, part);
        break;
      case CollectiveKind::HierarchicalAllreduce:
        hierarchical(out, nodes, part);
        break;
      case CollectiveKind::NvlsAllreduce:
        nvls(out, n, part);
        break;
      case CollectiveKind::AllToAll:
        // In rounds of peer offsets, as NCCL schedules point-to-point work: in
        // round k every rank sends to rank + k, so no rank receives twice at once.
        for (std::uint32_t k = 1; k < n; ++k)
          for (std::uint32_t i = 0; i < n; ++i)
            out.push_back({i, (i + k) % n, share(part, n, (i + k) % n), false, {}});
        break;
    }
  }
  return out;
}

}  // namespace cnuas
