#include "core/kernel/element.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "core/inputs/rational.h"
#include "core/kernel/errors.h"
#include "core/kernel/run_context.h"

namespace cnuas {

Element::Element(sc_core::sc_module_name name, const ParamSet& params, std::uint32_t lanes)
    : sc_module(name),
      in("in"),
      out("out"),
      params_(params),
      lanes_(lanes),
      context_(RunContext::current()),
      index_(context_.add_component(this)),
      log_level_(params_.text("log") == "inherit" ? context_.log_level
                                                  : *parse_log_level(params_.text("log"))),
      traced_(params_.boolean("trace")) {
  fail_on_outage_ = params_.text("on_outage") == "fail";
  if (params_.has("response_timeout"))
    set_response_timeout(params_.quantity("response_timeout").ceil_u64(),
                         static_cast<std::uint32_t>(params_.integer("retries")));
  // The stage protocol has no backward calls into `out` and no b_transport:
  // responses go straight to the initiator (stage_protocol.h).
  in.register_nb_transport_fw(this, &Element::nb_transport_fw);
  if (Waveforms* w = context_.waveforms()) {
    queue_signal_ = w->add_signal(this->name(), "queue_depth", 32, Waveforms::Display::Decimal);
    // Power in milliwatts: idle from the start, active while a main lane is busy.
    const auto mw = [](const Rational& watts) {
      return static_cast<int>((watts * Rational(1000)).floor_u64());
    };
    active_mw_ = mw(params_.quantity("active_power"));
    const int idle_mw = mw(params_.quantity("idle_power"));
    if (idle_mw != 0 || active_mw_ != 0) {
      power_signals_.push_back(w->power_signal(""));
      if (!params_.text("rack").empty())
        power_signals_.push_back(w->power_signal(params_.text("rack")));
      for (std::uint32_t s : power_signals_) w->add_initial(s, static_cast<std::uint32_t>(idle_mw));
    }
  }
}

void Element::set_outages(std::vector<Outage> outages) {
  for (const Outage& o : outages) {
    ++outage_spans_;
    down_ps_ += o.to_ps - o.from_ps;
  }
  outages_.insert(outages_.end(), outages.begin(), outages.end());
  std::stable_sort(outages_.begin(), outages_.end(),
                   [](const Outage& a, const Outage& b) { return a.from_ps < b.from_ps; });
}

void Element::add_port_outages(const Element& peer, const std::vector<Outage>& outages) {
  const std::vector<std::uint32_t> lanes = lanes_facing(peer);
  if (lanes.empty())
    throw InputError(describe(fmt::format(
        "has no port of its own facing '{}' to fail: take the whole element down (no 'port:'), "
        "or the link between them",
        peer.name())));
  std::vector<Outage> per_lane;
  for (const Outage& o : outages)
    for (std::uint32_t lane : lanes) per_lane.push_back({o.from_ps, o.to_ps, lane});
  set_outages(per_lane);
  outage_spans_ -= per_lane.size() - outages.size();
  for (const Outage& o : outages) down_ps_ -= (lanes.size() - 1) * (o.to_ps - o.from_ps);
}

void Element::set_power_cuts(std::vector<Outage> cuts) {
  power_cuts_ = std::move(cuts);
  // Without power it draws nothing, idle included.
  if (Waveforms* w = context_.waveforms()) {
    const int idle_mw =
        static_cast<int>((params_.quantity("idle_power") * Rational(1000)).floor_u64());
    if (idle_mw != 0)
      for (const Outage& o : power_cuts_)
        for (std::uint32_t s : power_signals_) {
          w->post(s, o.from_ps, -idle_mw);
          if (o.to_ps != UINT64_MAX) w->post(s, o.to_ps, idle_mw);
        }
  }
}

void Element::set_neighbours(std::vector<const Element*> targets,
                             std::vector<const Element*> senders) {
  targets_ = std::move(targets);
  senders_ = std::move(senders);
  neighbours_known_ = true;
}

static std::optional<std::uint32_t> position(const std::vector<const Element*>& list,
                                             const Element* e) {
  if (e == nullptr) return std::nullopt;
  for (std::uint32_t i = 0; i < list.size(); ++i)
    if (list[i] == e) return i;
  return std::nullopt;
}

std::optional<std::uint32_t> Element::target_port(const Element* e) const {
  return position(targets_, e);
}

std::optional<std::uint32_t> Element::sender_port(const Element* e) const {
  return position(senders_, e);
}

std::string Element::lane_name(std::uint32_t lane) const {
  return fmt::format("lane {}", lane);
}

// Bindings are complete: lanes that follow the ports get their count, and the
// waveforms their per-lane signals.
void Element::end_of_elaboration() {
  if (!neighbours_known_) targets_.assign(static_cast<std::size_t>(out.size()), nullptr);
  const std::uint32_t lanes = lanes_after_binding();
  if (lanes > 65536)
    throw InputError(describe(fmt::format(
        "{} lanes for its {} connections; at most 65536 are accepted (fewer queues or engines)",
        lanes, targets_.size())));
  if (lanes != lanes_.size()) {
    lanes_.resize(lanes);
    context_.set_component_lanes(index_, lanes);
  }
  if (Waveforms* w = context_.waveforms())
    for (std::uint32_t lane = 0; lane < lanes; ++lane)
      busy_signal_.push_back(w->add_signal(this->name(), "lane" + std::to_string(lane) + "_busy", 1,
                                           Waveforms::Display::Bit));
  check_bindings();
}

StagePlan Element::plan(const Stage& stage) {
  const std::uint64_t service = service_ps(stage);
  if (const auto pin = pinned_lane(stage))
    return StagePlan::simple(service, 0, LaneChoice::pin(*pin));
  const LaneRange range = lane_range(stage);
  return StagePlan::simple(service, 0, LaneChoice::among(range.first, range.count));
}

std::string Element::describe(const std::string& message) const {
  return fmt::format("{} ({}): {}", name(), type(), message);
}

void Element::log(LogLevel level, const std::string& message) const {
  if (!logs(level)) return;
  *context_.log_stream << "cnuas: " << log_level_name(level) << ": " << describe(message) << "\n";
}

tlm::tlm_sync_enum Element::nb_transport_fw(int, tlm::tlm_generic_payload& trans,
                                            tlm::tlm_phase& phase, sc_core::sc_time& delay) {
  auto* ext = trans.get_extension<OperationExtension>();
  if (phase != tlm::BEGIN_REQ || ext == nullptr || ext->operation == nullptr) {
    // Only Cnuas initiators can reach `in` (the socket type sees to that), so
    // this is a bug in one of them, not bad input.
    context_.fail_internal(
        describe(fmt::format("stage-protocol request without {}",
                             phase != tlm::BEGIN_REQ ? "BEGIN_REQ" : "an operation")));
    trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return tlm::TLM_COMPLETED;
  }
  const std::uint32_t stage = ext->next_stage++;
  context_.scheduler().enqueue(this, ext->operation, stage, now_ps() + delay.value());
  return tlm::TLM_ACCEPTED;
}

struct Element::Booked {
  Booking main;
  Booking feed;                      // valid when has_feed
  std::uint64_t admitted_ps;         // when the stage could enter (back-pressure, outages)
  std::uint64_t outage_wait_ps = 0;  // of that, the wait for the element to come back up
  std::uint64_t main_ready_ps;       // when its data reached the main lane
  std::uint64_t end_ps;              // the stage's result is available downstream
  std::uint64_t next_ps;             // overlap: when its data starts reaching the next element
  LaneChoice lanes;                  // the main lane's group, resolved
  LaneChoice feed_lanes;             // the feed lane's, when has_feed
  bool has_feed;
  bool feed_is_engine;
  bool failed = false;     // the stage met an outage and fails its operation at end_ps
  bool timed_out = false;  // ... because its requests got no answer
};

static std::uint64_t checked_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t sum;
  if (__builtin_add_overflow(a, b, &sum)) throw OverflowError();
  return sum;
}

