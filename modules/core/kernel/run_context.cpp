#include "core/kernel/run_context.h"

#include "core/kernel/element.h"
#include "core/kernel/errors.h"

namespace cnuas {

RunContext* RunContext::active_ = nullptr;

RunContext::RunContext() {
  if (active_ != nullptr)
    throw InternalError("a second simulation run was started while one is active");
  active_ = this;
}

RunContext::~RunContext() {
  if (active_ == this) active_ = nullptr;
}

RunContext& RunContext::current() {
  if (active_ == nullptr)
    throw InternalError(
        "no simulation run is active: elements are built inside a run (Simulation) or by a "
        "caller that owns a RunContext");
  return *active_;
}

Scheduler& RunContext::scheduler() {
  if (!scheduler_) scheduler_ = std::make_unique<Scheduler>("scheduler");
  return *scheduler_;
}

void RunContext::enable_waveforms(const std::string& vcd_path) {
  waveforms_owner_ = std::make_unique<Waveforms>("waveforms", vcd_path);
  waveforms_ = waveforms_owner_.get();
}

std::uint32_t RunContext::add_component(Element* element) {
  elements_.push_back(element);
  component_names_.push_back(element->name());
  component_lanes_.push_back(element->lanes().size());
  return static_cast<std::uint32_t>(elements_.size() - 1);
}

Operation& RunContext::add_operation(Operation op) {
  op.index = static_cast<std::uint32_t>(operations_.size());
  operations_.push_back(std::move(op));
  operation_ptrs_.push_back(&operations_.back());
  return operations_.back();
}

void RunContext::fail(const std::string& message, bool internal) {
  if (failed()) return;
  failure_ = message;
  internal_failure_ = internal;
  sc_core::sc_stop();
}

void RunContext::throw_if_failed() const {
  if (!failed()) return;
  if (internal_failure_) throw InternalError(failure_);
  throw InputError(failure_);
}

const OperationSpec& RunContext::add_spec(OperationSpec spec) {
  specs_.push_back(std::move(spec));
  return specs_.back();
}

const Route& RunContext::add_route(Route route) {
  routes_.push_back(std::make_unique<Route>(std::move(route)));
  return *routes_.back();
}

}  // namespace cnuas
