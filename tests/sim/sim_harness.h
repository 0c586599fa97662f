// Building blocks for simulation tests: elements made directly from field
// values, and an initiator that sends operations at chosen times.
// Each test runs in its own process (gtest_discover_tests), as SystemC
// elaborates only once per process.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <systemc>

#include "core/inputs/profile.h"
#include "core/kernel/element.h"
#include "core/kernel/run_context.h"
#include "core/kernel/stage_protocol.h"

namespace cnuas::testing_support {

// The test process's run. SystemC elaborates once per process, so one context
// serves the whole test; it is made before the first element (so that
// RunContext::current() finds it) and lives until the process exits.
inline RunContext& test_run() {
  static RunContext run;
  return run;
}

template <class Model>
std::unique_ptr<Model> make_element(const char* name,
                                    const std::map<std::string, std::string>& fields) {
  test_run().scheduler();  // the shared calendar comes first
  RawValues values;
  for (const auto& [k, v] : fields) values[k] = {v, {}};
  return std::make_unique<Model>(name, resolve_params(Model::schema(), values, name, {}));
}

// An operation along `path`, sent on `initiator_port` of path[0].in; each
// element hands it on by the first binding of its `out`.
inline Operation& make_operation(const std::string& name, WorkDims dims, StageMode mode,
                                 std::vector<Element*> path, std::uint32_t initiator_port = 0) {
  Route route;
  route.path = std::move(path);
  route.out_port.assign(route.path.size(), 0);
  route.initiator_port = initiator_port;
  const OperationSpec& spec = RunContext::current().add_spec({name, dims, false, false, "", ""});
  Operation op;
  op.spec = &spec;
  op.dims = &spec.dims;
  op.mode = mode;
  op.route = &RunContext::current().add_route(std::move(route));
  return RunContext::current().add_operation(std::move(op));
}

inline WorkDims bytes(std::uint64_t n) {
  WorkDims d;
  d.set(WorkDim::Bytes, n);
  return d;
}

// Sends each planned operation at `send_at_ps` with `ready_at_ps - send_at_ps` as annotated delay.
class TestInitiator : public sc_core::sc_module {
 public:
  StageInitiatorSocket<TestInitiator> out;
  std::map<std::string, std::uint64_t> completed_ps;

  SC_HAS_PROCESS(TestInitiator);
  explicit TestInitiator(sc_core::sc_module_name name) : sc_module(name), out("out") {
    out.register_nb_transport_bw(this, &TestInitiator::nb_transport_bw);
    SC_THREAD(run);
  }
  void plan(std::uint64_t send_at_ps, Operation& op, std::uint64_t ready_at_ps,
            std::uint32_t port = 0) {
    plan_.emplace_back(send_at_ps, &op, ready_at_ps, port);
  }

 private:
  void run() {
    for (auto& [send_at, op, ready_at, port] : plan_) {
      const std::uint64_t now = sc_core::sc_time_stamp().value();
      if (send_at > now) wait(sc_core::sc_time::from_value(send_at - now));
      op->ready_ps = op->end_ps = ready_at;
      tlm::tlm_generic_payload& payload = RunContext::current().payloads().acquire(*op);
      tlm::tlm_phase phase = tlm::BEGIN_REQ;
      sc_core::sc_time delay = sc_core::sc_time::from_value(ready_at - send_at);
      out[static_cast<int>(port)]->nb_transport_fw(payload, phase, delay);
    }
  }
  tlm::tlm_sync_enum nb_transport_bw(int, tlm::tlm_generic_payload& trans, tlm::tlm_phase&,
                                     sc_core::sc_time& delay) {
    Operation& op = *trans.get_extension<OperationExtension>()->operation;
    completed_ps[op.name()] = sc_core::sc_time_stamp().value() + delay.value();
    RunContext::current().payloads().release(op);
    return tlm::TLM_COMPLETED;
  }
  std::vector<std::tuple<std::uint64_t, Operation*, std::uint64_t, std::uint32_t>> plan_;
};

// The booked stages of one operation, in booking order.
inline std::vector<StageEvent> stages_of(const std::string& op_name) {
  std::vector<StageEvent> out;
  const auto& ops = RunContext::current().operations();
  const TraceSink& trace = RunContext::current().trace();
  for (std::size_t seq = 0; seq < trace.size(); ++seq)
    if (ops[trace[seq].op]->name() == op_name) out.push_back(trace[seq]);
  return out;
}

}  // namespace cnuas::testing_support
