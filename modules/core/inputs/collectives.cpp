#include "core/inputs/collectives.h"

namespace cnuas {
namespace {

std::uint64_t chunk_bytes(std::uint64_t bytes, std::uint32_t ranks, std::uint32_t chunk) {
  return bytes / ranks + (chunk < bytes % ranks ? 1 : 0);
}

std::vector<Transfer> ring(std::uint32_t n, std::uint64_t bytes, std::uint32_t steps) {
  std::vector<Transfer> out;
  out.reserve(static_cast<std::size_t>(steps) * n);
  for (std::uint32_t s = 0; s < steps; ++s)
    for (std::uint32_t i = 0; i < n; ++i) {
      Transfer t{i, (i + 1) % n, chunk_bytes(bytes, n, (i + n - s % n) % n), {}};
      // What rank i forwards at step s is what it received at step s-1 from rank i-1.
      if (s > 0) t.after.push_back((s - 1) * n + (i + n - 1) % n);
      out.push_back(std::move(t));
    }
  return out;
}

std::vector<Transfer> tree(std::uint32_t n, std::uint64_t bytes) {
  std::vector<Transfer> out;
  // Reduce: transfer k-1 carries rank k's partial sum to its parent once k's children have
  // reported.
  for (std::uint32_t k = 1; k < n; ++k) {
    Transfer t{k, (k - 1) / 2, bytes, {}};
    for (std::uint32_t child : {2 * k + 1, 2 * k + 2})
      if (child < n) t.after.push_back(child - 1);
    out.push_back(std::move(t));
  }
  const std::uint32_t reduce = n - 1;
  // Broadcast: rank k receives from its parent once the parent has the result.
  for (std::uint32_t k = 1; k < n; ++k) {
    const std::uint32_t parent = (k - 1) / 2;
    Transfer t{parent, k, bytes, {}};
    if (parent == 0) {
      for (std::uint32_t child : {1u, 2u})
        if (child < n) t.after.push_back(child - 1);
    } else {
      t.after.push_back(reduce + parent - 1);
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

std::optional<CollectiveKind> collective_by_name(const std::string& name) {
  if (name == "ring_allreduce") return CollectiveKind::RingAllreduce;
  if (name == "ring_reduce_scatter") return CollectiveKind::RingReduceScatter;
  if (name == "ring_allgather") return CollectiveKind::RingAllgather;
  if (name == "tree_allreduce") return CollectiveKind::TreeAllreduce;
  if (name == "all_to_all") return CollectiveKind::AllToAll;
  return std::nullopt;
}

std::vector<std::string> collective_names() {
  return {"ring_allreduce", "ring_reduce_scatter", "ring_allgather", "tree_allreduce",
          "all_to_all"};
}

std::uint64_t collective_transfer_count(CollectiveKind kind, std::uint32_t ranks) {
  const std::uint64_t n = ranks;
  switch (kind) {
    case CollectiveKind::RingAllreduce:
      return 2 * (n - 1) * n;
    case CollectiveKind::RingReduceScatter:
    case CollectiveKind::RingAllgather:
    case CollectiveKind::AllToAll:
      return (n - 1) * n;
    case CollectiveKind::TreeAllreduce:
      return 2 * (n - 1);
  }
  return 0;
}

std::vector<Transfer> expand_collective(CollectiveKind kind, std::uint32_t n, std::uint64_t bytes) {
  switch (kind) {
    case CollectiveKind::RingAllreduce:
      return ring(n, bytes, 2 * (n - 1));
    case CollectiveKind::RingReduceScatter:
    case CollectiveKind::RingAllgather:
      return ring(n, bytes, n - 1);
    case CollectiveKind::TreeAllreduce:
      return tree(n, bytes);
    case CollectiveKind::AllToAll: {
      std::vector<Transfer> out;
      for (std::uint32_t i = 0; i < n; ++i)
        for (std::uint32_t j = 0; j < n; ++j)
          if (i != j) out.push_back({i, j, chunk_bytes(bytes, n, j), {}});
      return out;
    }
  }
  return {};
}

}  // namespace cnuas
