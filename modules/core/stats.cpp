#include "core/stats.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/element.h"

namespace cnuas {

WaitSummary summarize_waits(std::vector<std::uint64_t> waits) {
  WaitSummary s;
  s.count = waits.size();
  if (waits.empty()) return s;
  std::sort(waits.begin(), waits.end());
  u128 sum = 0;
  for (auto w : waits) sum += w;
  s.mean = Rational(sum, waits.size());
  auto rank = [&](unsigned percent) {
    std::size_t r = (waits.size() * percent + 99) / 100;  // ceil(n * p / 100), nearest rank
    return waits[std::max<std::size_t>(r, 1) - 1];
  };
  s.p50 = rank(50);
  s.p99 = rank(99);
  s.max = waits.back();
  return s;
}

std::uint64_t makespan_ps(const RunContext& context) {
  std::uint64_t end = 0;
  for (const Operation* op : context.operations()) end = std::max(end, op->end_ps);
  return end;
}

std::vector<std::vector<std::uint64_t>> queue_waits(const RunContext& context) {
  std::vector<std::vector<std::uint64_t>> waits(context.elements().size());
  if (!context.trace_enabled) {
    for (const Element* e : context.elements()) waits[e->index()] = e->stats().waits_ps;
    return waits;
  }
  const TraceSink& trace = context.trace();
  for (std::size_t i = 0; i < trace.size(); ++i)
    waits[trace[i].component].push_back(trace[i].start_ps - trace[i].ready_ps);
  return waits;
}

void write_stats_json(std::ostream& out, const RunContext& context) {
  const std::uint64_t makespan = makespan_ps(context);
  auto ratio = [&](std::uint64_t busy) {
    return makespan == 0 ? std::string("0") : (Rational(busy) / Rational(makespan)).to_decimal(6);
  };
  fmt::memory_buffer b;
  auto put = [&](auto&&... args) { fmt::format_to(std::back_inserter(b), args...); };
  std::uint64_t stages = 0;
  for (const Element* e : context.elements()) stages += e->stats().stages;
  const std::vector<std::vector<std::uint64_t>> waits = queue_waits(context);
  put("{{\n  \"format\": \"cnuas-stats\",\n  \"version\": 1,\n  \"class\": \"{}\",\n  "
      "\"time_unit\": \"ps\",\n"
      "  \"platform\": \"{}\",\n  \"workload\": \"{}\",\n  \"makespan_ps\": {},\n  \"stages\": "
      "{},\n"
      "  \"operations_count\": {},\n  \"elements\": {{",
      context.header.evidence_class, context.header.platform, context.header.workload, makespan,
      stages, context.operations().size());
  bool first = true;
  for (const Element* e : context.elements()) {
    const LaneSet& lanes = e->lanes();
    std::uint64_t busy = 0;
    std::string lane_text;
    for (std::uint32_t l = 0; l < lanes.size(); ++l) {
      busy += lanes.busy_ps(l);
      lane_text += fmt::format("{}{{\"lane\": {}, \"busy_ps\": {}, \"utilization\": {}}}",
                               l ? ", " : "", l, lanes.busy_ps(l), ratio(lanes.busy_ps(l)));
    }
    WaitSummary w = summarize_waits(waits[e->index()]);
    put("{}\n    \"{}\": {{\"type\": \"{}\", \"stages\": {}, \"busy_ps\": {}, \"utilization\": {}, "
        "\"queue_wait_ps\": {{\"mean\": {}, \"p50\": {}, \"p99\": {}, \"max\": {}}}, \"lanes\": "
        "[{}]}}",
        first ? "" : ",", e->name(), e->type(), e->stats().stages, busy,
        lanes.size()
            ? (makespan == 0 ? std::string("0")
                             : (Rational(busy) / Rational(makespan * lanes.size())).to_decimal(6))
            : "0",
        w.mean.to_decimal(3), w.p50, w.p99, w.max, lane_text);
    first = false;
  }
  put("\n  }},\n  \"operations\": {{");
  first = true;
  for (const Operation* op : context.operations()) {
    put("{}\n    \"{}\": {{\"ready_ps\": {}, \"end_ps\": {}, \"latency_ps\": {}, \"stages\": {}}}",
        first ? "" : ",", op->name(), op->ready_ps, op->end_ps, op->end_ps - op->ready_ps,
        op->route->path.size());
    first = false;
  }
  put("\n  }}\n}}\n");
  out.write(b.data(), static_cast<std::streamsize>(b.size()));
}

}  // namespace cnuas
