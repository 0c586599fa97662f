// Everything one simulation run shares: the scheduler, the trace, the elements
// and the operations. SystemC elaborates once per process, so there is one run
// per process and elements reach it through RunContext::current().
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "core/kernel/operation.h"
#include "core/kernel/scheduler.h"
#include "core/kernel/trace.h"
#include "core/outputs/waveforms.h"

namespace cnuas {

class Element;

class RunContext {
 public:
  static RunContext& current();

  Scheduler& scheduler();
  TraceSink& trace() { return trace_; }
  const TraceSink& trace() const { return trace_; }
  Waveforms* waveforms() { return waveforms_; }
  void enable_waveforms(const std::string& vcd_path);

  std::uint32_t add_component(Element* element);
  const std::vector<Element*>& elements() const { return elements_; }
  const std::vector<std::string>& component_names() const { return component_names_; }
  const std::vector<std::uint32_t>& component_lanes() const { return component_lanes_; }

  // Operations are stored contiguously (a deque keeps their addresses stable), so
  // that consecutive ones share cache lines.
  Operation& add_operation(Operation op);
  const std::vector<Operation*>& operations() const { return operation_ptrs_; }
  const Route& add_route(Route route);
  const OperationSpec& add_spec(OperationSpec spec);
  PayloadPool& payloads() { return payloads_; }

  // Bad input discovered while simulating (a service time beyond 2^64 ps, a
  // foreign model's error response): recorded, the simulation stops, and the
  // command reports it as an input error.
  void fail(const std::string& message);
  const std::string& failure() const { return failure_; }

  // Per component: JSON members naming its calibration target and held-out
  // error, or "" while it reports analytic time.
  std::vector<std::string> calibration_members;

  TraceHeader header;
  bool trace_enabled = true;

 private:
  RunContext() = default;
  std::unique_ptr<Scheduler> scheduler_;
  std::string failure_;
  Waveforms* waveforms_ = nullptr;
  std::unique_ptr<Waveforms> waveforms_owner_;
  TraceSink trace_;
  std::vector<Element*> elements_;
  std::vector<std::string> component_names_;
  std::vector<std::uint32_t> component_lanes_;
  std::deque<Operation> operations_;
  std::vector<Operation*> operation_ptrs_;
  std::vector<std::unique_ptr<Route>> routes_;
  std::deque<OperationSpec> specs_;
  PayloadPool payloads_;
};

}  // namespace cnuas