[[noreturn]] static void bad_lanes(const LaneChoice& c, std::uint32_t lanes) {
  throw std::logic_error(
      fmt::format("lanes {}..{} asked of {} lanes", c.first, c.first + c.count, lanes));
}

// `c` with count 0 read as every lane, checked against the element's lanes.
static LaneChoice resolved(LaneChoice c, std::uint32_t lanes) {
  if (c.count == 0) c.count = lanes;
  if (c.count == 0 || c.first + c.count > lanes) bad_lanes(c, lanes);
  return c;
}

// The booking rule (docs/concepts.md): the feed lane, if any, from max(ready,
// its free time); the main lane from max(feed start + lead, its free time),
// held for the occupancy; the result after the latency.
inline __attribute__((always_inline)) void Element::book(const Stage& stage, const StagePlan& plan,
                                                         std::uint64_t ready_ps, Booked& b) {
  const std::uint32_t lanes = lanes_.size();
  b.lanes = resolved(plan.lanes, lanes);
  const LaneChoice& main = b.lanes;
  if (__builtin_expect(!power_cuts_.empty(), 0)) {
    const PowerCutResult cut = through_power_cuts(plan, ready_ps);
    if (cut.failed) {
      b.failed = true;
      b.has_feed = false;
      b.admitted_ps = b.main_ready_ps = b.end_ps = b.next_ps = cut.ready_ps;
      b.main = {main.first, cut.ready_ps, cut.ready_ps};
      ++stats_.failed_stages;
      return;
    }
    b.outage_wait_ps = cut.ready_ps - ready_ps;
    ready_ps = cut.ready_ps;
  }
  const std::uint32_t main_lane = lane_of(main);
  b.admitted_ps = main.pinned ? admission_ps(stage, main_lane, ready_ps, plan) : ready_ps;
  b.has_feed = plan.feed != Feed::None;
  if (__builtin_expect(!outages_.empty(), 0)) {
    const std::uint64_t before = b.admitted_ps;
    std::uint32_t feed_lane = 0;
    if (b.has_feed) {
      const LaneChoice feed = resolved(plan.feed_lanes, lanes);
      feed_lane = lane_of(feed);
    }
    const std::uint32_t* feed = b.has_feed ? &feed_lane : nullptr;
    if (fail_on_outage_) {
      std::uint64_t start;
      if (outage_met(plan, main_lane, feed, before, start) != nullptr) {
        book_failing(plan, main_lane, feed, b);
        return;
      }
    } else {
      b.admitted_ps = clear_of_outages(plan, main_lane, feed, before);
      b.outage_wait_ps += b.admitted_ps - before;
    }
  }
  if (__builtin_expect(response_timeout_ps_ > 0, 0) && book_retried(stage, plan, main_lane, b))
    return;
  if (__builtin_expect(!slowdowns_.empty(), 0)) {
    book_slowed(plan, main_lane, b);
    return;
  }
  if (!b.has_feed) {
    b.main_ready_ps = b.admitted_ps;
    b.main = lanes_.hold(main_lane, b.admitted_ps, plan.occupancy_ps);
    b.end_ps = checked_add(b.main.end_ps, plan.latency_ps);
    b.next_ps = checked_add(b.main.start_ps, plan.latency_ps);
    return;
  }
  b.feed_lanes = resolved(plan.feed_lanes, lanes);
  b.feed_is_engine = plan.feed == Feed::Engine;
  const LaneChoice& feed = b.feed_lanes;
  const std::uint32_t feed_lane = lane_of(feed);
  if (feed_lane == main_lane)
    throw std::logic_error(fmt::format("lane {} asked as feed and main lane", main_lane));
  const std::uint64_t feed_start = std::max(b.admitted_ps, lanes_.free_at(feed_lane));
  b.main_ready_ps = checked_add(feed_start, plan.lead_ps);
  b.main = lanes_.hold(main_lane, b.main_ready_ps, plan.occupancy_ps);
  std::uint64_t feed_free = checked_add(feed_start, plan.feed_occupancy_ps);
  std::uint64_t done = b.main.end_ps;
  if (b.feed_is_engine) {
    // The engine has its transfer in flight until the data has left the main lane.
    feed_free = std::max(feed_free, b.main.end_ps);
    done = feed_free;
  }
  b.feed = lanes_.hold(feed_lane, feed_start, feed_free - feed_start);
  b.end_ps = checked_add(done, plan.latency_ps);
  b.next_ps = checked_add(b.main.start_ps, plan.latency_ps);
}

