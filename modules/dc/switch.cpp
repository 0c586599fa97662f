#include "dc/switch.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/kernel/registry.h"
#include "dc/nic.h"

namespace cnuas {

const Schema& Switch::schema() {
  static const Schema s =
      Schema("cnuas.switch",
             "Packet switch: full-duplex ports, an output queue per port; bytes / port_rate on "
             "each wire, ports pipelined (cut-through or store-and-forward)")
          .timing(
              "Every port is a full-duplex wire: lanes 0..ports-1 are the egress wires (by "
              "outgoing connection), then one ingress wire per element that sends to the switch. "
              "A frame holds the ingress wire it arrives on for bytes / port_rate (occupancy); "
              "the egress wire towards its next hop is ready `latency` after the ingress started "
              "(store-and-forward: also one frame's reception later) and is held for bytes / "
              "port_rate (occupancy). The latency holds no wire: ports are pipelined. A frame "
              "that starts or ends at the switch takes only the wire it has, and the latency "
              "follows it.")
          .integer("ports", std::nullopt,
                   "number of full-duplex ports (outgoing connections, and senders, at most this)",
                   1, 65536)
          .quantity("port_rate", Dimension::DataRate, std::nullopt,
                    "line rate of one port, each direction (occupancy: bytes / port_rate)", true)
          .quantity("latency", Dimension::Time, "0 ns",
                    "port-to-port latency (latency: the wires are free meanwhile)")
          .choice("forwarding", {"cut_through", "store_and_forward"}, "cut_through",
                  "cut-through starts sending before a frame is complete; store-and-forward "
                  "receives it first (one frame more of latency)")
          .quantity("frame", Dimension::Data, "4 KiB",
                    "frame size: the unit of store-and-forward and of buffering", true)
          .quantity("buffer", Dimension::Data, "0 B",
                    "buffer per output port (0: unlimited); full means back-pressure")
          .boolean("in_network_reduction", false,
                   "the switch reduces data itself (NVLink SHARP / SHARP): collectives may use "
                   "nvls_allreduce through it")
          .needs({WorkDim::Bytes});
  return s;
}

Switch::Switch(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, static_cast<std::uint32_t>(params.integer("ports"))),
      ports_(static_cast<std::uint32_t>(params.integer("ports"))),
      wire_(Rational(0), Rational(8) * ps_per_second() / params.quantity("port_rate")),
      latency_ps_(params.time_ps("latency")),
      store_and_forward_(params.text("forwarding") == "store_and_forward"),
      in_network_reduction_(params.boolean("in_network_reduction")),
      frame_bytes_(params.whole_bytes("frame", this->name())),
      buffer_bytes_(params.whole_bytes("buffer", this->name())),
      buffered_(params.integer("ports")) {
  if (buffer_bytes_ != 0 && buffer_bytes_ < frame_bytes_)
    throw InputError(params.get("buffer").where,
                     describe(fmt::format("a buffer of {} B cannot hold one {} B frame",
                                          buffer_bytes_, frame_bytes_)));
}

std::uint32_t Switch::lanes_after_binding() const {
  return ports_ + static_cast<std::uint32_t>(senders().size());
}

void Switch::check_bindings() {
  if (static_cast<std::uint32_t>(out.size()) > ports_)
    throw InputError(
        describe(fmt::format("{} outgoing connections but only {} ports", out.size(), ports_)));
  if (senders().size() > ports_)
    throw InputError(describe(
        fmt::format("{} elements send to it but it has only {} ports", senders().size(), ports_)));
}

std::uint64_t Switch::port_latency_ps() const {
  return latency_ps_ + (store_and_forward_ ? wire_.ceil_at(frame_bytes_) : 0);
}

StagePlan Switch::plan(const Stage& stage) {
  // Retransmitted bytes cross the switch again.
  std::uint64_t bytes = stage.dims().get(WorkDim::Bytes);
  if (__builtin_add_overflow(bytes, Nic::retransmitted_bytes_reaching(stage), &bytes))
    throw OverflowError();
  const std::uint64_t wire = wire_.ceil_at(bytes);
  std::uint64_t latency = latency_ps_;
  if (store_and_forward_) latency += wire_.ceil_at(std::min(bytes, frame_bytes_));
  const std::uint32_t from = stage.in_port();
  const bool has_ingress = from != Route::kNoPort;
  if (stage.next() == nullptr) {
    // Ending here (an in-network reduction): the ingress wire alone, or any egress
    // wire when the frame comes from nowhere known.
    return StagePlan::simple(
        wire, latency, has_ingress ? LaneChoice::pin(ports_ + from) : LaneChoice::among(0, ports_));
  }
  StagePlan p =
      StagePlan::simple(wire, has_ingress ? 0 : latency, LaneChoice::pin(stage.out_port()));
  if (has_ingress) {
    p.feed = Feed::Ingress;
    p.feed_lanes = LaneChoice::pin(ports_ + from);
    p.feed_occupancy_ps = wire;
    p.lead_ps = latency;
  }
  return p;
}

std::uint64_t Switch::admission_ps(const Stage& stage, std::uint32_t lane, std::uint64_t ready_ps,
                                   const StagePlan& plan) {
  if (buffer_bytes_ == 0 || lane >= ports_) return ready_ps;
  auto& queue = buffered_[lane];
  while (!queue.empty() && queue.front().first <= ready_ps) queue.pop_front();
  const std::uint64_t frame = std::min(stage.dims().get(WorkDim::Bytes), frame_bytes_);
  std::uint64_t occupied = 0;
  for (const auto& [leaves, bytes] : queue) occupied += bytes;
  std::uint64_t admitted = ready_ps;
  // Wait for the oldest frames to leave until this one fits.
  for (auto it = queue.begin(); occupied + frame > buffer_bytes_ && it != queue.end(); ++it) {
    occupied -= it->second;
    admitted = it->first;
  }
  // FIFO port: it leaves when its transmission ends, after everything queued before it.
  std::uint64_t egress_ready = admitted;
  if (plan.feed != Feed::None)
    egress_ready = std::max(admitted, lanes().free_at(plan.feed_lanes.first)) + plan.lead_ps;
  queue.emplace_back(std::max(egress_ready, lanes().free_at(lane)) + plan.occupancy_ps, frame);
  return admitted;
}

std::vector<std::uint32_t> Switch::lanes_facing(const Element& peer) const {
  std::vector<std::uint32_t> lanes;
  if (const auto egress = target_port(&peer)) lanes.push_back(*egress);
  if (const auto ingress = sender_port(&peer)) lanes.push_back(ports_ + *ingress);
  return lanes;
}

std::string Switch::lane_name(std::uint32_t lane) const {
  if (lane < ports_) {
    const Element* to = lane < targets().size() ? targets()[lane] : nullptr;
    return to != nullptr ? fmt::format("port {} out to {}", lane, to->basename())
                         : fmt::format("port {} out", lane);
  }
  return fmt::format("in from {}", senders()[lane - ports_]->basename());
}

CNUAS_REGISTER_MODEL(Switch);

}  // namespace cnuas
