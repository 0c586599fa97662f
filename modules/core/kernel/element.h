// The base of every Cnuas hardware element.
//
// An element is an sc_module with a target socket `in` and an initiator socket
// `out` (multi-bindable, connected by hierarchical name) of Cnuas's stage
// protocol (stage_protocol.h: BEGIN_REQ forward with the ready time as delay,
// BEGIN_RESP straight back to the initiator, timing-only payloads). Work
// arrives as a tlm_generic_payload carrying an OperationExtension; the element
// turns the operation's work dimensions into a service time and books it on
// its lanes through the shared scheduler. Lanes, trace, stats and waveforms
// come from here so no model re-implements them: a model only says what its
// work asks of its lanes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "core/inputs/schema.h"
#include "core/kernel/lanes.h"
#include "core/kernel/log.h"
#include "core/kernel/operation.h"
#include "core/kernel/outage.h"
#include "core/kernel/stage_plan.h"
#include "core/kernel/stage_protocol.h"

namespace cnuas {

class RunContext;

struct ElementStats {
  std::uint64_t stages = 0;
  std::uint64_t model_stages = 0;  // of those, timed by the cycle-level model (class "model")
  std::uint64_t main_busy_ps = 0;  // time stages held their main lane (what draws active power)
  std::uint64_t held_ps = 0;       // time stages waited upstream for admission (back-pressure)
  std::uint64_t held_stages = 0;
  std::uint64_t outage_wait_ps = 0;      // time stages waited for the element to come back up
  std::uint64_t outage_stages = 0;       // stages that waited for it
  std::uint64_t slowed_ps = 0;           // time lane holdings took longer in slowdowns
  std::uint64_t failed_stages = 0;       // stages that failed their operation at an outage
  std::uint64_t timed_out_attempts = 0;  // requests that got no answer (response_timeout)
  std::uint64_t cut_stages = 0;          // stages cut by a power loss (their work so far lost)
  std::uint64_t lost_ps = 0;             // main-lane time of that lost work
  std::vector<std::uint64_t> waits_ps;   // per stage: its waits, kept only when the trace is off
};

class Element : public sc_core::sc_module {
 public:
  StageTargetSocket<Element> in;
  StageInitiatorSocket<Element> out;

  Element(sc_core::sc_module_name name, const ParamSet& params, std::uint32_t lanes);
  const char* kind() const override { return "cnuas_element"; }

  const std::string& type() const { return params_.schema()->type(); }
  const ParamSet& params() const { return params_; }
  const LaneSet& lanes() const { return lanes_; }
  const ElementStats& stats() const { return stats_; }
  std::uint32_t index() const { return index_; }
  // Whether this element's stages go to the trace files (its `trace` field).
  bool traced() const { return traced_; }

  // Messages about this element name it: "<hierarchical name> (<type>): <message>".
  std::string describe(const std::string& message) const;
  // This element's level: its `log` field, or the run's level when "inherit".
  LogLevel log_level() const { return log_level_; }
  // Whether a message of `level` would be written; ask before building a costly one.
  bool logs(LogLevel level) const { return level != LogLevel::Quiet && level <= log_level_; }
  // Writes "cnuas: <level>: " + describe(message) to the run's log when logs(level).
  void log(LogLevel level, const std::string& message) const;

  // Analytic time of one stage of `op` alone on an idle element, in
  // picoseconds, rounded up. A model that only gives this holds its lane for
  // all of it (occupancy, no latency); calibration fits against it.
  virtual std::uint64_t service_ps(const Stage& stage) = 0;
  // What the stage asks of the lanes. The default: service_ps as occupancy on
  // the lane pinned_lane() gives, or the earliest of lane_range().
  virtual StagePlan plan(const Stage& stage);
  // A lane fixed by the work (a bank by address); nullopt picks the earliest lane.
  virtual std::optional<std::uint32_t> pinned_lane(const Stage&) const { return std::nullopt; }
  // The lanes a stage may use; the earliest-lane rule applies within them. Default: all lanes.
  struct LaneRange {
    std::uint32_t first;
    std::uint32_t count;
  };
  virtual LaneRange lane_range(const Stage&) const { return {0, lanes_.size()}; }
  // What lane `lane` is, for trace viewers ("port 2 wire"); default "lane N".
  virtual std::string lane_name(std::uint32_t lane) const;

