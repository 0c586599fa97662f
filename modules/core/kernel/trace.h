// One ordered trace for the whole run.
//
// Every booked stage becomes one compact record in memory. On output the
// records are ordered by (t_ps = start_ps, seq), so the trace is the same
// whatever order SystemC ran the processes in.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace cnuas {

struct Operation;
struct CounterTrack;

// 48 bytes; the booking sequence number is the event's position in the sink.
// One event per lane a stage holds: a stage on an element with engines (a NIC
// queue, a DMA engine) or an ingress port adds one for that lane, booked just
// before the stage's main lane (part Engine or Ingress).
struct StageEvent {
  enum Part : std::uint8_t { kMain = 0, kEngine = 1, kIngress = 2 };
  // The stage index takes the low 12 bits of `stage_flags` (routes are at most
  // kMaxStages long); part, pinned and calibrated the top 4.
  static constexpr std::uint32_t kMaxStages = 4096;
  static constexpr std::uint16_t kPinned = 1u << 14, kCalibrated = 1u << 15;
  static constexpr unsigned kPartShift = 12;

  std::uint64_t ready_ps;
  std::uint64_t start_ps;
  std::uint64_t free_ps;    // the lane serves others from here: start + occupancy
  std::uint64_t end_ps;     // the stage's result is available downstream
  std::uint32_t op;         // index into the run's operations
  std::uint32_t component;  // index into the run's components
  std::uint16_t lane;
  // The lanes the earliest-lane rule chose among, first..last (a pinned lane: itself).
  std::uint16_t first;
  std::uint16_t last;
  std::uint16_t stage_flags;

  static std::uint16_t pack(std::uint32_t stage, Part part, bool pinned, bool calibrated) {
    return static_cast<std::uint16_t>(stage | (static_cast<unsigned>(part) << kPartShift) |
                                      (pinned ? kPinned : 0) | (calibrated ? kCalibrated : 0));
  }
  std::uint32_t stage() const { return stage_flags & (kMaxStages - 1); }
  Part part() const { return static_cast<Part>((stage_flags >> kPartShift) & 3); }
  bool pinned() const { return (stage_flags & kPinned) != 0; }
  bool calibrated() const { return (stage_flags & kCalibrated) != 0; }  // a calibrated prediction
};
static_assert(sizeof(StageEvent) == 48, "trace records stay compact");

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

  void record(const StageEvent& event) {
    if (fill_ == kChunkEvents) add_chunk();
    chunks_.back()[fill_++] = event;
    ++size_;
  }
  // A stage that waited upstream for admission (back-pressure): its first lane
  // was booked from `admitted_ps`, not from its ready time. Call right after record().
  void record_admission(std::uint64_t admitted_ps) {
    admissions_.emplace_back(size_ - 1, admitted_ps);
  }
  // The admission time of event `seq`, or its ready time when it was not held.
  std::uint64_t admitted_ps(std::size_t seq) const;
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
  std::vector<std::pair<std::uint64_t, std::uint64_t>> admissions_;  // (seq, admitted), by seq
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
  // What a component's lane is ("port 2 wire"); "lane N" when not given.
  std::function<std::string(std::uint32_t component, std::uint32_t lane)> lane_name;
};

// Removes from `ordered` the stages of components whose `traced` entry is
// false; point events stay. Nothing changes when every component is traced.
void drop_untraced_stages(std::vector<std::uint64_t>& ordered, const TraceSink& sink,
                          const std::vector<bool>& traced);

void write_trace_jsonl(std::ostream& out, const TraceHeader& header, const TraceSink& sink,
                       const std::vector<std::uint64_t>& ordered, const TraceNames& names);
// `counters`: counter tracks ("ph":"C") per element, written after the names.
void write_trace_perfetto(std::ostream& out, const TraceHeader& header, const TraceSink& sink,
                          const std::vector<std::uint64_t>& ordered, const TraceNames& names,
                          const std::vector<CounterTrack>* counters = nullptr);

// "12.345678" microseconds, exactly, from picoseconds (Perfetto's unit).
std::string ps_to_us_text(std::uint64_t ps);

}  // namespace cnuas
