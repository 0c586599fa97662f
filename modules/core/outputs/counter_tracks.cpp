#include "core/outputs/counter_tracks.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/kernel/element.h"
#include "core/kernel/run_context.h"
#include "core/kernel/trace.h"
#include "core/outputs/power.h"

namespace cnuas {

namespace {

using Change = std::pair<std::uint64_t, std::int64_t>;  // (time, delta)

// Step points from deltas: the value after all changes at a time, only where it changed.
std::vector<std::pair<std::uint64_t, std::int64_t>> steps(std::vector<Change> changes,
                                                          std::int64_t initial) {
  std::stable_sort(changes.begin(), changes.end(),
                   [](const Change& a, const Change& b) { return a.first < b.first; });
  std::vector<std::pair<std::uint64_t, std::int64_t>> points{{0, initial}};
  std::int64_t value = initial;
  for (std::size_t i = 0; i < changes.size();) {
    const std::uint64_t t = changes[i].first;
    for (; i < changes.size() && changes[i].first == t; ++i) value += changes[i].second;
    if (value == points.back().second) continue;
    if (points.back().first == t)
      points.back().second = value;
    else
      points.emplace_back(t, value);
  }
  return points;
}

}  // namespace

std::string microwatts_text(std::int64_t uw) {
  const char* sign = uw < 0 ? "-" : "";
  const std::uint64_t a = static_cast<std::uint64_t>(uw < 0 ? -uw : uw);
  std::string s = fmt::format("{}{}.{:06}", sign, a / 1000000, a % 1000000);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::vector<CounterTrack> element_counter_tracks(const RunContext& context) {
  const auto& elements = context.elements();
  std::vector<std::vector<Change>> power(elements.size()), queue(elements.size());
  const TraceSink& trace = context.trace();
  const auto& operations = context.operations();
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const StageEvent& s = trace[i];
    if (s.start_ps > s.ready_ps) {
      queue[s.component].emplace_back(s.ready_ps, +1);
      queue[s.component].emplace_back(s.start_ps, -1);
    }
    if (s.part() != StageEvent::kMain || s.free_ps == s.start_ps) continue;
    const Element& e = *elements[s.component];
    std::int64_t active = to_microwatts(e.params().quantity("active_power"));
    if (const auto own = e.stage_power_uw(*operations[s.op], s.free_ps - s.start_ps)) active = *own;
    if (active == 0) continue;
    power[s.component].emplace_back(s.start_ps, active);
    power[s.component].emplace_back(s.free_ps, -active);
  }
  std::vector<CounterTrack> tracks;
  for (const Element* e : elements) {
    if (!e->traced()) continue;
    const std::uint32_t c = e->index();
    const std::int64_t idle = to_microwatts(e->params().quantity("idle_power"));
    for (const Outage& cut : e->power_cuts()) {
      power[c].emplace_back(cut.from_ps, -idle);
      if (cut.to_ps != UINT64_MAX) power[c].emplace_back(cut.to_ps, idle);
    }
    if (idle != 0 || !power[c].empty())
      tracks.push_back({c, "power", "W", steps(std::move(power[c]), idle)});
    if (!queue[c].empty())
      tracks.push_back({c, "queue depth", "stages", steps(std::move(queue[c]), 0)});
  }
  return tracks;
}

}  // namespace cnuas
