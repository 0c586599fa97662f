// cnuas.nic: a network adapter: queue engines (per-message and per-packet
// processing, a message-rate ceiling) feeding one wire per direction at line
// rate, MTU packetization with per-packet header bytes on the wire.
//
// Each direction (outgoing connection) has `queues` queue engines and one
// wire: a message takes the queue that frees first, reaches the wire after its
// per-message processing, holds the wire for its bytes and headers at line
// rate (occupancy), and keeps its queue until its last byte has left the wire.
// The queues of one port never add up to more than the line rate.
#pragma once

#include "core/kernel/element.h"
#include "core/kernel/linear_cost.h"

namespace cnuas {

class Nic : public Element {
 public:
  Nic(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override { return plan(stage).alone_ps(); }
  StagePlan plan(const Stage& stage) override;
  std::string lane_name(std::uint32_t lane) const override;

 private:
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
};

}  // namespace cnuas