// How long a lane holding of `work_ps` (its time at full speed) that starts
// at `start` lasts through the slowdowns: within one, work proceeds at its
// rate (time rounded up, work done rounded down), elsewhere at full speed.
std::uint64_t Element::held_for(std::uint64_t start, std::uint64_t work_ps) {
  std::uint64_t t = start, work = work_ps;
  for (const Slowdown& s : slowdowns_) {
    if (work == 0 || s.to_ps <= t) continue;
    if (s.from_ps > t) {
      if (work <= s.from_ps - t) break;
      work -= s.from_ps - t;
      t = s.from_ps;
    }
    const u128 needed = (static_cast<u128>(work) * s.rate_den + s.rate_num - 1) / s.rate_num;
    if (needed <= s.to_ps - t) {
      t += static_cast<std::uint64_t>(needed);
      work = 0;
      break;
    }
    const u128 done = static_cast<u128>(s.to_ps - t) * s.rate_num / s.rate_den;
    work -= static_cast<std::uint64_t>(done);
    t = s.to_ps;
  }
  const std::uint64_t end = checked_add(t, work);
  stats_.slowed_ps += end - start - work_ps;
  return end - start;
}

// book() for an element with slowdowns: the same holdings, each as long as
// its work takes from where it starts.
void Element::book_slowed(const StagePlan& plan, std::uint32_t main_lane, Booked& b) {
  auto hold = [&](std::uint32_t lane, std::uint64_t ready, std::uint64_t work) {
    const std::uint64_t start = std::max(ready, lanes_.free_at(lane));
    return lanes_.hold(lane, start, held_for(start, work));
  };
  if (!b.has_feed) {
    b.main_ready_ps = b.admitted_ps;
    b.main = hold(main_lane, b.admitted_ps, plan.occupancy_ps);
    b.end_ps = checked_add(b.main.end_ps, plan.latency_ps);
    b.next_ps = checked_add(b.main.start_ps, plan.latency_ps);
    return;
  }
  b.feed_lanes = resolved(plan.feed_lanes, lanes_.size());
  b.feed_is_engine = plan.feed == Feed::Engine;
  const LaneChoice& feed = b.feed_lanes;
  const std::uint32_t feed_lane = lane_of(feed);
  if (feed_lane == main_lane)
    throw std::logic_error(fmt::format("lane {} asked as feed and main lane", main_lane));
  const std::uint64_t feed_start = std::max(b.admitted_ps, lanes_.free_at(feed_lane));
  const std::uint64_t feed_held = held_for(feed_start, plan.feed_occupancy_ps);
  b.main_ready_ps = checked_add(feed_start, plan.lead_ps);
  b.main = hold(main_lane, b.main_ready_ps, plan.occupancy_ps);
  std::uint64_t feed_free = checked_add(feed_start, feed_held);
  std::uint64_t done = b.main.end_ps;
  if (b.feed_is_engine) {
    feed_free = std::max(feed_free, b.main.end_ps);
    done = feed_free;
  }
  b.feed = lanes_.hold(feed_lane, feed_start, feed_free - feed_start);
  b.end_ps = checked_add(done, plan.latency_ps);
  b.next_ps = checked_add(b.main.start_ps, plan.latency_ps);
}

