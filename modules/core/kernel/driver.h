// The workload driver: the initiator that issues operations into the platform.
//
// Operations form a dependency graph: an operation is released when everything
// it waits for has completed (at the latest of those completions, and not
// before its own earliest start). Join nodes stand for "every repetition of an
// entry" so that `after:` between repeated entries costs r + s edges, not r x s.
// Operations enter their first element with the ready time as annotated delay,
// and completions come back as responses, so no SystemC event is spent per
// operation.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>

#include "core/kernel/operation.h"
#include "core/kernel/stage_protocol.h"

namespace cnuas {

class DependencyGraph {
 public:
  static constexpr std::uint32_t kNone = UINT32_MAX;
  // Marks a node's waiting count: something it waits for failed (the rest
  // of the count is the predecessors not yet complete).
  static constexpr std::uint32_t kCancelled = 1u << 31;

  // A node for an operation (not before `earliest_ps`), or a join (op == nullptr).
  std::uint32_t add_node(Operation* op, std::uint64_t earliest_ps);
  std::uint32_t add_join() { return add_node(nullptr, 0); }
  void add_edge(std::uint32_t before, std::uint32_t after) { edges_.emplace_back(before, after); }
  std::uint32_t node_of(const Operation& op) const { return node_of_op_[op.index]; }
  std::size_t size() const { return nodes_.size(); }

 private:
  friend class WorkloadDriver;
  void finalize();  // compressed adjacency and waiting counts

  // What the driver touches for one node, in one place (large collectives
  // release and complete millions of them, in scattered order).
  struct Node {
    Operation* op;  // nullptr for a join
    std::uint64_t earliest_ps;
    std::uint64_t released_ps = 0;      // the latest completion it waited for
    std::uint32_t waiting = 0;          // predecessors not yet complete
    std::uint32_t first_dependent = 0;  // into dependents_; the next node's ends its list
  };
  std::vector<Node> nodes_;  // after finalize, one more: the end of the last list
  std::vector<std::uint32_t> node_of_op_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges_;
  std::vector<std::uint32_t> dependents_;
};

class WorkloadDriver : public sc_core::sc_module {
 public:
  StageInitiatorSocket<WorkloadDriver> out;

  SC_HAS_PROCESS(WorkloadDriver);
  // Payloads come from the run's pool, which must outlive the driver.
  WorkloadDriver(sc_core::sc_module_name name, DependencyGraph graph, PayloadPool& payloads);

  std::uint64_t completed_operations() const { return completed_; }
  std::uint64_t total_operations() const { return total_; }

 private:
  void start();
  void release(std::uint32_t node);
  void complete(std::uint32_t node, std::uint64_t done_ps, bool failed);
  void inject(Operation& op, std::uint64_t ready_ps);
  void look_ahead(std::uint32_t node);
  tlm::tlm_sync_enum nb_transport_bw(int id, tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);

  DependencyGraph graph_;
  PayloadPool& payloads_;
  std::vector<std::uint32_t> ready_;  // joins released but not yet propagated
  // Prefetch pipeline (look_ahead): per slot, what an injection kLag ago left.
  static constexpr std::uint32_t kLag = 8, kFanout = 4;
  struct Ahead {
    std::uint32_t node = DependencyGraph::kNone;  // injected: its dependents' list is loading
    std::uint32_t dependents[kFanout];            // their nodes are loading
    std::uint32_t count = 0;
  };
  Ahead ahead_[kLag];
  std::uint32_t ahead_slot_ = 0;
  std::uint64_t completed_ = 0;
  std::uint64_t total_ = 0;
};

}  // namespace cnuas
