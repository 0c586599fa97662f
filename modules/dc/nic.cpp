#include "dc/nic.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/kernel/registry.h"

namespace cnuas {

const Schema& Nic::schema() {
  static const Schema s =
      Schema("cnuas.nic",
             "Network adapter: queue engines (per-message and per-packet processing, a "
             "message-rate ceiling) feeding one wire per direction at line rate")
          .timing(
              "Each direction (outgoing connection) has `queues` queue engines and one wire. A "
              "message takes the queue that frees first; after messages x per_message it reaches "
              "the wire, which it holds for (bytes + packets x header) / line_rate (occupancy); "
              "its queue stays busy until the last byte has left the wire, and at least messages "
              "x per_message + packets x per_packet, and messages / message_rate (the queue's "
              "occupancy). `latency` follows (the queue and the wire serve others meanwhile). "
              "Eight queues on one port share its line rate.")
          .quantity("line_rate", Dimension::DataRate, std::nullopt,
                    "port line rate, each direction (the wire's occupancy: wire bytes / line_rate)",
                    true)
          .integer("queues", 1, "queue engines per direction, processing messages at once", 1,
                   65535)
          .quantity("mtu", Dimension::Data, "4 KiB", "payload bytes per packet", true)
          .quantity("header", Dimension::Data, "0 B",
                    "bytes each packet adds on the wire (headers, CRC, gaps)")
          .quantity("per_packet", Dimension::Time, "0 ns",
                    "queue processing per packet (occupancy of the queue, alongside the wire)")
          .quantity("per_message", Dimension::Time, "0 ns",
                    "queue processing per message before its data reaches the wire (doorbell, "
                    "WQE; occupancy of the queue)")
          .quantity("message_rate", Dimension::OpRate, "0 op/s",
                    "messages per second one queue can issue (0: no ceiling; occupancy of the "
                    "queue)")
          .quantity("latency", Dimension::Time, "0 ns",
                    "time through the adapter's pipeline after the wire (latency: holds neither "
                    "queue nor wire)")
          .needs({WorkDim::Bytes});
  return s;
}

Nic::Nic(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, static_cast<std::uint32_t>(params.integer("queues")) + 1),
      queues_(static_cast<std::uint32_t>(params.integer("queues"))),
      wire_(Rational(0), Rational(8) * ps_per_second() / params.quantity("line_rate")),
      per_message_(Rational(0), params.quantity("per_message")),
      mtu_bytes_(params.whole_bytes("mtu", this->name())),
      header_bytes_(params.whole_bytes("header", this->name())),
      per_packet_ps_(params.quantity("per_packet")),
      per_message_ps_(params.quantity("per_message")),
      ceiling_(Rational(0), params.quantity("message_rate").is_zero()
                                ? Rational(0)
                                : ps_per_second() / params.quantity("message_rate")),
      latency_ps_(params.time_ps("latency")) {}

std::uint32_t Nic::lanes_after_binding() const {
  return std::max<std::uint32_t>(1, static_cast<std::uint32_t>(targets().size())) * (queues_ + 1);
}

std::uint32_t Nic::direction(const Stage& stage) const {
  if (stage.next() != nullptr) return stage.out_port();
  // Ending here: away from the side it came from (host side or network side).
  const auto back = target_port(stage.previous());
  return back && targets().size() == 2 ? 1 - *back : 0;
}

StagePlan Nic::plan(const Stage& stage) {
  const std::uint64_t bytes = stage.dims().get(WorkDim::Bytes);
  const std::uint64_t messages =
      stage.dims().has(WorkDim::Messages) ? stage.dims().get(WorkDim::Messages) : 1;
  const std::uint64_t packets = bytes == 0 ? 1 : (bytes + mtu_bytes_ - 1) / mtu_bytes_;
  std::uint64_t wire_bytes;
  if (__builtin_mul_overflow(packets, header_bytes_, &wire_bytes) ||
      __builtin_add_overflow(wire_bytes, bytes, &wire_bytes))
    throw OverflowError();
  const std::uint32_t first = direction(stage) * (queues_ + 1);
  StagePlan p = StagePlan::simple(wire_.ceil_at(wire_bytes), latency_ps_,
                                  LaneChoice::among(first + queues_, 1));
  p.feed = Feed::Engine;
  p.feed_lanes = LaneChoice::among(first, queues_);
  p.lead_ps = per_message_.ceil_at(messages);
  // The queue's own work: per-message and per-packet processing, or the
  // message-rate ceiling if that is longer (ceil of a maximum = maximum of ceils).
  std::uint64_t processing = p.lead_ps;
  if (!per_packet_ps_.is_zero())
    processing =
        (Rational(messages) * per_message_ps_ + Rational(packets) * per_packet_ps_).ceil_u64();
  p.feed_occupancy_ps = std::max(processing, ceiling_.ceil_at(messages));
  return p;
}

std::string Nic::lane_name(std::uint32_t lane) const {
  const std::uint32_t d = lane / (queues_ + 1), k = lane % (queues_ + 1);
  const std::string to = d < targets().size() && targets()[d] != nullptr
                             ? std::string("to ") + targets()[d]->basename()
                             : "port " + std::to_string(d);
  return k == queues_ ? "wire " + to : fmt::format("queue {} {}", k, to);
}

CNUAS_REGISTER_MODEL(Nic);

}  // namespace cnuas
