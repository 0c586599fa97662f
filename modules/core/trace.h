// One ordered trace for the whole run.
//
// Every booked stage becomes one compact record in memory. On output the
// records are ordered by (t_ps = start_ps, seq), so the trace is the same
// whatever order SystemC ran the processes in.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace cnuas {

struct Operation;

struct StageEvent {
  std::uint64_t seq;  // booking order, unique in the run
  std::uint64_t ready_ps;
  std::uint64_t start_ps;
  std::uint64_t end_ps;
  std::uint32_t op;         // index into the run's operations
  std::uint32_t component;  // index into the run's components
  std::uint32_t stage;
  std::uint32_t lane;
  bool pinned;
};

struct TraceHeader {
  std::string platform;
  std::string workload;
  std::string evidence_class = "analytic";
};

class TraceSink {
 public:
  void reserve(std::size_t n) { events_.reserve(n); }
  void record(std::uint32_t op, std::uint32_t component, std::uint32_t stage, std::uint32_t lane,
              std::uint64_t ready_ps, std::uint64_t start_ps, std::uint64_t end_ps, bool pinned) {
    events_.push_back({next_seq_++, ready_ps, start_ps, end_ps, op, component, stage, lane, pinned});
  }
  const std::vector<StageEvent>& events() const { return events_; }
  // Events in trace order: (start_ps, seq).
  std::vector<StageEvent> ordered() const;

 private:
  std::vector<StageEvent> events_;
  std::uint64_t next_seq_ = 0;
};

// Names the writers need to turn indices back into text.
struct TraceNames {
  const std::vector<std::string>* components;
  const std::vector<std::uint32_t>* component_lanes;
  const std::vector<Operation*>* operations;
};

void write_trace_jsonl(std::ostream& out, const TraceHeader& header,
                       const std::vector<StageEvent>& ordered, const TraceNames& names);
void write_trace_perfetto(std::ostream& out, const TraceHeader& header,
                          const std::vector<StageEvent>& ordered, const TraceNames& names);

// "12.345678" microseconds, exactly, from picoseconds (Perfetto's unit).
std::string ps_to_us_text(std::uint64_t ps);

}  // namespace cnuas
