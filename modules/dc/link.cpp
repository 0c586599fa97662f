#include "dc/link.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/kernel/registry.h"
#include "dc/nic.h"

namespace cnuas {
namespace {

// Payload bits per line bit for each line code.
Rational encoding_efficiency(const std::string& code) {
  if (code == "8b/10b") return Rational(8, 10);
  if (code == "64b/66b") return Rational(64, 66);
  if (code == "128b/130b") return Rational(128, 130);
  if (code == "242b/256b") return Rational(242, 256);
  return Rational(1);
}

}  // namespace

const Schema& Link::schema() {
  static const Schema s =
      Schema("cnuas.link",
             "Serial link: bytes / (lane_rate x width x encoding) + length / (c x velocity_factor)")
          .timing(
              "Full duplex: each direction (each outgoing connection) has its own wire, or "
              "`channels` independent wires. A transfer takes its direction's wire that frees "
              "first and holds it for bytes / (lane_rate x width x encoding) (occupancy); the "
              "propagation delay length / (c x velocity_factor) follows (latency), while the wire "
              "already carries the next transfer: N back-to-back frames finish at N x "
              "serialization + propagation. With a bit error rate, a packet is lost with "
              "probability 1 - "
              "(1 - bit_error_rate)^bits; the NIC before the link on the route resends it (see "
              "cnuas.nic) and the resent bytes hold the wire again.")
          .quantity("lane_rate", Dimension::DataRate, std::nullopt,
                    "signalling rate of one lane, before encoding", true)
          .integer("width", 1, "lanes bonded into one transfer (x16, 18 NVLinks)", 1, 1024)
          .choice("encoding", {"none", "8b/10b", "64b/66b", "128b/130b", "242b/256b"}, "none",
                  "line code; its overhead reduces the payload rate")
          .quantity("length", Dimension::Length, "0 m",
                    "cable or trace length (latency: the propagation delay)")
          .quantity("velocity_factor", Dimension::Count, "70 %", "signal speed as a fraction of c",
                    true)
          .integer("channels", 1,
                   "independent wires per direction, each at the full rate (parallel cables)", 1,
                   65536)
          .quantity("bit_error_rate", Dimension::Count, "0",
                    "probability that a bit arrives flipped (0: lossless; at most 1e-2); a packet "
                    "with one is dropped by its CRC check and the NIC before the link on the "
                    "route retransmits it (see cnuas.nic retransmission)")
          .needs({WorkDim::Bytes});
  return s;
}

Link::Link(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, static_cast<std::uint32_t>(params.integer("channels"))),
      channels_(static_cast<std::uint32_t>(params.integer("channels"))) {
  const Rational payload_rate = params.quantity("lane_rate") * Rational(params.integer("width")) *
                                encoding_efficiency(params.text("encoding"));
  const Rational speed = Rational(299'792'458) * params.quantity("velocity_factor");  // m/s
  propagation_ps_ = (params.quantity("length") / speed * ps_per_second()).ceil_u64();
  occupancy_ = LinearCost(Rational(0), Rational(8) * ps_per_second() / payload_rate);
  const Rational& ber = params.quantity("bit_error_rate");
  // Above 1e-2 nearly every packet of a usual MTU is lost: a link that bad is down.
  if (Rational(1, 100) < ber)
    throw InputError(params.get("bit_error_rate").where,
                     describe(fmt::format("bit_error_rate {} is above the largest accepted, 1e-2 "
                                          "(a link that bad is down: use element_down)",
                                          ber.to_decimal(6))));
  ber_ = ber.to_double();
}

double Link::ber_at(std::uint64_t t_ps) const {
  for (const ErrorSpan& s : error_spans_)
    if (s.from_ps <= t_ps && t_ps < s.to_ps) return s.ber;
  return ber_;
}

std::uint32_t Link::lanes_after_binding() const {
  return std::max<std::uint32_t>(1, static_cast<std::uint32_t>(targets().size())) * channels_;
}

std::uint32_t Link::direction(const Stage& stage) const {
  if (stage.next() != nullptr) return stage.out_port();
  // Ending here: away from where it came from (the other end of a two-ended link).
  const auto back = target_port(stage.previous());
  return back && targets().size() == 2 ? 1 - *back : 0;
}

StagePlan Link::plan(const Stage& stage) {
  // Retransmitted bytes cross the wire again.
  std::uint64_t bytes = stage.dims().get(WorkDim::Bytes);
  if (__builtin_add_overflow(bytes, Nic::retransmitted_bytes_reaching(stage), &bytes))
    throw OverflowError();
  return StagePlan::simple(occupancy_.ceil_at(bytes), propagation_ps_,
                           LaneChoice::among(direction(stage) * channels_, channels_));
}

void Link::on_booked(const Stage& stage, const Booking&) {
  retransmitted_bytes_ += Nic::retransmitted_bytes_reaching(stage);
}

std::string Link::fault_stats() const {
  if (!lossy()) return "";
  return fmt::format(R"("errors":{{"crc_drops":{},"retransmitted_bytes":{}}})", crc_drops_,
                     retransmitted_bytes_);
}

std::string Link::lane_name(std::uint32_t lane) const {
  const std::uint32_t d = lane / channels_;
  const std::string to = d < targets().size() && targets()[d] != nullptr
                             ? std::string(" to ") + targets()[d]->basename()
                             : " " + std::to_string(d);
  return channels_ == 1 ? "wire" + to : fmt::format("wire{} channel {}", to, lane % channels_);
}

CNUAS_REGISTER_MODEL(Link);

}  // namespace cnuas
