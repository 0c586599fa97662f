#include "core/outputs/stats.h"

#include <algorithm>
#include <map>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/kernel/element.h"
#include "core/kernel/run_context.h"

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

// Energy over the run: idle power for the makespan, less the time its rack
// had no power, plus active power for every picosecond a stage held its main
// lane (engines and ingress ports add none). Exact, in joules.
Rational element_energy_j(const Element& e, std::uint64_t makespan) {
  const Rational seconds_per_ps(1, 1'000'000'000'000ULL);
  std::uint64_t powered = makespan;
  for (const Outage& o : e.power_cuts())
    if (o.from_ps < makespan) powered -= std::min(o.to_ps, makespan) - o.from_ps;
  return (e.params().quantity("idle_power") * Rational(powered) +
          e.params().quantity("active_power") * Rational(e.stats().main_busy_ps)) *
         seconds_per_ps;
}

static double decimal_of(const Rational& r, int digits) {
  return std::stod(r.to_decimal(digits));
}

static nlohmann::ordered_json power_json(const PowerReport& power, std::uint64_t makespan) {
  using Json = nlohmann::ordered_json;
  auto w = [](std::int64_t uw) {
    return decimal_of(Rational(static_cast<std::uint64_t>(uw), 1'000'000), 6);
  };
  Json racks = Json::object();
  for (const RackPower& r : power.racks) {
    Json series = Json::array();
    for (const PowerSample& p : r.series)
      series.push_back({p.from_ps, p.to_ps, decimal_of(p.average_w, 6)});
    Json telemetry = Json::array();
    for (auto [at, uw] : r.telemetry) telemetry.push_back({{"t_ps", at}, {"load_w", w(uw)}});
    racks[r.rack.empty() ? "(no rack)" : r.rack] = {
        {"shelf", r.shelf ? r.shelf->name() : ""},
        {"idle_w", w(r.idle_uw)},
        {"peak_w", w(r.peak_uw)},
        {"peak_at_ps", r.peak_at_ps},
        {"average_w",
         makespan == 0
             ? 0.0
             : decimal_of(r.energy_j * Rational(1'000'000'000'000ULL) / Rational(makespan), 6)},
        {"energy_j", decimal_of(r.energy_j, 9)},
        {"input_energy_j", decimal_of(r.input_energy_j, 9)},
        {"series_w", series},
        {"telemetry", telemetry}};
  }
  Json events = Json::array();
  for (const PowerEvent& e : power.events)
    events.push_back({{"t_ps", e.at_ps},
                      {"event", e.kind},
                      {"shelf", e.shelf->name()},
                      {"load_w", w(e.load_uw)},
                      {"capacity_w", w(e.capacity_uw)},
                      {"battery_j", decimal_of(e.battery_j, 6)}});
  return {{"platform_energy_j", decimal_of(power.platform_energy_j, 9)},
          {"racks", racks},
          {"events", events}};
}

// Per element (by index), the queue wait of every stage it booked: over the
// lanes it took (an engine's or ingress record comes just before its main one).
static std::vector<std::vector<std::uint64_t>> queue_waits(const RunContext& context) {
  std::vector<std::vector<std::uint64_t>> waits(context.elements().size());
  if (!context.trace_enabled) {
    for (const Element* e : context.elements()) waits[e->index()] = e->stats().waits_ps;
    return waits;
  }
  const TraceSink& trace = context.trace();
  std::uint64_t feed_wait = 0;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const StageEvent& e = trace[i];
    if (e.part() != StageEvent::kMain) {
      feed_wait = e.start_ps - e.ready_ps;
      continue;
    }
    waits[e.component].push_back(feed_wait + e.start_ps - e.ready_ps);
    feed_wait = 0;
  }
  return waits;
}

std::vector<CollectiveResult> collective_results(const RunContext& context) {
  std::vector<CollectiveResult> results;
  for (const CollectiveRecord& c : context.collectives) {
    CollectiveResult r;
    r.record = &c;
    std::uint64_t start = UINT64_MAX, end = 0;
    for (std::uint32_t i = c.first_op; i < c.first_op + c.count; ++i) {
      const Operation& op = *context.operations()[i];
      if (op.outcome != Operation::Outcome::Done) {
        ++r.transfers_not_done;
        continue;
      }
      start = std::min(start, op.ready_ps);
      end = std::max(end, op.end_ps);
    }
    if (r.transfers_not_done == 0) {
      r.start_ps = start;
      r.end_ps = end;
      r.time_ps = end - start;
      const BusFactor factor = bus_bandwidth_factor(c.kind, c.ranks);
      // bytes / ps x 1000 = GB/s.
      r.algbw_gbps =
          r.time_ps == 0 ? Rational(0) : Rational(c.bytes) * Rational(1000) / Rational(r.time_ps);
      r.busbw_gbps = r.algbw_gbps * Rational(factor.numerator) / Rational(factor.denominator);
    }
    results.push_back(r);
  }
  return results;
}