// The first outage the stage's lane holdings, as book() would make them from
// `admitted`, overlap (nullptr: none), and when the stage would start.
const Outage* Element::outage_met(const StagePlan& plan, std::uint32_t main_lane,
                                  const std::uint32_t* feed_lane, std::uint64_t admitted,
                                  std::uint64_t& start) const {
  auto overlapping = [&](std::uint32_t lane, std::uint64_t from,
                         std::uint64_t hold) -> const Outage* {
    for (const Outage& o : outages_)
      if (o.from_ps < checked_add(from, std::max<std::uint64_t>(hold, 1)) && from < o.to_ps &&
          o.covers(lane))
        return &o;
    return nullptr;
  };
  if (feed_lane == nullptr) {
    start = std::max(admitted, lanes_.free_at(main_lane));
    return overlapping(main_lane, start, plan.occupancy_ps);
  }
  start = std::max(admitted, lanes_.free_at(*feed_lane));
  const std::uint64_t main_start =
      std::max(checked_add(start, plan.lead_ps), lanes_.free_at(main_lane));
  const Outage* hit = overlapping(*feed_lane, start, plan.feed_occupancy_ps);
  return hit != nullptr ? hit : overlapping(main_lane, main_start, plan.occupancy_ps);
}

// The admission time at or after `admitted` from which the stage's lane
// holdings, as book() will make them, touch no outage: each overlap moves it
// to that outage's end. (Lane free times do not change meanwhile.)
std::uint64_t Element::clear_of_outages(const StagePlan& plan, std::uint32_t main_lane,
                                        const std::uint32_t* feed_lane,
                                        std::uint64_t admitted) const {
  for (;;) {
    std::uint64_t start;
    const Outage* hit = outage_met(plan, main_lane, feed_lane, admitted, start);
    if (!hit) return admitted;
    admitted = hit->to_ps;
  }
}

