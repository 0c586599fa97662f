// The GPU model's calendar: events in picoseconds, equal times in the order
// they were scheduled. Only elements with work schedule events, so idle SMs
// and banks cost nothing.
#pragma once

#include <cstdint>
#include <queue>
#include <vector>

namespace cnuas::gpu {

class EventTarget {
 public:
  virtual ~EventTarget() = default;
  virtual void on_event(std::uint32_t kind, void* data, std::uint64_t now_ps) = 0;
};

class EventQueue {
 public:
  void schedule(std::uint64_t at_ps, EventTarget* target, std::uint32_t kind,
                void* data = nullptr) {
    heap_.push(Event{at_ps, seq_++, target, data, kind});
  }
  bool empty() const { return heap_.empty(); }
  std::uint64_t next_time() const { return heap_.empty() ? UINT64_MAX : heap_.top().at_ps; }
  std::uint64_t now() const { return now_; }

  // Moves the clock forward with no event (between kernels).
  void advance_to(std::uint64_t ps) {
    if (ps > now_) now_ = ps;
  }

  // Runs the earliest event; false when none is left.
  bool run_one() {
    if (heap_.empty()) return false;
    const Event e = heap_.top();
    heap_.pop();
    now_ = e.at_ps;
    e.target->on_event(e.kind, e.data, e.at_ps);
    return true;
  }

 private:
  struct Event {
    std::uint64_t at_ps;
    std::uint64_t seq;
    EventTarget* target;
    void* data;
    std::uint32_t kind;
    bool operator>(const Event& o) const {
      return at_ps != o.at_ps ? at_ps > o.at_ps : seq > o.seq;
    }
  };
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> heap_;
  std::uint64_t seq_ = 0;
  std::uint64_t now_ = 0;
};

}  // namespace cnuas::gpu
