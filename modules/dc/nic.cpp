#include "dc/nic.h"

#include <algorithm>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/kernel/registry.h"
#include "core/kernel/run_context.h"
#include "dc/link.h"
#include "dc/packet_loss.h"
#include "dc/switch.h"

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
              "Eight queues on one port share its line rate. Packets that lossy links drop between "
              "this NIC and the next on the route are resent on the wire (go-back-N: the lost "
              "packet and those sent after it; selective repeat: the lost one) once the NACK "
              "arrives, a round trip after the next intact packet left (a lost last packet: "
              "after retransmit_timeout); the wire's occupancy grows by the resends and by any "
              "wait for a NACK with nothing left to send.")
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
          .choice("retransmission", {"go_back_n", "selective_repeat"}, "go_back_n",
                  "how the transport recovers packets that lossy links drop between this NIC and "
                  "the next on the route: go_back_n resends the lost packet and every packet "
                  "sent after it (RoCE v2 without selective repeat), selective_repeat only the "
                  "lost one; either after the receiver's NACK, a round trip after the next "
                  "packet arrived")
          .quantity("round_trip", Dimension::Time, "0 ns",
                    "from a packet leaving the wire to the NACK it triggers arriving back (0: "
                    "twice the latency of the route to the next NIC: NIC latencies, link "
                    "propagation, switch port-to-port latency)")
          .quantity("retransmit_timeout", Dimension::Time, "67.108864 ms",
                    "a lost packet with none after it is resent this long after it left the wire "
                    "(4.096 us x 2^14, a usual RoCE local ACK timeout)")
          .integer("retry_limit", 7,
                   "losses of one packet the transport recovers from; one more fails the run "
                   "(the queue pair goes to error)",
                   0, 7)
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
      latency_ps_(params.time_ps("latency")),
      context_(RunContext::current()) {
  recovery_.scheme = params.text("retransmission") == "go_back_n" ? RecoveryScheme::GoBackN
                                                                  : RecoveryScheme::SelectiveRepeat;
  recovery_.round_trip_ps = params.time_ps("round_trip");
  recovery_.timeout_ps = params.time_ps("retransmit_timeout");
  recovery_.retry_limit = static_cast<std::uint32_t>(params.integer("retry_limit"));
}

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
  planned_.reset();
  if (stage.next() != nullptr) {
    const std::vector<Link*> lossy = lossy_links_ahead(stage);
    if (!lossy.empty())
      recover_losses(
          stage,
          {packets, mtu_bytes_, bytes == 0 ? 0 : bytes - (packets - 1) * mtu_bytes_, header_bytes_},
          p, lossy);
  }
  return p;
}

std::vector<Link*> Nic::lossy_links_ahead(const Stage& stage) const {
  std::vector<Link*> lossy;
  const auto& path = stage.op.route->path;
  for (std::size_t k = stage.index + 1; k < path.size(); ++k) {
    if (dynamic_cast<const Nic*>(path[k]) != nullptr) break;  // the receiver
    auto* link = dynamic_cast<Link*>(path[k]);
    if (link != nullptr && link->lossy()) lossy.push_back(link);
  }
  return lossy;
}

std::uint64_t Nic::round_trip_ps(const Stage& stage) const {
  if (recovery_.round_trip_ps != 0) return recovery_.round_trip_ps;
  std::uint64_t one_way = latency_ps_;
  const auto& path = stage.op.route->path;
  for (std::size_t k = stage.index + 1; k < path.size(); ++k) {
    std::uint64_t step = 0;
    if (const auto* link = dynamic_cast<const Link*>(path[k])) step = link->propagation_ps();
    if (const auto* sw = dynamic_cast<const Switch*>(path[k])) step = sw->port_latency_ps();
    const auto* nic = dynamic_cast<const Nic*>(path[k]);
    if (nic != nullptr) step = nic->latency_ps_;
    if (__builtin_add_overflow(one_way, step, &one_way)) throw OverflowError();
    if (nic != nullptr) break;
  }
  if (__builtin_mul_overflow(one_way, std::uint64_t{2}, &one_way)) throw OverflowError();
  return one_way;
}