  // The elements this one is connected to, known once the platform is bound
  // (set_neighbours): where its `out` bindings lead, in binding order (a stage
  // leaves by out_port(), an index into these), and the distinct elements that
  // send to it, in connection order (a stage comes in by in_port(), an index
  // into those). Without them (elements bound by hand), the targets are
  // unnamed (null) and there are no senders.
  const std::vector<const Element*>& targets() const { return targets_; }
  const std::vector<const Element*>& senders() const { return senders_; }
  // The out binding leading to `e`, if there is one.
  std::optional<std::uint32_t> target_port(const Element* e) const;
  std::optional<std::uint32_t> sender_port(const Element* e) const;
  void set_neighbours(std::vector<const Element*> targets, std::vector<const Element*> senders);
  // The checks that need the wiring (a switch's ports, a root's upstream),
  // once set_neighbours ran: so that `cnuas validate` finds what `run` would.
  void check_wiring() { check_bindings(); }

  // When a pinned stage may enter the element (a full buffer holds it back);
  // the default admits it at its ready time. The wait is counted as held_ps.
  virtual std::uint64_t admission_ps(const Stage&, std::uint32_t /*lane*/, std::uint64_t ready_ps,
                                     const StagePlan&) {
    return ready_ps;
  }
  // Whether the scheduler may book this element's stages before simulated time
  // reaches their ready time (when nothing else can happen in between). A model
  // that reads sc_time_stamp() while booking must say no.
  virtual bool allows_lookahead() const { return true; }
  // Power drawn above idle while serving `op` for `duration_ps`, when the
  // model knows it better than active_power (a GPU kernel's counted energy).
  virtual std::optional<std::int64_t> stage_power_uw(const Operation& /*op*/,
                                                     std::uint64_t /*duration_ps*/) const {
    return std::nullopt;
  }
  // Whether stage_power_uw may answer for some stage (the power roll-up skips
  // elements that draw nothing and count nothing themselves).
  virtual bool counts_own_energy() const { return false; }
  // Hook for models that want to see every booking (power, internal state):
  // the main lane's booking.
  virtual void on_booked(const Stage&, const Booking&) {}
  // Fault and recovery counters the model keeps, as JSON members for its
  // stats entry ("name":{...}), or "" when it has none to report.
  virtual std::string fault_stats() const { return ""; }

  // A validated calibration for this element's type and profile: a stage's
  // time alone then is max(0, a * analytic + b), the difference taken from its
  // occupancy first, then its latency; such stages are reported as calibrated
  // predictions.
  struct Calibration {
    double a;
    double b_s;
    std::string target;
    double heldout_mape_percent;
  };
  void set_calibration(const Calibration& c) { calibration_ = c; }

  // Spans in which the element (or one port's lanes) is down, sorted by start (workload fault
  // events). What a stage that would hold a lane during one does is its
  // `on_outage` field: wait for the end (admitted then, as a stage held
  // upstream is: admitted_ps in the trace), or fail its operation when the
  // outage begins (or at once, when it arrives during one). An element that
  // times its requests out (set_response_timeout) retries instead.
  void set_outages(std::vector<Outage> outages);
  // Outages of the port facing `peer` only (a switch port): its lanes
  // (lanes_facing) serve nothing then; the other ports go on.
  void add_port_outages(const Element& peer, const std::vector<Outage>& outages);
  const std::vector<Outage>& outages() const { return outages_; }
  // Spans and picoseconds down, a failed port's span counted once.
  std::uint64_t outage_spans() const { return outage_spans_; }
  std::uint64_t down_ps() const { return down_ps_; }
  // The lanes of the port that faces `peer` (an element connected to this
  // one); none when the element has no ports (then only all of it can fail).
  virtual std::vector<std::uint32_t> lanes_facing(const Element& /*peer*/) const { return {}; }
  // Spans in which the element's rack has no power (its shelf's power_loss
  // until power_restored), sorted and apart; to_ps == UINT64_MAX: power never
  // returns. A stage in flight when the power goes is cut: the work its main
  // lane did until then is lost (its holding is kept: it drew power), and it
  // is done again whole once power is back (on_outage: wait) or its
  // operation fails (fail, or power that never returns). One that arrives
  // without power waits or fails likewise.
  void set_power_cuts(std::vector<Outage> cuts);
  const std::vector<Outage>& power_cuts() const { return power_cuts_; }
  // Spans of reduced speed, sorted and apart: a lane holding that overlaps one
  // lasts as long as its work takes at that speed (rounded up to a picosecond).
  void set_slowdowns(std::vector<Slowdown> slowdowns) { slowdowns_ = std::move(slowdowns); }
  const std::vector<Slowdown>& slowdowns() const { return slowdowns_; }
  // Injected faults the element saw, by kind (a GPU's corrected ECC errors):
  // written to the statistics as "faults" when any kind is set.
  void set_fault_counts(std::map<std::string, std::uint64_t> counts) {
    fault_counts_ = std::move(counts);
  }
  const std::map<std::string, std::uint64_t>& fault_counts() const { return fault_counts_; }
  const std::optional<Calibration>& calibration() const { return calibration_; }

