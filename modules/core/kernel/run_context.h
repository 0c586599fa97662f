// Everything one simulation run shares: the scheduler, the trace, the elements
// and the operations.
//
// Lifetimes. Whoever runs a simulation owns its RunContext: a Simulation (one
// member, made with it and destroyed after its elements and drivers), the
// calibration probe, a test or a benchmark. While it exists it is the *active*
// context, and there is at most one at a time (SystemC elaborates one design
// per process; a second is an internal error). Elements are made by factories
// with a fixed signature, so they take the active context from current() in
// their constructor and keep a reference; nothing reaches for it later, and
// current() with none active is an internal error. Drivers and the run are
// given what they need explicitly. The context owns the scheduler and the
// waveforms (sc_modules); it must outlive every element built in it.
#pragma once

#include <deque>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "core/inputs/collectives.h"
#include "core/kernel/log.h"
#include "core/kernel/operation.h"
#include "core/kernel/scheduler.h"
#include "core/kernel/trace.h"
#include "core/outputs/waveforms.h"

namespace cnuas {

class Element;

// A collective of the workload; its transfers are the operations
// [first_op, first_op + count).
struct CollectiveRecord {
  std::string name;
  CollectiveKind kind;
  std::uint32_t ranks;
  std::uint32_t channels;
  std::uint64_t bytes;  // buffer per rank (nccl-tests' size)
  std::uint32_t first_op;
  std::uint32_t count;
};

class RunContext {
 public:
  RunContext();  // becomes the active context
  ~RunContext();
  RunContext(const RunContext&) = delete;
  RunContext& operator=(const RunContext&) = delete;

  // The active context; throws InternalError when there is none.
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
  // An element that sized its lanes from its ports (end of elaboration) says so here.
  void set_component_lanes(std::uint32_t component, std::uint32_t lanes) {
    component_lanes_[component] = lanes;
  }

  // Operations are stored contiguously (a deque keeps their addresses stable), so
  // that consecutive ones share cache lines.
  Operation& add_operation(Operation op);
  const std::vector<Operation*>& operations() const { return operation_ptrs_; }
  const Route& add_route(Route route);
  const OperationSpec& add_spec(OperationSpec spec);
  PayloadPool& payloads() { return payloads_; }

  // A failure while simulating stops the simulation; the first one is kept.
  // Bad input (a service time beyond 2^64 ps from the user's figures, a
  // foreign model's error response) is reported as an input error (exit 2);
  // anything else a model throws, or a broken protocol, as an internal error
  // (exit 1). `message` names the element and the operation.
  void fail_input(const std::string& message) { fail(message, false); }
  void fail_internal(const std::string& message) { fail(message, true); }
  bool failed() const { return !failure_.empty(); }
  const std::string& failure() const { return failure_; }
  // Throws the recorded failure (InputError or InternalError); nothing when none.
  void throw_if_failed() const;

  // Per component: JSON members naming its calibration target and held-out
  // error, or "" while it reports analytic time.
  std::vector<std::string> calibration_members;
  std::vector<CollectiveRecord> collectives;

  TraceHeader header;
  bool trace_enabled = true;
  // Whether a stage's engine or ingress lane gets a trace record of its own
  // (trace files need them; stats and power use the main records only, and
  // without them a main record's ready time includes the feed's wait).
  bool record_feeds = true;
  // The run's message level (elements whose `log` is "inherit" take it; set it
  // before they are built) and where messages go.
  LogLevel log_level = LogLevel::Warning;
  std::ostream* log_stream = &std::cerr;

 private:
  static RunContext* active_;
  void fail(const std::string& message, bool internal);

  std::unique_ptr<Scheduler> scheduler_;
  std::string failure_;
  bool internal_failure_ = false;
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
