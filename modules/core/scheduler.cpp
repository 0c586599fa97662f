#include "core/scheduler.h"

#include <algorithm>

#include "core/element.h"

namespace cnuas {

Scheduler::Scheduler(sc_core::sc_module_name name) : sc_module(name) {
  SC_METHOD(dispatch);
  sensitive << wake_;
  dont_initialize();
}

void Scheduler::enqueue(Element* element, Operation* op, std::uint32_t stage,
                        std::uint32_t in_port, std::uint64_t ready_ps) {
  heap_.push_back({ready_ps, arrivals_++, element, op, stage, in_port});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  if (!dispatching_ && ready_ps < armed_for_) arm(now_ps());
}

void Scheduler::arm(std::uint64_t now) {
  armed_for_ = heap_.front().ready_ps;
  wake_.notify(sc_core::sc_time::from_value(armed_for_ - now));
}

void Scheduler::dispatch() {
  ++wakeups_;
  const std::uint64_t now = now_ps();
  armed_for_ = UINT64_MAX;
  dispatching_ = true;
  // Booking may enqueue more stages ready now (overlap mode); they join this loop.
  while (!heap_.empty() && heap_.front().ready_ps <= now) {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    Entry e = heap_.back();
    heap_.pop_back();
    e.element->book_stage(*e.op, e.stage, e.in_port, e.ready_ps);
  }
  dispatching_ = false;
  if (!heap_.empty()) arm(now);
}

}  // namespace cnuas