// Power cuts (set_power_cuts) the stage meets from `ready_ps`: each that
// would find it in flight cuts it, its main lane held until the cut (lost_),
// and it starts again once power returns; one that finds it not started yet
// only delays it. The result: when it may start, clear of every cut, or when
// it fails (on_outage: fail, or power that never returns).
Element::PowerCutResult Element::through_power_cuts(const StagePlan& plan, std::uint64_t ready_ps) {
  lost_.clear();
  const LaneChoice main = resolved(plan.lanes, lanes_.size());
  for (;;) {
    const std::uint32_t main_lane = lane_of(main);
    std::uint64_t start, main_start, end;
    if (plan.feed == Feed::None) {
      start = main_start = std::max(ready_ps, lanes_.free_at(main_lane));
      end = checked_add(start, plan.occupancy_ps);
    } else {
      const LaneChoice feed = resolved(plan.feed_lanes, lanes_.size());
      const std::uint32_t feed_lane = lane_of(feed);
      start = std::max(ready_ps, lanes_.free_at(feed_lane));
      main_start = std::max(checked_add(start, plan.lead_ps), lanes_.free_at(main_lane));
      end = std::max(checked_add(main_start, plan.occupancy_ps),
                     checked_add(start, plan.feed_occupancy_ps));
    }
    end = std::max(end, start + 1);
    const Outage* cut = nullptr;
    for (const Outage& c : power_cuts_)
      if (c.from_ps < end && start < c.to_ps) {
        cut = &c;
        break;
      }
    if (cut == nullptr) return {ready_ps, false};
    if (main_start < cut->from_ps) {
      lost_.push_back(lanes_.hold(main_lane, main_start, cut->from_ps - main_start));
      ++stats_.cut_stages;
      stats_.lost_ps += cut->from_ps - main_start;
    }
    if (fail_on_outage_ || cut->to_ps == UINT64_MAX) return {std::max(start, cut->from_ps), true};
    ready_ps = cut->to_ps;
  }
}

// A stage that meets an outage and does not wait for it fails when the
// outage begins, having held its lane until then; one that arrives during the
// outage fails at once and holds nothing.
void Element::book_failing(const StagePlan& plan, std::uint32_t main_lane,
                           const std::uint32_t* feed_lane, Booked& b) {
  std::uint64_t first;
  const Outage* hit = outage_met(plan, main_lane, feed_lane, b.admitted_ps, first);
  b.has_feed = false;  // the stage's holding is told by its main lane
  b.main_ready_ps = b.admitted_ps;
  const std::uint64_t end = std::max(first, hit->from_ps);
  b.failed = true;
  // The main lane is held from when the stage reaches it (after its feed lane,
  // when it has one) until the outage; a lane still busy then is not held.
  const std::uint64_t main_start = std::min(std::max(first, lanes_.free_at(main_lane)), end);
  b.main = lanes_.hold(main_lane, main_start, end - main_start);
  b.end_ps = b.next_ps = end;
  ++stats_.failed_stages;
}

