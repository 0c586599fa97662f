#include "core/outputs/power.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "core/kernel/element.h"
#include "core/kernel/run_context.h"

namespace cnuas {
namespace {

const Rational kPsPerSecond(1'000'000'000'000ULL);
const Rational kMicro(1'000'000);

Rational watts(std::int64_t uw) {
  return Rational(static_cast<std::uint64_t>(uw)) / kMicro;
}

// Energy of a constant power over an interval, in joules.
Rational energy(std::int64_t uw, std::uint64_t ps) {
  return watts(uw) * Rational(ps) / kPsPerSecond;
}

struct Change {
  std::uint64_t at_ps;
  std::int64_t delta_uw;
};

// The shelf's state as the load changes over time.
class ShelfPlayer {
 public:
  ShelfPlayer(const Element& shelf, const PowerSupplyModel& model, std::vector<PowerEvent>& out)
      : shelf_(shelf),
        model_(model),
        out_(out),
        working_(model.supplies()),
        battery_(model.battery_capacity_j()) {
    rating_uw_ = to_microwatts(model.supply_rating_w());
    rated_uw_ = rating_uw_ * (model.supplies() - model.redundancy());
  }

  // Advances to `t` with the load constant at `load` since the last call; the
  // battery never empties strictly inside that span (depletion_at is a change point).
  void advance(std::uint64_t t, std::int64_t load) {
    if (battery_active_ && t > now_) {
      const Rational needed = energy(load - capacity(), t - now_);
      battery_ = battery_ < needed ? Rational(0) : battery_ - needed;
      if (battery_.is_zero()) {
        battery_active_ = false;
        emit(t, "battery_depleted", load);
        lose_power(t, load);
      }
    }
    now_ = t;
  }

  // When the battery, carrying the deficit of `load`, is empty (rounded up to
  // the picosecond); nullopt when it is not carrying anything.
  std::optional<std::uint64_t> depletion_at(std::int64_t load) const {
    if (!battery_active_) return std::nullopt;
    const std::int64_t deficit = load - capacity();
    if (deficit <= 0) return std::nullopt;
    const Rational ps = battery_ / watts(deficit) * kPsPerSecond;
    if (Rational(UINT64_MAX - now_) < ps) return std::nullopt;
    return now_ + ps.ceil_u64();
  }
  // After a power loss the rack gets nothing until power returns.
  bool lost() const { return lost_; }

  // Re-evaluates alarms and the battery after the load or the supplies changed at `t`.
  void evaluate(std::uint64_t t, std::int64_t load) {
    // A rack without power draws nothing, but it will draw what it drew when
    // the power went once it comes back: power returns only when the supplies
    // can carry that (a shelf that restarted into the same overload would
    // trip again).
    const std::int64_t demand = lost_ ? std::max(load, lost_load_uw_) : load;
    // Raised above the limit; cleared only at or below the limit less the
    // hysteresis (see PowerSupplyModel::alarm_hysteresis).
    const bool over = alarm_ ? load > below_by_hysteresis(rated_uw_) : load > rated_uw_;
    if (over != alarm_) {
      alarm_ = over;
      // These report the rated capacity (supplies less redundancy), the one exceeded.
      emit(t, over ? "over_capacity" : "over_capacity_cleared", load, rated_uw_);
    }
    const bool in_shortfall = battery_active_ || pending_ || lost_;
    const bool shortfall =
        in_shortfall ? demand > below_by_hysteresis(capacity()) : demand > capacity();
    if (!shortfall && in_shortfall) emit(t, "supply_shortfall_cleared", load);
    if (shortfall && !battery_active_ && !pending_ && !lost_) {
      pending_ = true;
      takeover_at_ = t + model_.switchover_ps();
      emit(t, "supply_shortfall", load);
    }
    if (!shortfall && (battery_active_ || pending_)) {
      if (battery_active_) emit(t, "battery_released", load);
      battery_active_ = pending_ = false;
    }
    if (!shortfall && lost_) {
      lost_ = false;
      emit(t, "power_restored", load);
    }
  }

  // The pending battery takeover, if one falls due before `limit`.
  bool takeover_due_before(std::uint64_t limit) const { return pending_ && takeover_at_ < limit; }
  std::uint64_t takeover_at() const { return takeover_at_; }
  void take_over(std::int64_t load) {
    pending_ = false;
    if (battery_.is_zero()) {
      lose_power(takeover_at_, load);
      return;
    }
    battery_active_ = true;
    emit(takeover_at_, "battery_takeover", load);
  }

  void supply_event(const SupplyEvent& e, std::int64_t load) {
    if (e.kind == "ac_loss")
      working_ = 0;
    else if (e.kind == "supply_failure")
      working_ -= std::min(working_, e.supplies);
    else
      working_ = std::min(model_.supplies(), working_ + e.supplies);
    emit(e.at_ps, e.kind, load);
    if (e.kind != "supply_restore" && working_ + model_.redundancy() <= model_.supplies() &&
        !redundancy_lost_) {
      redundancy_lost_ = true;
      emit(e.at_ps, "redundancy_lost", load);
    }
    if (working_ == model_.supplies() && redundancy_lost_) {
      redundancy_lost_ = false;
      emit(e.at_ps, "redundancy_restored", load);
    }
  }

