// The base of every Cnuas hardware element.
//
// An element is an sc_module with a target socket `in` and an initiator socket
// `out` (multi-bindable, connected by hierarchical name) of Cnuas's stage
// protocol (stage_protocol.h: BEGIN_REQ forward with the ready time as delay,
// BEGIN_RESP straight back to the initiator, timing-only payloads). Work
// arrives as a tlm_generic_payload carrying an OperationExtension; the element
// turns the operation's work dimensions into a service time and books it on
// its lanes through the shared scheduler. Lanes, trace, stats and waveforms
// come from here so no model re-implements them: a model only says how long its
// work takes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "core/inputs/schema.h"
#include "core/kernel/lanes.h"
#include "core/kernel/log.h"
#include "core/kernel/operation.h"
#include "core/kernel/stage_protocol.h"

namespace cnuas {

class RunContext;

struct ElementStats {
  std::uint64_t stages = 0;
  std::uint64_t held_ps = 0;  // time stages waited upstream for admission (back-pressure)
  std::uint64_t held_stages = 0;
  std::vector<std::uint64_t> waits_ps;  // start - ready per stage, kept only when the trace is off
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

  // Analytic service time for one stage of `op`, in picoseconds, rounded up.
  virtual std::uint64_t service_ps(const Stage& stage) = 0;
  // A lane fixed by the work (a bank by address); nullopt picks the earliest lane.
  virtual std::optional<std::uint32_t> pinned_lane(const Stage&) const { return std::nullopt; }
  // The lanes a stage may use (a PCIe root keeps one group per direction); the
  // earliest-lane rule applies within them. Default: all lanes.
  struct LaneRange {
    std::uint32_t first;
    std::uint32_t count;
  };
  virtual LaneRange lane_range(const Stage&) const { return {0, lanes_.size()}; }
  // When a pinned stage may enter the element (a full buffer holds it back);
  // the default admits it at its ready time. The wait is counted as held_ps.
  virtual std::uint64_t admission_ps(const Stage&, std::uint32_t /*lane*/, std::uint64_t ready_ps,
                                     std::uint64_t /*service_ps*/) {
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
  // Hook for models that want to see every booking (power, internal state).
  virtual void on_booked(const Operation&, const Booking&) {}

  // A validated calibration for this element's type and profile: its stages
  // then take max(0, a * analytic + b) and are reported as calibrated predictions.
  struct Calibration {
    double a;
    double b_s;
    std::string target;
    double heldout_mape_percent;
  };
  void set_calibration(const Calibration& c) { calibration_ = c; }
  const std::optional<Calibration>& calibration() const { return calibration_; }

  // Called by the scheduler when simulated time reaches the stage's ready time.
  void book_stage(Operation& op, std::uint32_t stage, std::uint64_t ready_ps);

 protected:
  ParamSet params_;

 private:
  tlm::tlm_sync_enum nb_transport_fw(int id, tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void respond_to_initiator(Operation& op);

  LaneSet lanes_;
  std::optional<Calibration> calibration_;
  ElementStats stats_;
  RunContext& context_;
  std::uint32_t index_;
  LogLevel log_level_;
  bool traced_;
  bool warned_negative_calibration_ = false;
  std::vector<std::uint32_t> busy_signal_;  // waveform ids, when VCD is on
  std::uint32_t queue_signal_ = 0;
  std::vector<std::uint32_t> power_signals_;  // the rack's and the platform's, when VCD is on
  int active_mw_ = 0;
};

}  // namespace cnuas