// Whether an element after this one on the route is down at `t`: a request
// sent then gets no answer.
static bool unanswered_at(const Stage& stage, std::uint64_t t) {
  const auto& path = stage.op.route->path;
  for (std::size_t i = stage.index + 1; i < path.size(); ++i)
    for (const auto* spans : {&path[i]->outages(), &path[i]->power_cuts()})
      for (const Outage& o : *spans)
        if (o.from_ps <= t && t < o.to_ps && o.lane == Outage::kAllLanes) return true;
  return false;
}

// For an element that times its requests out: when the device the request
// goes to (an element later on the route) is down as it is sent, the element
// waits the response timeout, its lane held (a Modbus master keeps the bus),
// and sends it again, up to the retries; the first request sent while the
// device is up is served as usual, or the stage fails after the last timeout.
// Returns false when the first request is answered (nothing booked yet).
bool Element::book_retried(const Stage& stage, const StagePlan& plan, std::uint32_t main_lane,
                           Booked& b) {
  const std::uint64_t first = std::max(b.admitted_ps, lanes_.free_at(main_lane));
  if (!unanswered_at(stage, first)) return false;
  std::uint64_t attempt = first;
  std::uint32_t timeouts = 0;
  while (timeouts <= retries_ && unanswered_at(stage, attempt)) {
    attempt = checked_add(attempt, response_timeout_ps_);
    ++timeouts;
  }
  stats_.timed_out_attempts += timeouts;
  b.has_feed = false;
  b.main_ready_ps = b.admitted_ps;
  if (timeouts > retries_) {
    b.failed = b.timed_out = true;
    b.main = lanes_.hold(main_lane, first, attempt - first);
    b.end_ps = b.next_ps = attempt;
    ++stats_.failed_stages;
    return true;
  }
  b.main = lanes_.hold(main_lane, first, attempt - first + plan.occupancy_ps);
  b.end_ps = checked_add(b.main.end_ps, plan.latency_ps);
  b.next_ps = checked_add(attempt, plan.latency_ps);
  return true;
}

// The calibrated time alone replaces the analytic one; the difference comes
// out of (or goes into) the occupancy first, then the latency.
void Element::calibrate(StagePlan& plan, const Operation& op) {
  const std::uint64_t analytic = plan.alone_ps();
  // Least-squares coefficients are binary floating point, evaluated the same way every run.
  const double t = calibration_->a * static_cast<double>(analytic) + calibration_->b_s * 1e12;
  if (t < 0 && !warned_negative_calibration_) {
    warned_negative_calibration_ = true;
    log(LogLevel::Warning,
        fmt::format("the calibration for '{}' predicts {:.6g} ps for operation '{}' (analytic "
                    "{} ps); negative predictions are served in 0 ps (reported once)",
                    calibration_->target, t, op.name(), analytic));
  }
  if (!(t < 1.8e19)) throw OverflowError();
  const std::uint64_t target = t <= 0 ? 0 : static_cast<std::uint64_t>(std::ceil(t));
  if (target >= analytic) {
    plan.occupancy_ps += target - analytic;
    return;
  }
  std::uint64_t cut = analytic - target;
  for (std::uint64_t* part :
       {&plan.occupancy_ps, &plan.latency_ps, &plan.lead_ps, &plan.feed_occupancy_ps}) {
    const std::uint64_t take = std::min(cut, *part);
    *part -= take;
    cut -= take;
  }
}

// "<workload file:line:col>: <element>: cannot serve operation 'x#0': why".
std::string Element::served_badly(const Operation& op, const std::string& why) const {
  const std::string message =
      describe(fmt::format("cannot serve operation '{}': {}", op.name(), why));
  return op.spec->where.empty() ? message : op.spec->where + ": " + message;
}

