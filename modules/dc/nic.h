// cnuas.nic: a network adapter: line rate, MTU packetization, per-packet and per-message overheads,
// queues as lanes, a message-rate ceiling.
#pragma once

#include "core/kernel/element.h"
#include "core/kernel/linear_cost.h"

namespace cnuas {

class Nic : public Element {
 public:
  Nic(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override;

 private:
  Rational ps_per_wire_byte_;
  std::uint64_t mtu_bytes_;
  std::uint64_t header_bytes_;
  Rational per_packet_ps_;
  Rational per_message_ps_;
  Rational ps_per_message_ceiling_;  // 0 when there is no ceiling
};

}  // namespace cnuas
