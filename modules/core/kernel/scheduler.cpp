#include "core/kernel/scheduler.h"

#include "core/kernel/progress.h"

#include <algorithm>

#include "core/kernel/element.h"

namespace cnuas {

Scheduler::Scheduler(sc_core::sc_module_name name) : sc_module(name) {
  SC_METHOD(dispatch);
  sensitive << wake_;
  dont_initialize();
}

void Scheduler::enqueue(Element* element, Operation* op, std::uint32_t stage,
                        std::uint64_t ready_ps) {
  heap_.push_back({ready_ps, arrivals_++, element, op, stage});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
  if (!dispatching_ && ready_ps < armed_for_) arm(now_ps());
}

void Scheduler::arm(std::uint64_t now) {
  armed_for_ = heap_.front().ready_ps;
  wake_.notify(ps_time(armed_for_ - now));
}

// The earliest time at which any other SystemC process could run and deliver a
// request: nothing can arrive before it, so bookings up to it are final.
std::uint64_t Scheduler::horizon(std::uint64_t now) const {
  if (!lookahead_) return now + 1;
  // Zero when something is runnable now; the end of time when nothing is pending.
  const std::uint64_t gap =
      sc_core::sc_time_to_pending_activity(sc_core::sc_get_curr_simcontext()).value();
  if (gap == 0) return now + 1;
  return gap >= UINT64_MAX - now ? UINT64_MAX : now + gap;
}

void Scheduler::dispatch() {
  ++wakeups_;
  const std::uint64_t now = sc_core::sc_time_stamp().value();
  armed_for_ = UINT64_MAX;
  dispatching_ = true;
  detail::dispatch_now_ps = now;
  detail::dispatching = true;
  // Conservative lookahead: a stage ready after `now` is booked right away when
  // no other process has activity pending before its ready time, so no request
  // can still arrive ahead of it. Results are the same as waking at each ready
  // time; only the SystemC wake-ups are saved. Booking may enqueue more stages
  // (the next hop, the next operation); they join this loop in order.
  std::uint64_t limit = now + 1;    // entries ready before this are safe to book
  std::uint64_t checked_for = now;  // the ready time the limit was last computed for
  while (!heap_.empty()) {
    const Entry& top = heap_.front();
    if (top.ready_ps > now) {
      if (!top.element->allows_lookahead()) break;
      // Bookings may have created SystemC activity; look again at each new time.
      if (top.ready_ps != checked_for) {
        limit = horizon(now);
        checked_for = top.ready_ps;
      }
      if (top.ready_ps >= limit) break;
    }
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    Entry e = heap_.back();
    heap_.pop_back();
    // The next entry's operation is usually cold (operations complete in a
    // scattered order on large platforms): start loading it now.
    if (!heap_.empty()) __builtin_prefetch(heap_.front().op);
    e.element->book_stage(*e.op, static_cast<std::uint32_t>(e.stage), e.ready_ps);
    // Booking runs ahead of SystemC's time: its ready times are the run's progress.
    progress::simulated_ps.store(e.ready_ps, std::memory_order_relaxed);
  }
  dispatching_ = false;
  detail::dispatching = false;
  if (!heap_.empty()) arm(now);
}

}  // namespace cnuas
