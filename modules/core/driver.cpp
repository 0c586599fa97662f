#include "core/driver.h"

#include <algorithm>

#include "core/element.h"
#include "core/run_context.h"
#include "core/scheduler.h"

namespace cnuas {

WorkloadDriver::WorkloadDriver(sc_core::sc_module_name name, std::vector<OperationGroup> groups)
    : sc_module(name),
      out("out"),
      groups_(std::move(groups)),
      payloads_(RunContext::current().payloads()) {
  out.register_nb_transport_bw(this, &WorkloadDriver::nb_transport_bw);
  for (std::uint32_t g = 0; g < groups_.size(); ++g) {
    groups_[g].waiting_for = static_cast<std::uint32_t>(groups_[g].after.size());
    for (std::uint32_t dep : groups_[g].after) groups_[dep].dependents.push_back(g);
    for (std::uint32_t i = 0; i < groups_[g].instances.size(); ++i) {
      const Operation* op = groups_[g].instances[i];
      if (group_of_.size() <= op->index) {
        group_of_.resize(op->index + 1);
        position_.resize(op->index + 1);
      }
      group_of_[op->index] = g;
      position_[op->index] = i;
      ++total_;
    }
  }
  SC_METHOD(start);
}

void WorkloadDriver::start() {
  for (std::uint32_t g = 0; g < groups_.size(); ++g)
    if (groups_[g].waiting_for == 0) release(g);
}

void WorkloadDriver::release(std::uint32_t g) {
  OperationGroup& group = groups_[g];
  auto ready_of = [&](std::uint32_t i) {
    return std::max(group.start_ps + i * group.interval_ps, group.released_at_ps);
  };
  if (!group.periodic) {
    inject(*group.instances[0], ready_of(0));
  } else {
    for (std::uint32_t i = 0; i < group.instances.size(); ++i)
      inject(*group.instances[i], ready_of(i));
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
  payloads_.release(op);
  ++completed_;
  const std::uint32_t g = group_of_[op.index];
  OperationGroup& group = groups_[g];
  group.completed_at_ps = std::max(group.completed_at_ps, done_ps);
  ++group.completed;
  const std::uint32_t next = position_[op.index] + 1;
  if (!group.periodic && next < group.instances.size())
    inject(*group.instances[next], std::max(done_ps, group.start_ps));
  if (group.completed == group.instances.size()) {
    for (std::uint32_t d : group.dependents) {
      OperationGroup& dependent = groups_[d];
      dependent.released_at_ps = std::max(dependent.released_at_ps, group.completed_at_ps);
      if (--dependent.waiting_for == 0) release(d);
    }
  }
  return tlm::TLM_COMPLETED;
}

}  // namespace cnuas