void write_stats_json(std::ostream& out, const RunContext& context, const PowerReport* power) {
  using Json = nlohmann::ordered_json;
  const std::uint64_t makespan = makespan_ps(context);
  // Ratios are exact, cut to 6 decimals for the report: the double nearest to
  // floor(part x 10^6 / whole) / 10^6, in integers (what parsing those 6
  // decimals gives; elements of large platforms have many lanes).
  auto ratio = [&](std::uint64_t part, std::uint64_t whole) {
    if (whole == 0) return 0.0;
    const u128 millionths = static_cast<u128>(part) * 1'000'000u / whole;
    return static_cast<double>(millionths) / 1e6;
  };
  auto decimal = [](const Rational& r, int digits) { return std::stod(r.to_decimal(digits)); };
  std::vector<std::vector<std::uint64_t>> waits = queue_waits(context);
  // Large maps are streamed entry by entry: one line per element and operation.
  fmt::memory_buffer elements;
  std::uint64_t stages = 0;
  Rational total_energy;
  for (const Element* e : context.elements()) {
    const LaneSet& lanes = e->lanes();
    std::uint64_t busy = 0;
    // The lanes, written as nlohmann would but without a JSON object each
    // (large platforms have hundreds of thousands of lanes).
    fmt::memory_buffer lane_list;
    for (std::uint32_t l = 0; l < lanes.size(); ++l) {
      busy += lanes.busy_ps(l);
      const double u = ratio(lanes.busy_ps(l), makespan);
      fmt::format_to(std::back_inserter(lane_list),
                     "{}{{\"lane\":{},\"busy_ps\":{},\"utilization\":{}}}", l == 0 ? "" : ",", l,
                     lanes.busy_ps(l), u == 0 ? "0.0" : Json(u).dump());
    }
    stages += e->stats().stages;
    const WaitSummary w = summarize_waits(std::move(waits[e->index()]));
    const Rational energy = element_energy_j(*e, makespan);
    total_energy = total_energy + energy;
    const std::uint64_t model = e->stats().model_stages;
    Json evidence = {{"class", model == 0                   ? "analytic"
                               : model == e->stats().stages ? "model"
                                                            : "analytic+model"}};
    if (model != 0 && model != e->stats().stages) evidence["model_stages"] = model;
    if (const auto& c = e->calibration())
      evidence = {{"class", "calibrated"},
                  {"target", c->target},
                  {"heldout_mape_percent", c->heldout_mape_percent}};
    const Json entry = {
        {"type", e->type()},
        {"evidence", evidence},
        {"stages", e->stats().stages},
        {"busy_ps", busy},
        {"utilization", ratio(busy, makespan * lanes.size())},
        {"queue_wait_ps",
         {{"mean", decimal(w.mean, 3)}, {"p50", w.p50}, {"p99", w.p99}, {"max", w.max}}},
        {"held_ps", e->stats().held_ps},
        {"held_stages", e->stats().held_stages},
        {"energy_j", decimal(energy, 9)}};
    std::string text = entry.dump();
    text.pop_back();  // reopen the object for its lanes
    if (!e->slowdowns().empty())
      text += "," + Json("slowdowns").dump() + ":" +
              Json({{"spans", e->slowdowns().size()}, {"slowed_ps", e->stats().slowed_ps}}).dump();
    if (!e->fault_counts().empty())
      text += "," + Json("faults").dump() + ":" + Json(e->fault_counts()).dump();
    if (!e->outages().empty()) {
      Json outages = {{"spans", e->outage_spans()},
                      {"down_ps", e->down_ps()},
                      {"stages_waited", e->stats().outage_stages},
                      {"wait_ps", e->stats().outage_wait_ps}};
      if (e->params().text("on_outage") == "fail" || e->stats().failed_stages > 0)
        outages["stages_failed"] = e->stats().failed_stages;
      if (e->stats().timed_out_attempts > 0)
        outages["timed_out_requests"] = e->stats().timed_out_attempts;
      text += "," + Json("outages").dump() + ":" + outages.dump();
    }
    if (!e->power_cuts().empty()) {
      std::uint64_t off = 0;
      for (const Outage& o : e->power_cuts())
        off += (o.to_ps == UINT64_MAX ? std::max(makespan, o.from_ps) : o.to_ps) - o.from_ps;
      text += "," + Json("power_cuts").dump() + ":" +
              Json({{"spans", e->power_cuts().size()},
                    {"off_ps", off},
                    {"stages_cut", e->stats().cut_stages},
                    {"lost_ps", e->stats().lost_ps},
                    {"stages_failed", e->stats().failed_stages}})
                  .dump();
    }
    if (const std::string faults = e->fault_stats(); !faults.empty()) text += "," + faults;
    fmt::format_to(std::back_inserter(elements), "{}\n    {}: {},\"lanes\":[{}]}}",
                   elements.size() ? "," : "", Json(e->name()).dump(), text,
                   std::string_view(lane_list.data(), lane_list.size()));
  }
  // Per workload entry always; per operation instance up to a size a reader can use.
  // Failed and cancelled operations have no latency; they are counted apart.
  using Outcome = Operation::Outcome;
  struct Group {
    std::vector<std::uint64_t> latencies;
    std::uint64_t failed = 0, cancelled = 0;
  };
  std::map<std::string, Group> by_entry;
  std::uint64_t failed = 0, cancelled = 0;
  for (const Operation* op : context.operations()) {
    Group& g = by_entry[op->spec->name];
    if (op->outcome == Outcome::Done) g.latencies.push_back(op->end_ps - op->ready_ps);
    g.failed += op->outcome == Outcome::Failed;
    g.cancelled += op->outcome == Outcome::Cancelled;
  }
  Json groups = Json::object();
  for (auto& [name, g] : by_entry) {
    const WaitSummary l = summarize_waits(g.latencies);
    groups[name] = {
        {"count", l.count},
        {"latency_ps",
         {{"mean", decimal(l.mean, 3)}, {"p50", l.p50}, {"p99", l.p99}, {"max", l.max}}}};
    if (g.failed + g.cancelled > 0) {
      groups[name]["failed"] = g.failed;
      groups[name]["cancelled"] = g.cancelled;
    }
    failed += g.failed;
    cancelled += g.cancelled;
  }
  constexpr std::size_t kMaxListedOperations = 100'000;
  const bool list_operations = context.operations().size() <= kMaxListedOperations;
  fmt::memory_buffer operations;
  if (list_operations)
    for (const Operation* op : context.operations())
      fmt::format_to(
          std::back_inserter(operations),
          "{}\n    {}: {{\"ready_ps\": {}, \"end_ps\": {}, \"latency_ps\": {}, \"stages\": {}{}}}",
          operations.size() ? "," : "", Json(op->name()).dump(), op->ready_ps, op->end_ps,
          op->end_ps - op->ready_ps, op->route ? op->route->path.size() : 0,
          op->outcome == Outcome::Done     ? ""
          : op->outcome == Outcome::Failed ? ", \"outcome\": \"failed\""
                                           : ", \"outcome\": \"cancelled\"");
  Json collectives = Json::object();
  for (const CollectiveResult& r : collective_results(context)) {
    const CollectiveRecord& c = *r.record;
    if (r.transfers_not_done > 0) {
      // A participant's transfer failed: the collective did not complete and has no bandwidth.
      collectives[c.name] = {{"collective", collective_name(c.kind)},
                             {"ranks", c.ranks},
                             {"bytes", c.bytes},
                             {"transfers", c.count},
                             {"failed", true},
                             {"transfers_not_done", r.transfers_not_done}};
      continue;
    }
    collectives[c.name] = {{"collective", collective_name(c.kind)},
                           {"ranks", c.ranks},
                           {"channels", c.channels},
                           {"bytes", c.bytes},
                           {"transfers", c.count},
                           {"start_ps", r.start_ps},
                           {"end_ps", r.end_ps},
                           {"time_ps", r.time_ps},
                           {"algbw_GBps", decimal(r.algbw_gbps, 3)},
                           {"busbw_GBps", decimal(r.busbw_gbps, 3)}};
  }
  const Json head = {
      {"format", "cnuas-stats"},
      {"version", 1},
      {"class", context.header.evidence_class},
      {"time_unit", "ps"},
      {"platform", context.header.platform},
      {"workload", context.header.workload},
      {"makespan_ps", makespan},
      {"stages", stages},
      {"operations_count", context.operations().size()},
      {"energy_j", decimal(total_energy, 9)},
      {"average_power_w",
       makespan == 0
           ? 0.0
           : decimal(total_energy * Rational(1'000'000'000'000ULL) / Rational(makespan), 6)}};
  Json head_all = head;
  if (failed + cancelled > 0) {
    head_all["operations_failed"] = failed;
    head_all["operations_cancelled"] = cancelled;
  }
  std::string text = head_all.dump(2);
  text.resize(text.size() - 2);  // reopen the object: drop "\n}"
  out << text;
  out << ",\n  \"elements\": {" << std::string_view(elements.data(), elements.size()) << "\n  }";
  out << ",\n  \"operation_groups\": " << groups.dump();
  if (!collectives.empty()) out << ",\n  \"collectives\": " << collectives.dump();
  out << ",\n  \"operations_listed\": " << (list_operations ? "true" : "false");
  out << ",\n  \"operations\": {" << std::string_view(operations.data(), operations.size())
      << "\n  }";
  if (power != nullptr) out << ",\n  \"power\": " << power_json(*power, makespan).dump();
  out << "\n}\n";
}

}  // namespace cnuas
