#include "core/kernel/element.h"

#include <cmath>

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
  // The stage protocol has no backward calls into `out` and no b_transport:
  // responses go straight to the initiator (stage_protocol.h).
  in.register_nb_transport_fw(this, &Element::nb_transport_fw);
  if (Waveforms* w = context_.waveforms()) {
    for (std::uint32_t lane = 0; lane < lanes; ++lane)
      busy_signal_.push_back(
          w->add_signal(std::string(this->name()) + ".lane" + std::to_string(lane) + "_busy", 1));
    queue_signal_ = w->add_signal(std::string(this->name()) + ".queue_depth", 32);
    // Power in milliwatts: idle from the start, active while a lane is busy.
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

void Element::book_stage(Operation& op, std::uint32_t stage, std::uint64_t ready_ps) {
  if (context_.failed()) return;  // the run is stopping
  std::optional<std::uint32_t> pin;
  Booking b;
  try {
    const Stage context{op, stage};
    std::uint64_t service = service_ps(context);
    if (calibration_) {
      // Calibrated prediction; least-squares coefficients are binary floating
      // point, evaluated the same way every run.
      const double t = calibration_->a * static_cast<double>(service) + calibration_->b_s * 1e12;
      if (t < 0 && !warned_negative_calibration_) {
        warned_negative_calibration_ = true;
        log(LogLevel::Warning,
            fmt::format("the calibration for '{}' predicts {:.6g} ps for operation '{}' (analytic "
                        "{} ps); negative predictions are served in 0 ps (reported once)",
                        calibration_->target, t, op.name(), service));
      }
      service = t <= 0 ? 0 : static_cast<std::uint64_t>(std::ceil(t));
    }
    pin = pinned_lane(context);
    if (pin) {
      const std::uint64_t admitted = admission_ps(context, *pin, ready_ps, service);
      if (admitted > ready_ps) {
        stats_.held_ps += admitted - ready_ps;
        ++stats_.held_stages;
        if (logs(LogLevel::Info))
          log(LogLevel::Info, fmt::format("'{}' held {} ps upstream until lane {} admits it "
                                          "(back-pressure)",
                                          op.name(), admitted - ready_ps, *pin));
      }
      b = lanes_.book_pinned(*pin, admitted, service);
    } else {
      const LaneRange range = lane_range(context);
      b = range.count == lanes_.size()
              ? lanes_.book(ready_ps, service)
              : lanes_.book_among(range.first, range.count, ready_ps, service);
    }
  } catch (const InputError& e) {
    context_.fail_input(
        describe(fmt::format("cannot serve operation '{}': {}", op.name(), e.what())));
    return;
  } catch (const OverflowError& e) {  // exact arithmetic on the user's figures left 128 bits
    context_.fail_input(
        describe(fmt::format("cannot serve operation '{}': {}", op.name(), e.what())));
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
  // Queue waits come from the trace at the end; without a trace the element keeps them.
  if (context_.trace_enabled)
    context_.trace().record(op.index, index_, stage, b.lane, ready_ps, b.start_ps, b.end_ps,
                            pin.has_value(), calibration_.has_value());
  else
    stats_.waits_ps.push_back(b.start_ps - ready_ps);
  ++stats_.stages;
  if (logs(LogLevel::Debug))
    log(LogLevel::Debug,
        fmt::format("booked '{}' stage {} on lane {}: ready {} ps, start {} ps, end {} ps",
                    op.name(), stage, b.lane, ready_ps, b.start_ps, b.end_ps));
  if (Waveforms* w = context_.waveforms()) {
    w->post(busy_signal_[b.lane], b.start_ps, +1);
    w->post(busy_signal_[b.lane], b.end_ps, -1);
    if (b.start_ps > ready_ps) {
      w->post(queue_signal_, ready_ps, +1);
      w->post(queue_signal_, b.start_ps, -1);
    }
    if (active_mw_ != 0 && b.end_ps > b.start_ps)
      for (std::uint32_t s : power_signals_) {
        w->post(s, b.start_ps, active_mw_);
        w->post(s, b.end_ps, -active_mw_);
      }
  }
  on_booked(op, b);

  const std::uint64_t now = now_ps();
  const Route& route = *op.route;
  if (stage + 1 < route.path.size()) {
    // Hand the operation on with the next stage's ready time as annotated delay.
    const std::uint64_t next_ready = op.mode == StageMode::Serial ? b.end_ps : ready_ps;
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time delay = ps_time(next_ready - now);
    out[static_cast<int>(route.out_port[stage])]->nb_transport_fw(*op.payload, phase, delay);
  } else {
    respond_to_initiator(op);
  }
}

void Element::respond_to_initiator(Operation& op) {
  // The elements in between have nothing to add to a response, so it goes
  // straight to the operation's initiator through the first element's target
  // socket: one call instead of one per hop, which matters on large platforms.
  tlm::tlm_phase phase = tlm::BEGIN_RESP;
  sc_core::sc_time delay = ps_time(op.end_ps - now_ps());
  op.payload->set_response_status(tlm::TLM_OK_RESPONSE);
  Element& first = *op.route->path.front();
  first.in[static_cast<int>(op.route->initiator_port)]->nb_transport_bw(*op.payload, phase, delay);
}

}  // namespace cnuas