void Nic::recover_losses(const Stage& stage, const PacketTrain& train, StagePlan& plan,
                         const std::vector<Link*>& links) {
  // Where the wire starts, as book() will place it (the bit error rate of a
  // link_errors span applies to the packets sent in it).
  const std::uint32_t first = direction(stage) * (queues_ + 1);
  const std::uint64_t queue_free = lanes().free_at(lanes().earliest(first, queues_));
  const std::uint64_t wire_start = std::max(std::max(planned_ready_ps(), queue_free) + plan.lead_ps,
                                            lanes().free_at(first + queues_));
  RecoveryTiming timing = recovery_;
  timing.round_trip_ps = round_trip_ps(stage);
  const std::uint64_t op = stage.op.index;
  const LossOracle lost = [&](std::uint64_t packet, std::uint32_t attempt, std::uint64_t send_ps,
                              std::uint64_t wire_bytes) {
    for (std::size_t i = 0; i < links.size(); ++i) {
      const double p =
          packet_loss_probability(links[i]->ber_at(wire_start + send_ps), wire_bytes * 8);
      if (packet_lost(links[i]->index(), op, packet, attempt, p)) return static_cast<int>(i);
    }
    return -1;
  };
  try {
    Recovery r = recover(train, wire_, timing, links.size(), lost);
    plan.occupancy_ps = r.wire_ps;
    planned_ = Planned{stage.op.index, std::move(r), links};
  } catch (const RetriesExhausted& e) {
    const Link& link = *links[static_cast<std::size_t>(e.link)];
    throw InputError(fmt::format(
        "packet {} was lost {} times on '{}' (bit error rate {:g}); the transport gives up after "
        "retry_limit {} retransmissions (its queue pair goes to error)",
        e.packet, timing.retry_limit + 1, link.name(), link.ber_at(wire_start),
        timing.retry_limit));
  }
}

void Nic::on_booked(const Stage& stage, const Booking& main) {
  if (!planned_ || planned_->op != stage.op.index) return;
  const Recovery& r = planned_->recovery;
  ++lossy_stages_;
  drops_ += r.drops;
  resent_packets_ += r.resent_packets;
  resent_bytes_ += r.resent_payload_bytes;
  stall_ps_ += r.stall_ps;
  for (std::size_t i = 0; i < planned_->links.size(); ++i)
    planned_->links[i]->count_drops(r.drops_by_link[i]);
  if (r.resent_payload_bytes > 0) {
    resent_[stage.op.index] = r.resent_payload_bytes;
    ++resends_anywhere_;
  }
  if (r.drops > 0 && context_.trace_enabled && traced())
    context_.trace().record_instant(
        {main.start_ps, index(), "retransmission",
         fmt::format(R"("op":{},"scheme":"{}","drops":{},"retransmitted_packets":{},)"
                     R"("retransmitted_bytes":{},"stall_ps":{})",
                     nlohmann::json(stage.op.name()).dump(), params().text("retransmission"),
                     r.drops, r.resent_packets, r.resent_payload_bytes, r.stall_ps)});
  planned_.reset();
}

std::string Nic::fault_stats() const {
  if (lossy_stages_ == 0) return "";
  return fmt::format(
      R"("recovery":{{"scheme":"{}","lossy_stages":{},"drops":{},"retransmitted_packets":{},)"
      R"("retransmitted_bytes":{},"stall_ps":{}}})",
      params().text("retransmission"), lossy_stages_, drops_, resent_packets_, resent_bytes_,
      stall_ps_);
}

std::uint64_t Nic::retransmitted_bytes_reaching(const Stage& stage) {
  if (resends_anywhere_ == 0) return 0;
  const auto& path = stage.op.route->path;
  for (std::size_t k = stage.index; k-- > 0;)
    if (const auto* nic = dynamic_cast<const Nic*>(path[k])) {
      const auto it = nic->resent_.find(stage.op.index);
      return it == nic->resent_.end() ? 0 : it->second;
    }
  return 0;
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
