#include "dc/nic.h"

#include <fmt/format.h>

#include "core/kernel/registry.h"

namespace cnuas {

const Schema& Nic::schema() {
  static const Schema s =
      Schema("cnuas.nic",
             "Network adapter: per-message + per-packet overheads + max(wire time with headers, "
             "message-rate ceiling)")
          .quantity("line_rate", Dimension::DataRate, std::nullopt, "port line rate", true)
          .integer("queues", 1, "send queues served at once (lanes)", 1, 65536)
          .quantity("mtu", Dimension::Data, "4 KiB", "payload bytes per packet", true)
          .quantity("header", Dimension::Data, "0 B",
                    "bytes each packet adds on the wire (headers, CRC, gaps)")
          .quantity("per_packet", Dimension::Time, "0 ns", "processing time per packet")
          .quantity("per_message", Dimension::Time, "0 ns",
                    "processing time per message (doorbell, WQE, completion)")
          .quantity("message_rate", Dimension::OpRate, "0 op/s",
                    "messages per second one queue can issue (0: no ceiling)")
          .needs({WorkDim::Bytes});
  return s;
}

Nic::Nic(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, static_cast<std::uint32_t>(params.integer("queues"))),
      ps_per_wire_byte_(Rational(8) * ps_per_second() / params.quantity("line_rate")),
      mtu_bytes_(params.whole_bytes("mtu", this->name())),
      header_bytes_(params.whole_bytes("header", this->name())),
      per_packet_ps_(params.quantity("per_packet")),
      per_message_ps_(params.quantity("per_message")),
      ps_per_message_ceiling_(params.quantity("message_rate").is_zero()
                                  ? Rational(0)
                                  : ps_per_second() / params.quantity("message_rate")) {}

std::uint64_t Nic::service_ps(const Stage& stage) {
  const std::uint64_t bytes = stage.dims().get(WorkDim::Bytes);
  const std::uint64_t messages =
      stage.dims().has(WorkDim::Messages) ? stage.dims().get(WorkDim::Messages) : 1;
  const std::uint64_t packets = bytes == 0 ? 1 : (bytes + mtu_bytes_ - 1) / mtu_bytes_;
  const Rational wire = Rational(bytes + packets * header_bytes_) * ps_per_wire_byte_;
  const Rational ceiling = Rational(messages) * ps_per_message_ceiling_;
  const Rational overheads =
      Rational(messages) * per_message_ps_ + Rational(packets) * per_packet_ps_;
  return (overheads + (wire < ceiling ? ceiling : wire)).ceil_u64();
}

CNUAS_REGISTER_MODEL(Nic);

}  // namespace cnuas