 private:
  std::int64_t capacity() const { return rating_uw_ * working_; }
  void lose_power(std::uint64_t t, std::int64_t load) {
    emit(t, "power_loss", load);
    lost_ = true;
    lost_load_uw_ = load;
  }
  // The level an alarm raised at `limit_uw` clears at: limit x (1 - hysteresis).
  std::int64_t below_by_hysteresis(std::int64_t limit_uw) const {
    // Limits are never negative (ratings times supplies).
    return static_cast<std::int64_t>(
        (Rational(static_cast<std::uint64_t>(std::max<std::int64_t>(limit_uw, 0))) *
         (Rational(1) - model_.alarm_hysteresis()))
            .floor_u64());
  }
  void emit(std::uint64_t t, const char* kind, std::int64_t load, std::int64_t capacity_uw = -1) {
    out_.push_back({t, kind, &shelf_, load, capacity_uw < 0 ? capacity() : capacity_uw, battery_});
  }
  void emit(std::uint64_t t, const std::string& kind, std::int64_t load) {
    emit(t, kind.c_str(), load);
  }

  const Element& shelf_;
  const PowerSupplyModel& model_;
  std::vector<PowerEvent>& out_;
  std::uint32_t working_;
  std::int64_t rating_uw_ = 0, rated_uw_ = 0;
  std::int64_t lost_load_uw_ = 0;  // the load when power was lost
  Rational battery_;
  std::uint64_t now_ = 0, takeover_at_ = 0;
  bool alarm_ = false, battery_active_ = false, pending_ = false, lost_ = false,
       redundancy_lost_ = false;
};

}  // namespace

std::int64_t to_microwatts(const Rational& w) {
  const Rational uw = w * kMicro;
  const std::uint64_t floor = uw.floor_u64();
  return static_cast<std::int64_t>(Rational(floor) + Rational(1, 2) <= uw ? floor + 1 : floor);
}

namespace {

// "rack[2].shelf" for the element "<platform>.rack[2].shelf": the name
// workloads use. (Matching the short name "shelf" sent one rack's event to
// every rack's shelf.)
std::string instance_name(const Element& e) {
  const std::string full = e.name();
  const std::size_t dot = full.find('.');
  return dot == std::string::npos ? full : full.substr(dot + 1);
}

}  // namespace

PowerReport roll_up_power(const RunContext& context, const std::vector<SupplyEvent>& supply_events,
                          std::uint64_t makespan, std::uint32_t series_bins) {
  PowerReport report;
  std::map<std::string, RackPower> racks;
  std::vector<std::int64_t> active_uw(context.elements().size());
  for (const Element* e : context.elements()) {
    const std::string& rack = e->params().text("rack");
    RackPower& r = racks[rack];
    r.rack = rack;
    r.idle_uw += to_microwatts(e->params().quantity("idle_power"));
    active_uw[e->index()] = to_microwatts(e->params().quantity("active_power"));
    if (dynamic_cast<const PowerSupplyModel*>(e) != nullptr) {
      if (r.shelf != nullptr)
        throw InputError(fmt::format("rack '{}' has two power shelves: {} and {}", rack,
                                     r.shelf->name(), e->name()));
      r.shelf = e;
    }
  }
  // Racks by number, in name order; per component its rack and whether its
  // stages matter here (they draw power, or they are reads at a shelf).
  std::map<std::string, std::uint32_t> rack_number;
  for (const auto& [name, r] : racks)
    rack_number.emplace(name, static_cast<std::uint32_t>(rack_number.size()));
  std::vector<std::uint32_t> rack_of(context.elements().size());
  std::vector<char> shelf(context.elements().size(), 0), wanted(context.elements().size(), 0);
  bool any = false;
  for (const Element* e : context.elements()) {
    rack_of[e->index()] = rack_number.at(e->params().text("rack"));
    shelf[e->index()] = racks.at(e->params().text("rack")).shelf == e;
    wanted[e->index()] = shelf[e->index()] || active_uw[e->index()] != 0 || e->counts_own_energy();
    any = any || wanted[e->index()];
  }
  const TraceSink& trace = context.trace();
  std::vector<std::vector<Change>> changes(racks.size());
  std::vector<std::vector<std::uint64_t>> shelf_reads(racks.size());  // when reads completed
  // Active power is drawn while a stage holds its main lane (engines and
  // ingress ports add none).
  const auto& operations = context.operations();
  for (std::size_t i = 0; any && i < trace.size(); ++i) {
    // Stages are in booking order, their operations scattered: load the
    // operation pointer 32 stages ahead and the operation 16 ahead.
    if (i + 32 < trace.size()) __builtin_prefetch(&operations[trace[i + 32].op]);
    if (i + 16 < trace.size()) __builtin_prefetch(operations[trace[i + 16].op]);
    const StageEvent& s = trace[i];
    if (!wanted[s.component] || s.part() != StageEvent::kMain) continue;
    if (shelf[s.component]) shelf_reads[rack_of[s.component]].push_back(s.end_ps);
    std::int64_t a = active_uw[s.component];
    if (s.free_ps == s.start_ps) continue;
    if (const auto own = context.elements()[s.component]->stage_power_uw(*operations[s.op],
                                                                         s.free_ps - s.start_ps))
      a = *own;
    if (a == 0) continue;
    auto& c = changes[rack_of[s.component]];
    c.push_back({s.start_ps, a});
    c.push_back({s.free_ps, -a});
  }
  for (auto& [name, rack] : racks) {
    auto& c = changes[rack_number.at(name)];
    std::stable_sort(c.begin(), c.end(),
                     [](const Change& x, const Change& y) { return x.at_ps < y.at_ps; });
    std::vector<const SupplyEvent*> supply;
    for (const auto& e : supply_events)
      if (rack.shelf != nullptr && e.target == instance_name(*rack.shelf)) supply.push_back(&e);
    std::stable_sort(supply.begin(), supply.end(), [](const SupplyEvent* x, const SupplyEvent* y) {
      return x->at_ps < y->at_ps;
    });
    const auto* model = dynamic_cast<const PowerSupplyModel*>(rack.shelf);
    std::optional<ShelfPlayer> player;
    if (model != nullptr) player.emplace(*rack.shelf, *model, report.events);

    // Sweep the change points; between them the load is constant.
    std::int64_t load = rack.idle_uw;
    rack.peak_uw = load;
    std::uint64_t t = 0;
    std::size_t ci = 0, si = 0;
    u128 energy_uw_ps = 0;
    const std::uint64_t bins = makespan == 0 ? 0 : std::min<std::uint64_t>(series_bins, makespan);
    std::vector<u128> bin_energy(bins, 0);
    auto accumulate = [&](std::uint64_t from, std::uint64_t to, std::int64_t power) {
      if (to <= from) return;
      energy_uw_ps += static_cast<u128>(power) * (to - from);
      for (std::uint64_t b = from * bins / makespan; b < bins; ++b) {
        const std::uint64_t b_from = makespan * b / bins, b_to = makespan * (b + 1) / bins;
        const std::uint64_t lo = std::max(from, b_from), hi = std::min(to, b_to);
        if (lo >= hi) {
          if (b_from >= to) break;
          continue;
        }
        bin_energy[b] += static_cast<u128>(power) * (hi - lo);
      }
    };
    // What the rack gets: its load, or nothing while power is lost.
    const auto delivered = [&] { return player && player->lost() ? 0 : load; };
    if (player) player->evaluate(0, load);
    while (true) {
      std::uint64_t next = UINT64_MAX;
      if (ci < c.size()) next = c[ci].at_ps;
      if (si < supply.size()) next = std::min(next, supply[si]->at_ps);
      if (player && player->takeover_due_before(next == UINT64_MAX ? UINT64_MAX : next + 1))
        next = std::min(next, player->takeover_at());
      // The battery emptying is a change too, even after the last scheduled event.
      if (player)
        if (const auto empty = player->depletion_at(load)) next = std::min(next, *empty);
      if (next == UINT64_MAX) break;
      accumulate(std::min(t, makespan), std::min(next, makespan), delivered());
      if (player) player->advance(next, load);
      t = next;
      while (ci < c.size() && c[ci].at_ps == t) load += c[ci++].delta_uw;
      if (delivered() > rack.peak_uw) {
        rack.peak_uw = delivered();
        rack.peak_at_ps = t;
      }
      if (player) {
        while (si < supply.size() && supply[si]->at_ps == t)
          player->supply_event(*supply[si++], load);
        if (player->takeover_due_before(t + 1)) player->take_over(load);
        player->evaluate(t, load);
      }
    }
    accumulate(std::min(t, makespan), makespan, delivered());
    rack.energy_j = Rational(energy_uw_ps, 1) / kMicro / kPsPerSecond;
    rack.input_energy_j = model != nullptr ? rack.energy_j / model->efficiency() : rack.energy_j;
    report.platform_energy_j = report.platform_energy_j + rack.energy_j;
    for (std::uint64_t b = 0; b < bins; ++b) {
      const std::uint64_t from = makespan * b / bins, to = makespan * (b + 1) / bins;
      rack.series.push_back({from, to, Rational(bin_energy[b], 1) / Rational(to - from) / kMicro});
    }
    if (rack.shelf != nullptr) {
      // Telemetry: what each read at the shelf saw when it completed.
      std::vector<std::uint64_t>& reads = shelf_reads[rack_number.at(name)];
      std::sort(reads.begin(), reads.end());
      std::int64_t seen = rack.idle_uw;
      std::size_t k = 0;
      for (std::uint64_t at : reads) {
        while (k < c.size() && c[k].at_ps <= at) seen += c[k++].delta_uw;
        rack.telemetry.emplace_back(at, seen);
      }
    }
    report.racks.push_back(std::move(rack));
  }
  std::stable_sort(report.events.begin(), report.events.end(),
                   [](const PowerEvent& a, const PowerEvent& b) { return a.at_ps < b.at_ps; });
  return report;
}

}  // namespace cnuas
