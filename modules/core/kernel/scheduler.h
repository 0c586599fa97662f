// The shared booking calendar.
//
// Requests reach elements through TLM with an annotated delay, so they arrive
// before their ready time and in whatever order SystemC ran the initiators. The
// scheduler holds them and books each one when simulated time reaches its ready
// time, in (ready time, arrival order): two initiators that deliver out of time
// order are still served in time order. One SC_METHOD wakes once per distinct
// ready time, not once per stage.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>

#include "core/kernel/sim_time.h"

namespace cnuas {

class Element;
struct Operation;

class Scheduler : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Scheduler);
  explicit Scheduler(sc_core::sc_module_name name);

  void enqueue(Element* element, Operation* op, std::uint32_t stage, std::uint64_t ready_ps);
  std::size_t pending() const { return heap_.size(); }
  std::uint64_t wakeups() const { return wakeups_; }
  // Lookahead is on by default; turning it off wakes SystemC at every ready time
  // (the results are identical; tests compare both).
  void set_lookahead(bool on) { lookahead_ = on; }

 private:
  struct Entry {
    std::uint64_t ready_ps;
    std::uint64_t arrival;
    Element* element;
    Operation* op;
    std::uint64_t stage;
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.ready_ps != b.ready_ps ? a.ready_ps > b.ready_ps : a.arrival > b.arrival;
    }
  };

  void dispatch();
  void arm(std::uint64_t now_ps);
  std::uint64_t horizon(std::uint64_t now_ps) const;

  std::vector<Entry> heap_;
  std::uint64_t arrivals_ = 0;
  std::uint64_t armed_for_ = UINT64_MAX;  // ready time the wake event is set for
  std::uint64_t wakeups_ = 0;
  bool dispatching_ = false;
  bool lookahead_ = true;
  sc_core::sc_event wake_;
};

}  // namespace cnuas
