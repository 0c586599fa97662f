#include "core/kernel/driver.h"

#include <algorithm>

#include "core/kernel/element.h"
#include "core/kernel/scheduler.h"

namespace cnuas {

std::uint32_t DependencyGraph::add_node(Operation* op, std::uint64_t earliest_ps) {
  const auto node = static_cast<std::uint32_t>(ops_.size());
  ops_.push_back(op);
  earliest_ps_.push_back(earliest_ps);
  if (op != nullptr) {
    if (node_of_op_.size() <= op->index) node_of_op_.resize(op->index + 1, kNone);
    node_of_op_[op->index] = node;
  }
  return node;
}

void DependencyGraph::finalize() {
  const std::size_t n = ops_.size();
  first_dependent_.assign(n + 1, 0);
  waiting_.assign(n, 0);
  released_ps_.assign(n, 0);
  for (auto [before, after] : edges_) {
    ++first_dependent_[before + 1];
    ++waiting_[after];
  }
  for (std::size_t i = 0; i < n; ++i) first_dependent_[i + 1] += first_dependent_[i];
  dependents_.resize(edges_.size());
  std::vector<std::uint32_t> fill(first_dependent_.begin(), first_dependent_.end() - 1);
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
  for (const Operation* op : graph_.ops_) total_ += op != nullptr;
  SC_METHOD(start);
}

void WorkloadDriver::start() {
  for (std::uint32_t node = 0; node < graph_.size(); ++node)
    if (graph_.waiting_[node] == 0) release(node);
}

void WorkloadDriver::release(std::uint32_t node) {
  const std::uint64_t ready = std::max(graph_.earliest_ps_[node], graph_.released_ps_[node]);
  if (Operation* op = graph_.ops_[node]) {
    inject(*op, ready);
  } else {
    complete(node, ready);  // a join completes as soon as everything before it has
  }
}

void WorkloadDriver::complete(std::uint32_t node, std::uint64_t done_ps) {
  // Iterative, so that long chains of joins cannot exhaust the stack; first
  // in, first out, so that operations released together are sent in
  // declaration order (equal ready times are then booked in that order).
  const std::size_t base = ready_.size();
  std::size_t head = base;
  auto finish = [&](std::uint32_t n, std::uint64_t done) {
    for (std::uint32_t i = graph_.first_dependent_[n]; i < graph_.first_dependent_[n + 1]; ++i) {
      const std::uint32_t d = graph_.dependents_[i];
      graph_.released_ps_[d] = std::max(graph_.released_ps_[d], done);
      if (--graph_.waiting_[d] == 0) ready_.push_back(d);
    }
  };
  finish(node, done_ps);
  while (head < ready_.size()) {
    const std::uint32_t next = ready_[head++];
    const std::uint64_t ready = std::max(graph_.earliest_ps_[next], graph_.released_ps_[next]);
    if (Operation* op = graph_.ops_[next]) {
      inject(*op, ready);
    } else {
      finish(next, ready);
    }
  }
  ready_.resize(base);
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
  payloads_.release(op);
  ++completed_;
  complete(graph_.node_of(op), done_ps);
  return tlm::TLM_COMPLETED;
}

}  // namespace cnuas
