#include "core/kernel/trace.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <new>

#include <fmt/format.h>

#include "core/kernel/operation.h"
#include "core/outputs/counter_tracks.h"

namespace cnuas {

// Point events of element faults and lossy links, shown apart from the power ones.
static bool is_fault_event(const std::string& name) {
  return name.rfind("element_", 0) == 0 || name.rfind("link_errors", 0) == 0 ||
         name == "retransmission";
}

TraceSink::~TraceSink() {
  for (StageEvent* chunk : chunks_) munmap(chunk, kChunkBytes);
}

void TraceSink::add_chunk() {
  // Huge pages where the kernel grants them: one fault per 2 MiB instead of one
  // per 4 KiB as the trace grows. The mapping is 2 MiB aligned for that.
  constexpr std::size_t kHuge = 2u << 20;
  void* raw = mmap(nullptr, kChunkBytes + kHuge, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const auto base = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (base + kHuge - 1) & ~(kHuge - 1);
  if (aligned > base) munmap(raw, aligned - base);
  munmap(reinterpret_cast<void*>(aligned + kChunkBytes), base + kHuge - aligned);
  void* memory = reinterpret_cast<void*>(aligned);
  madvise(memory, kChunkBytes, MADV_HUGEPAGE);
  chunks_.push_back(static_cast<StageEvent*>(memory));
  fill_ = 0;
}

std::vector<std::uint64_t> TraceSink::ordered() const {
  std::vector<std::uint64_t> order(size_ + instants_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  // Booking order is nearly trace order already; a stable sort by time keeps seq order on ties.
  std::stable_sort(order.begin(), order.end(),
                   [this](std::uint64_t a, std::uint64_t b) { return time_of(a) < time_of(b); });
  return order;
}

void drop_untraced_stages(std::vector<std::uint64_t>& ordered, const TraceSink& sink,
                          const std::vector<bool>& traced) {
  if (std::find(traced.begin(), traced.end(), false) == traced.end()) return;
  ordered.erase(std::remove_if(ordered.begin(), ordered.end(),
                               [&](std::uint64_t seq) {
                                 return seq < sink.size() && !traced[sink[seq].component];
                               }),
                ordered.end());
}

std::uint64_t TraceSink::admitted_ps(std::size_t seq) const {
  const auto it = std::lower_bound(
      admissions_.begin(), admissions_.end(), seq,
      [](const std::pair<std::uint64_t, std::uint64_t>& a, std::size_t s) { return a.first < s; });
  return it != admissions_.end() && it->first == seq ? it->second : (*this)[seq].ready_ps;
}

static const char* part_name(StageEvent::Part part) {
  return part == StageEvent::kEngine ? "engine" : "ingress";
}

// The members every stage record shares after its times: which part of the
// stage it is, the lanes it chose among, a back-pressure admission.
static void append_choice(fmt::memory_buffer& buf, const TraceSink& sink, std::uint64_t seq,
                          const StageEvent& e) {
  if (e.part() != StageEvent::kMain)
    fmt::format_to(std::back_inserter(buf), ",\"part\":\"{}\"", part_name(e.part()));
  if (e.pinned())
    fmt::format_to(std::back_inserter(buf), ",\"pinned\":true");
  else
    fmt::format_to(std::back_inserter(buf), ",\"among\":[{},{}]", e.first,
                   static_cast<std::uint32_t>(e.last) - e.first + 1);
  const std::uint64_t admitted = sink.admitted_ps(seq);
  if (admitted != e.ready_ps)
    fmt::format_to(std::back_inserter(buf), ",\"admitted_ps\":{}", admitted);
}

std::string ps_to_us_text(std::uint64_t ps) {
  return fmt::format("{}.{:06}", ps / 1000000, ps % 1000000);
}

static void append_dims(fmt::memory_buffer& buf, const WorkDims& dims) {
  buf.push_back('{');
  bool first = true;
  for (const auto& info : work_dim_table()) {
    if (!dims.has(info.id)) continue;
    fmt::format_to(std::back_inserter(buf), "{}\"{}\":{}", first ? "" : ",", info.name,
                   dims.get(info.id));
    first = false;
  }
  buf.push_back('}');
}

void write_trace_jsonl(std::ostream& out, const TraceHeader& header, const TraceSink& sink,
                       const std::vector<std::uint64_t>& ordered, const TraceNames& names) {
  // No header line: every line is a record, so that JSON Lines readers
  // (pandas.read_json(lines=True), jq -s) see one table. The header lives in
  // the run's metadata.json (run/run_metadata.h).
  fmt::memory_buffer buf;
  for (std::uint64_t seq : ordered) {
    if (seq >= sink.size()) {
      const TraceSink::Instant& i = sink.instants()[seq - sink.size()];
      fmt::format_to(
          std::back_inserter(buf),
          "{{\"t_ps\":{},\"seq\":{},\"event\":\"{}\",\"component\":\"{}\",{}\"class\":\"{}\"}}\n",
          i.at_ps, seq, i.name, (*names.components)[i.component],
          i.fields.empty() ? "" : i.fields + ",", header.evidence_class);
      continue;
    }
    const StageEvent& e = sink[seq];
    const Operation& op = *(*names.operations)[e.op];
    fmt::format_to(std::back_inserter(buf),
                   "{{\"t_ps\":{},\"seq\":{},\"op\":\"{}\",\"stage\":{},\"component\":\"{}\","
                   "\"lane\":{},\"ready_ps\":{},\"start_ps\":{},\"free_ps\":{},\"end_ps\":{}",
                   e.start_ps, seq, op.name(), e.stage(), (*names.components)[e.component], e.lane,
                   e.ready_ps, e.start_ps, e.free_ps, e.end_ps);
    append_choice(buf, sink, seq, e);
    fmt::format_to(std::back_inserter(buf), ",\"dims\":");
    append_dims(buf, *op.dims);
    if (e.calibrated())
      fmt::format_to(std::back_inserter(buf), ",\"class\":\"calibrated\",{}}}\n",
                     (*names.calibration_members)[e.component]);
    else
      fmt::format_to(std::back_inserter(buf), ",\"class\":\"{}\"}}\n",
                     op.spec->model_timed ? "model" : "analytic");
    if (buf.size() > (1 << 20)) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

void write_trace_perfetto(std::ostream& out, const TraceHeader& header, const TraceSink& sink,
                          const std::vector<std::uint64_t>& ordered, const TraceNames& names,
                          const std::vector<CounterTrack>* counters) {
  fmt::memory_buffer buf;
  auto put = [&](auto&&... args) { fmt::format_to(std::back_inserter(buf), args...); };
  put("{{\"displayTimeUnit\":\"ns\",\"otherData\":{{\"platform\":\"{}\",\"class\":\"{}\"}},"
      "\"traceEvents\":[\n",
      header.platform, header.evidence_class);
  bool first = true;
  auto sep = [&] {
    if (!first) buf.push_back(',');
    first = false;
  };
  // One process per component, one thread per lane: one track per component lane.
  for (std::uint32_t c = 0; c < names.components->size(); ++c) {
    sep();
    put("{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"args\":{{\"name\":\"{}\"}}}}\n",
        c + 1, (*names.components)[c]);
    for (std::uint32_t lane = 0; lane < (*names.component_lanes)[c]; ++lane) {
      sep();
      put("{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":"
          "\"{}\"}}}}\n",
          c + 1, lane, names.lane_name ? names.lane_name(c, lane) : fmt::format("lane {}", lane));
    }
  }
  for (const CounterTrack& track : counters ? *counters : std::vector<CounterTrack>{})
    for (const auto& [at_ps, value] : track.points) {
      sep();
      put("{{\"ph\":\"C\",\"cat\":\"counter\",\"name\":\"{}\",\"pid\":{},\"ts\":{},\"args\":{{"
          "\"{}\":{}}}}}\n",
          track.name, track.component + 1, ps_to_us_text(at_ps), track.unit,
          track.unit == "W" ? microwatts_text(value) : std::to_string(value));
    }
  for (std::uint64_t seq : ordered) {
    sep();
    if (seq >= sink.size()) {
      const TraceSink::Instant& i = sink.instants()[seq - sink.size()];
      put("{{\"ph\":\"i\",\"s\":\"p\",\"cat\":\"{}\",\"name\":\"{}\",\"pid\":{},\"tid\":0,"
          "\"ts\":{},"
          "\"args\":{{\"seq\":{}{}{}}}}}\n",
          is_fault_event(i.name) ? "fault" : "power", i.name, i.component + 1,
          ps_to_us_text(i.at_ps), seq, i.fields.empty() ? "" : ",", i.fields);
      continue;
    }
    const StageEvent& e = sink[seq];
    const Operation& op = *(*names.operations)[e.op];
    // A slice is the time the stage holds the lane; its end (free + latency) is an argument.
    put("{{\"ph\":\"X\",\"cat\":\"stage\",\"name\":\"{}\",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{"
        "},"
        "\"args\":{{\"seq\":{},\"stage\":{},\"ready_ps\":{},\"start_ps\":{},\"free_ps\":{},"
        "\"end_ps\":{}",
        op.name(), e.component + 1, e.lane, ps_to_us_text(e.start_ps),
        ps_to_us_text(e.free_ps - e.start_ps), seq, e.stage(), e.ready_ps, e.start_ps, e.free_ps,
        e.end_ps);
    append_choice(buf, sink, seq, e);
    // Stages without a class argument are analytic (the header's class says
    // whether calibrated ones are in the run).
    if (op.spec->model_timed) put(",\"class\":\"model\"");
    put("}}}}\n");
    if (buf.size() > (1 << 20)) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  }
  put("]}}\n");
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

}  // namespace cnuas