void Element::book_stage(Operation& op, std::uint32_t stage, std::uint64_t ready_ps) {
  if (context_.failed()) return;  // the run is stopping
  const Stage context{op, stage};
  Booked b;
  planned_ready_ps_ = ready_ps;
  try {
    StagePlan p = plan(context);
    if (calibration_) calibrate(p, op);
    book(context, p, ready_ps, b);
  } catch (const InputError& e) {
    context_.fail_input(served_badly(op, e.what()));
    return;
  } catch (const OverflowError& e) {  // exact arithmetic on the user's figures left 128 bits
    context_.fail_input(served_badly(op, e.what()));
    return;
  } catch (const std::exception& e) {
    // Anything else is the model's own fault, not the input's.
    context_.fail_internal(describe(fmt::format("the model failed on operation '{}' (stage {}): {}",
                                                op.name(), stage, e.what())));
    return;
  } catch (...) {
    context_.fail_internal(describe(
        fmt::format("the model failed on operation '{}' (stage {}) with a non-standard exception",
                    op.name(), stage)));
    return;
  }
  if (b.end_ps > op.end_ps) op.end_ps = b.end_ps;
  const bool held = b.admitted_ps > ready_ps;
  if (b.outage_wait_ps > 0) {
    stats_.outage_wait_ps += b.outage_wait_ps;
    ++stats_.outage_stages;
  }
  if (b.admitted_ps - b.outage_wait_ps > ready_ps) {  // held back by a full buffer
    stats_.held_ps += b.admitted_ps - b.outage_wait_ps - ready_ps;
    ++stats_.held_stages;
    if (logs(LogLevel::Info))
      log(LogLevel::Info, fmt::format("'{}' held {} ps upstream until lane {} admits it "
                                      "(back-pressure)",
                                      op.name(), b.admitted_ps - ready_ps, b.main.lane));
  }
  // Work a power cut lost: its main-lane holdings, as records that end at the cut.
  for (const Booking& k : lost_) {
    if (context_.trace_enabled)
      context_.trace().record(
          {k.start_ps, k.start_ps, k.end_ps, k.end_ps, op.index, index_,
           static_cast<std::uint16_t>(k.lane), static_cast<std::uint16_t>(b.lanes.first),
           static_cast<std::uint16_t>(b.lanes.first + b.lanes.count - 1),
           StageEvent::pack(stage, StageEvent::kMain, b.lanes.pinned, calibration_.has_value())});
    stats_.main_busy_ps += k.end_ps - k.start_ps;
    if (Waveforms* w = context_.waveforms()) {
      w->post(busy_signal_[k.lane], k.start_ps, +1);
      w->post(busy_signal_[k.lane], k.end_ps, -1);
      if (active_mw_ != 0)
        for (std::uint32_t s : power_signals_) {
          w->post(s, k.start_ps, active_mw_);
          w->post(s, k.end_ps, -active_mw_);
        }
    }
  }
  lost_.clear();
  // A stage that failed on arrival held nothing: no record (its lane was not used).
  const bool recorded = !b.failed || b.main.end_ps > b.main.start_ps;
  if (context_.trace_enabled && recorded) {
    TraceSink& trace = context_.trace();
    const bool calibrated = calibration_.has_value();
    const auto record = [&](const Booking& k, std::uint64_t ready, const LaneChoice& c,
                            StageEvent::Part part) {
      trace.record({ready, k.start_ps, k.end_ps, b.end_ps, op.index, index_,
                    static_cast<std::uint16_t>(k.lane), static_cast<std::uint16_t>(c.first),
                    static_cast<std::uint16_t>(c.first + c.count - 1),
                    StageEvent::pack(stage, part, c.pinned, calibrated)});
    };
    if (b.has_feed && context_.record_feeds) {
      record(b.feed, ready_ps, b.feed_lanes,
             b.feed_is_engine ? StageEvent::kEngine : StageEvent::kIngress);
      if (held) trace.record_admission(b.admitted_ps);
      record(b.main, b.main_ready_ps, b.lanes, StageEvent::kMain);
    } else if (b.has_feed) {
      // No record for the feed lane (no trace file wants it): the main record
      // is "ready" earlier by the stage's wait for it, so that start - ready
      // is still the stage's whole queue wait (stats read it there).
      record(b.main, b.main_ready_ps - (b.feed.start_ps - ready_ps), b.lanes, StageEvent::kMain);
    } else {
      record(b.main, ready_ps, b.lanes, StageEvent::kMain);
      if (held) trace.record_admission(b.admitted_ps);
    }
  } else if (recorded) {
    stats_.waits_ps.push_back(b.admitted_ps - ready_ps + (b.main.start_ps - b.main_ready_ps) +
                              (b.has_feed ? b.feed.start_ps - b.admitted_ps : 0));
  }
  stats_.stages += recorded;
  stats_.model_stages += recorded && op.spec->model_timed;
  stats_.main_busy_ps += b.main.end_ps - b.main.start_ps;
  if (logs(LogLevel::Debug))
    log(LogLevel::Debug,
        fmt::format("booked '{}' stage {} on lane {}: ready {} ps, start {} ps, free {} ps, "
                    "end {} ps",
                    op.name(), stage, b.main.lane, ready_ps, b.main.start_ps, b.main.end_ps,
                    b.end_ps));
  if (Waveforms* w = context_.waveforms()) {
    w->post(busy_signal_[b.main.lane], b.main.start_ps, +1);
    w->post(busy_signal_[b.main.lane], b.main.end_ps, -1);
    if (b.has_feed) {
      w->post(busy_signal_[b.feed.lane], b.feed.start_ps, +1);
      w->post(busy_signal_[b.feed.lane], b.feed.end_ps, -1);
    }
    const std::uint64_t first_start = b.has_feed ? b.feed.start_ps : b.main.start_ps;
    if (first_start > ready_ps) {
      w->post(queue_signal_, ready_ps, +1);
      w->post(queue_signal_, first_start, -1);
    }
    if (active_mw_ != 0 && b.main.end_ps > b.main.start_ps)
      for (std::uint32_t s : power_signals_) {
        w->post(s, b.main.start_ps, active_mw_);
        w->post(s, b.main.end_ps, -active_mw_);
      }
  }
  on_booked(context, b.main);
  if (__builtin_expect(b.failed, 0)) {
    fail_operation(op, b);
    return;
  }

  const std::uint64_t now = now_ps();
  const Route& route = *op.route;
  if (stage + 1 < route.path.size()) {
    // Hand the operation on with the next stage's ready time as annotated delay.
    const std::uint64_t next_ready = op.mode == StageMode::Serial ? b.end_ps : b.next_ps;
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time delay = ps_time(next_ready - now);
    out[static_cast<int>(route.out_port[stage])]->nb_transport_fw(*op.payload, phase, delay);
  } else {
    respond_to_initiator(op);
  }
}

