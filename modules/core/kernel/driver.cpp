#include "core/kernel/driver.h"

#include <algorithm>

#include "core/kernel/element.h"
#include "core/kernel/scheduler.h"

namespace cnuas {

std::uint32_t DependencyGraph::add_node(Operation* op, std::uint64_t earliest_ps) {
  const auto node = static_cast<std::uint32_t>(nodes_.size());
  nodes_.push_back({op, earliest_ps});
  if (op != nullptr) {
    if (node_of_op_.size() <= op->index) node_of_op_.resize(op->index + 1, kNone);
    node_of_op_[op->index] = node;
  }
  return node;
}

void DependencyGraph::finalize() {
  const std::size_t n = nodes_.size();
  nodes_.push_back({nullptr, 0});  // the end of the last node's dependents
  for (auto [before, after] : edges_) {
    ++nodes_[before + 1].first_dependent;
    ++nodes_[after].waiting;
  }
  for (std::size_t i = 0; i < n; ++i) nodes_[i + 1].first_dependent += nodes_[i].first_dependent;
  dependents_.resize(edges_.size());
  std::vector<std::uint32_t> fill(n);
  for (std::size_t i = 0; i < n; ++i) fill[i] = nodes_[i].first_dependent;
  for (auto [before, after] : edges_)
    dependents_[fill[before]++] = after;  // keeps declaration order
  edges_.clear();
  edges_.shrink_to_fit();
}

WorkloadDriver::WorkloadDriver(sc_core::sc_module_name name, DependencyGraph graph,
                               PayloadPool& payloads)
    : sc_module(name), out("out"), graph_(std::move(graph)), payloads_(payloads) {
  out.register_nb_transport_bw(this, &WorkloadDriver::nb_transport_bw);
  graph_.finalize();
  for (std::size_t i = 0; i + 1 < graph_.nodes_.size(); ++i)
    total_ += graph_.nodes_[i].op != nullptr;
  SC_METHOD(start);
}

void WorkloadDriver::start() {
  for (std::uint32_t node = 0; node + 1 < graph_.nodes_.size(); ++node)
    if (graph_.nodes_[node].waiting == 0) release(node);
}

void WorkloadDriver::release(std::uint32_t node) {
  const DependencyGraph::Node& n = graph_.nodes_[node];
  const std::uint64_t ready = std::max(n.earliest_ps, n.released_ps);
  if (n.op != nullptr) {
    look_ahead(node);
    inject(*n.op, ready);
  } else {
    complete(node, ready, false);  // a join completes as soon as everything before it has
  }
}

void WorkloadDriver::complete(std::uint32_t node, std::uint64_t done_ps, bool failed) {
  // Iterative, so that long chains of joins cannot exhaust the stack; first
  // in, first out, so that operations released together are sent in
  // declaration order (equal ready times are then booked in that order).
  const std::size_t base = ready_.size();
  std::size_t head = base;
  auto finish = [&](std::uint32_t n, std::uint64_t done, bool cancel) {
    const std::uint32_t end = graph_.nodes_[n + 1].first_dependent;
    for (std::uint32_t i = graph_.nodes_[n].first_dependent; i < end; ++i) {
      DependencyGraph::Node& d = graph_.nodes_[graph_.dependents_[i]];
      d.released_ps = std::max(d.released_ps, done);
      if (cancel) d.waiting |= DependencyGraph::kCancelled;
      if ((--d.waiting & ~DependencyGraph::kCancelled) == 0)
        ready_.push_back(graph_.dependents_[i]);
    }
  };
  finish(node, done_ps, failed);
  while (head < ready_.size()) {
    const std::uint32_t next = ready_[head++];
    const DependencyGraph::Node& n = graph_.nodes_[next];
    const std::uint64_t ready = std::max(n.earliest_ps, n.released_ps);
    const bool cancelled = (n.waiting & DependencyGraph::kCancelled) != 0;
    if (n.op != nullptr && !cancelled) {
      look_ahead(next);
      inject(*n.op, ready);
    } else {
      // Something it waited for failed: it never starts, and what waits for it is cancelled too.
      if (n.op != nullptr) {
        n.op->outcome = Operation::Outcome::Cancelled;
        ++completed_;
      }
      finish(next, ready, cancelled);
    }
  }
  ready_.resize(base);
}

// Large collectives complete their operations in a scattered order, so the
// node, dependents list and operation a completion releases are cold: each a
// cache miss, one after the other. Each injection advances a three-step
// pipeline so that they load while other stages book: this node's dependents
// list now, their nodes kLag injections later, their operations kLag after
// that (long before the injected operation completes). Prefetches change no
// result.
void WorkloadDriver::look_ahead(std::uint32_t node) {
  Ahead& a = ahead_[ahead_slot_];
  ahead_slot_ = (ahead_slot_ + 1) % kLag;
  const auto& nodes = graph_.nodes_;
  for (std::uint32_t i = 0; i < a.count; ++i)
    if (const Operation* op = nodes[a.dependents[i]].op) __builtin_prefetch(op);
  a.count = 0;
  if (a.node != DependencyGraph::kNone) {
    const std::uint32_t first = nodes[a.node].first_dependent;
    const std::uint32_t end = std::min(nodes[a.node + 1].first_dependent, first + kFanout);
    for (std::uint32_t i = first; i < end; ++i) {
      a.dependents[a.count++] = graph_.dependents_[i];
      __builtin_prefetch(&nodes[graph_.dependents_[i]]);
    }
  }
  a.node = node;
  if (node != DependencyGraph::kNone) {
    __builtin_prefetch(&graph_.dependents_[nodes[node].first_dependent]);
    if (const Operation* op = nodes[node].op) __builtin_prefetch(&graph_.node_of_op_[op->index]);
  }
}

void WorkloadDriver::inject(Operation& op, std::uint64_t ready_ps) {
  op.ready_ps = ready_ps;
  op.end_ps = ready_ps;
  tlm::tlm_generic_payload& payload = payloads_.acquire(op);
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_core::sc_time delay = ps_time(ready_ps - now_ps());
  out[static_cast<int>(op.route->path.front()->index())]->nb_transport_fw(payload, phase, delay);
}

tlm::tlm_sync_enum WorkloadDriver::nb_transport_bw(int, tlm::tlm_generic_payload& trans,
                                                   tlm::tlm_phase&, sc_core::sc_time& delay) {
  Operation& op = *trans.get_extension<OperationExtension>()->operation;
  const std::uint64_t done_ps = now_ps() + delay.value();
  const bool failed = trans.get_response_status() != tlm::TLM_OK_RESPONSE;
  payloads_.release(op);
  ++completed_;
  complete(graph_.node_of(op), done_ps, failed);
  return tlm::TLM_COMPLETED;
}

}  // namespace cnuas
