// cnuas.nic: a network adapter: queue engines (per-message and per-packet
// processing, a message-rate ceiling) feeding one wire per direction at line
// rate, MTU packetization with per-packet header bytes on the wire.
//
// Each direction (outgoing connection) has `queues` queue engines and one
// wire: a message takes the queue that frees first, reaches the wire after its
// per-message processing, holds the wire for its bytes and headers at line
// rate (occupancy), and keeps its queue until its last byte has left the wire.
// The queues of one port never add up to more than the line rate.
//
// The transport recovers packets dropped by lossy links (cnuas.link
// bit_error_rate) between it and the next NIC on the route: go-back-N or
// selective repeat (retransmission.h). The retransmissions hold its wire, and
// the links and switches they cross carry the resent bytes again.
#pragma once

#include <optional>
#include <unordered_map>
#include <vector>

#include "core/kernel/element.h"
#include "core/kernel/linear_cost.h"
#include "dc/retransmission.h"

namespace cnuas {

class Link;
class RunContext;

class Nic : public Element {
 public:
  Nic(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override { return plan(stage).alone_ps(); }
  StagePlan plan(const Stage& stage) override;
  std::string lane_name(std::uint32_t lane) const override;
  void on_booked(const Stage& stage, const Booking& main) override;
  std::string fault_stats() const override;

  // The payload bytes the NIC before `stage` on its route retransmitted for its
  // operation (0 when none did): the links and switches in between carry them again.
  static std::uint64_t retransmitted_bytes_reaching(const Stage& stage);

 private:
  // The lossy links between this stage and the next NIC on the route.
  std::vector<Link*> lossy_links_ahead(const Stage& stage) const;
  std::uint64_t round_trip_ps(const Stage& stage) const;
  // The wire's time with the transport's recovery of the packets the links drop.
  void recover_losses(const Stage& stage, const PacketTrain& train, StagePlan& plan,
                      const std::vector<Link*>& links);

  std::uint32_t lanes_after_binding() const override;
  // The direction a stage travels: the outgoing connection it leaves by.
  std::uint32_t direction(const Stage& stage) const;

  std::uint32_t queues_;
  LinearCost wire_;         // wire bytes -> ps at line rate
  LinearCost per_message_;  // messages -> ps before the data reaches the wire
  std::uint64_t mtu_bytes_;
  std::uint64_t header_bytes_;
  Rational per_packet_ps_;
  Rational per_message_ps_;
  LinearCost ceiling_;  // messages -> ps at the queue's message rate (0: no ceiling)
  std::uint64_t latency_ps_;
  RecoveryTiming recovery_;  // round_trip_ps 0: derived from the route
  RunContext& context_;

  struct Planned {  // the recovery plan() worked out, committed when booked
    std::uint32_t op;
    Recovery recovery;
    std::vector<Link*> links;
  };
  std::optional<Planned> planned_;
  std::unordered_map<std::uint32_t, std::uint64_t> resent_;  // operation -> payload bytes resent
  std::uint64_t lossy_stages_ = 0, drops_ = 0, resent_packets_ = 0, resent_bytes_ = 0,
                stall_ps_ = 0;
  static inline std::uint64_t resends_anywhere_ = 0;  // any NIC of the process resent bytes
};

}  // namespace cnuas