  // Called by the scheduler when simulated time reaches the stage's ready time.
  void book_stage(Operation& op, std::uint32_t stage, std::uint64_t ready_ps);
  std::string served_badly(const Operation& op, const std::string& why) const;

 protected:
  // Elements whose lanes follow their connections say how many they need
  // (called once the platform is bound, targets() and senders() known); the
  // default keeps the count given to the constructor.
  virtual std::uint32_t lanes_after_binding() const { return lanes_.size(); }
  // Checks that need the bindings (a switch's port count), after lanes are sized.
  virtual void check_bindings() {}
  // A request sent while the element it goes to (later on the route) is down
  // gets no answer: this element waits `timeout_ps`, then sends it again, up
  // to `retries` times; then its operation fails (a Modbus master, a BMC
  // polling a sensor).
  void set_response_timeout(std::uint64_t timeout_ps, std::uint32_t retries) {
    response_timeout_ps_ = timeout_ps;
    retries_ = retries;
  }
  // The ready time of the stage plan() is asked about, when booking it.
  std::uint64_t planned_ready_ps() const { return planned_ready_ps_; }

  ParamSet params_;

 private:
  void end_of_elaboration() override;
  struct Booked;  // what booking one stage did
  void book(const Stage& stage, const StagePlan& plan, std::uint64_t ready_ps, Booked& booked);
  std::uint64_t held_for(std::uint64_t start, std::uint64_t work_ps);
  // The lane a resolved choice takes now: the pinned one, or the earliest of its group.
  std::uint32_t lane_of(const LaneChoice& c) const {
    return c.pinned ? c.first : lanes_.earliest(c.first, c.count);
  }
  void book_slowed(const StagePlan& plan, std::uint32_t main_lane, Booked& booked);
  std::uint64_t clear_of_outages(const StagePlan& plan, std::uint32_t main_lane,
                                 const std::uint32_t* feed_lane, std::uint64_t admitted) const;
  const Outage* outage_met(const StagePlan& plan, std::uint32_t main_lane,
                           const std::uint32_t* feed_lane, std::uint64_t admitted,
                           std::uint64_t& start) const;
  void book_failing(const StagePlan& plan, std::uint32_t main_lane, const std::uint32_t* feed_lane,
                    Booked& b);
  struct PowerCutResult {
    std::uint64_t ready_ps;  // when the stage may start again
    bool failed;             // it fails at ready_ps instead
  };
  PowerCutResult through_power_cuts(const StagePlan& plan, std::uint64_t ready_ps);
  bool book_retried(const Stage& stage, const StagePlan& plan, std::uint32_t main_lane, Booked& b);
  void fail_operation(Operation& op, const Booked& b);
  void calibrate(StagePlan& plan, const Operation& op);
  tlm::tlm_sync_enum nb_transport_fw(int id, tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void respond_to_initiator(Operation& op, bool ok = true);

  LaneSet lanes_;
  std::vector<const Element*> targets_;
  std::vector<const Element*> senders_;
  bool neighbours_known_ = false;
  std::optional<Calibration> calibration_;
  std::vector<Outage> outages_;
  std::vector<Slowdown> slowdowns_;
  std::vector<Outage> power_cuts_;
  std::uint64_t outage_spans_ = 0, down_ps_ = 0;
  std::vector<Booking> lost_;  // lane holdings cut by a power loss, for the stage being booked
  bool fail_on_outage_ = false;
  std::uint64_t response_timeout_ps_ = 0;  // 0: requests are not timed out
  std::uint32_t retries_ = 0;
  std::map<std::string, std::uint64_t> fault_counts_;
  ElementStats stats_;
  RunContext& context_;
  std::uint32_t index_;
  LogLevel log_level_;
  bool traced_;
  bool warned_negative_calibration_ = false;
  std::uint64_t planned_ready_ps_ = 0;
  std::vector<std::uint32_t> busy_signal_;  // waveform ids, when VCD is on
  std::uint32_t queue_signal_ = 0;
  std::vector<std::uint32_t> power_signals_;  // the rack's and the platform's, when VCD is on
  int active_mw_ = 0;
};

}  // namespace cnuas