// The operation ends here, failed: its initiator hears so at the failure
// time (the elements after this one never see it).
void Element::fail_operation(Operation& op, const Booked& b) {
  op.outcome = Operation::Outcome::Failed;
  const bool timed_out = b.timed_out;
  context_.trace().record_instant(
      {b.end_ps, index_, "operation_failed",
       fmt::format("\"op\":\"{}\",\"cause\":\"{}\"", op.name(), timed_out ? "timeout" : "outage")});
  if (logs(LogLevel::Info))
    log(LogLevel::Info, fmt::format("operation '{}' failed at {} ps: {}", op.name(), b.end_ps,
                                    timed_out ? "no answer within the retries" : "element down"));
  respond_to_initiator(op, false);
}

void Element::respond_to_initiator(Operation& op, bool ok) {
  // The elements in between have nothing to add to a response, so it goes
  // straight to the operation's initiator through the first element's target
  // socket: one call instead of one per hop, which matters on large platforms.
  tlm::tlm_phase phase = tlm::BEGIN_RESP;
  sc_core::sc_time delay = ps_time(op.end_ps - now_ps());
  op.payload->set_response_status(ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_GENERIC_ERROR_RESPONSE);
  Element& first = *op.route->path.front();
  first.in[static_cast<int>(op.route->initiator_port)]->nb_transport_bw(*op.payload, phase, delay);
}

}  // namespace cnuas
