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

// 40 bytes; the booking sequence number is the event's position in the sink.
struct StageEvent {
  std::uint64_t ready_ps;
  std::uint64_t start_ps;
  std::uint64_t end_ps;
  std::uint32_t op;         // index into the run's operations
  std::uint32_t component;  // index into the run's components
  std::uint32_t stage;
  std::uint16_t lane;
  bool pinned;
  bool calibrated;  // a calibrated prediction rather than analytic time
};

struct TraceHeader {
  std::string platform;
  std::string workload;
  std::string evidence_class = "analytic";
};

// Events live in 8 MiB chunks mapped already populated: recording a stage
// never copies earlier events, and a long run takes no page fault per page.
class TraceSink {
 public:
  TraceSink() = default;
  TraceSink(const TraceSink&) = delete;
  TraceSink& operator=(const TraceSink&) = delete;
  ~TraceSink();

  void record(std::uint32_t op, std::uint32_t component, std::uint32_t stage, std::uint32_t lane,
              std::uint64_t ready_ps, std::uint64_t start_ps, std::uint64_t end_ps, bool pinned,
              bool calibrated = false) {
    if (fill_ == kChunkEvents) add_chunk();
    chunks_.back()[fill_++] = {
        ready_ps, start_ps,  end_ps, op, component, stage, static_cast<std::uint16_t>(lane),
        pinned,   calibrated};
    ++size_;
  }
  std::size_t size() const { return size_; }

  // A point event (a power alarm, a battery takeover) for the same ordered
  // trace; `fields` is extra JSON members, e.g. "\"load_w\":12.5".
  struct Instant {
    std::uint64_t at_ps;
    std::uint32_t component;
    std::string name;
    std::string fields;
  };
  void record_instant(Instant instant) { instants_.push_back(std::move(instant)); }
  const std::vector<Instant>& instants() const { return instants_; }
  // The event with booking sequence number `seq`.
  const StageEvent& operator[](std::size_t seq) const {
    return chunks_[seq / kChunkEvents][seq % kChunkEvents];
  }
  // Sequence numbers in trace order: (time, seq). Stages are 0..size()-1 and
  // instants follow as size()+i, recorded after the stages they concern.
  std::vector<std::uint64_t> ordered() const;
  std::uint64_t time_of(std::uint64_t seq) const {
    return seq < size_ ? (*this)[seq].start_ps : instants_[seq - size_].at_ps;
  }

 private:
  static constexpr std::size_t kChunkBytes = 8u << 20;
  static constexpr std::size_t kChunkEvents = kChunkBytes / sizeof(StageEvent);
  void add_chunk();
  std::vector<StageEvent*> chunks_;
  std::vector<Instant> instants_;
  std::size_t fill_ = kChunkEvents;
  std::size_t size_ = 0;
};

// Names the writers need to turn indices back into text.
struct TraceNames {
  const std::vector<std::string>* components;
  const std::vector<std::uint32_t>* component_lanes;
  const std::vector<Operation*>* operations;
  // Per component, for calibrated ones: the JSON members naming the target and
  // its held-out error (empty for analytic components).
  const std::vector<std::string>* calibration_members = nullptr;
};

// Removes from `ordered` the stages of components whose `traced` entry is
// false; point events stay. Nothing changes when every component is traced.
void drop_untraced_stages(std::vector<std::uint64_t>& ordered, const TraceSink& sink,
                          const std::vector<bool>& traced);

void write_trace_jsonl(std::ostream& out, const TraceHeader& header, const TraceSink& sink,
                       const std::vector<std::uint64_t>& ordered, const TraceNames& names);
void write_trace_perfetto(std::ostream& out, const TraceHeader& header, const TraceSink& sink,
                          const std::vector<std::uint64_t>& ordered, const TraceNames& names);

// "12.345678" microseconds, exactly, from picoseconds (Perfetto's unit).
std::string ps_to_us_text(std::uint64_t ps);

}  // namespace cnuas
