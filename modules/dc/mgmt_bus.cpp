#include "dc/mgmt_bus.h"

#include <fmt/format.h>

#include "core/kernel/registry.h"

namespace cnuas {

const Schema& ManagementBus::schema() {
  static const Schema s =
      Schema("cnuas.mgmt_bus",
             "Management bus (Modbus RTU, PMBus): per request (request + response + 2 gaps) "
             "characters at the baud rate")
          .timing(
              "The bus is one lane: a transaction holds it for all its characters and the "
              "turnaround (occupancy, a half-duplex bus waits for the answer); no latency.")
          .quantity("baud", Dimension::Frequency, std::nullopt, "symbol rate (19200 baud)", true)
          .integer("bits_per_char", 11,
                   "bits per character on the wire (11 for 8E1 / 8N2 Modbus RTU, 10 for 8N1)", 1,
                   64)
          .quantity("request_frame", Dimension::Data, "8 B",
                    "bytes of one request frame (Modbus read: 8)")
          .quantity("response_frame", Dimension::Data, "7 B",
                    "bytes of one response frame (one register: 7)")
          .quantity("gap_chars", Dimension::Count, "3.5",
                    "silent interval after each frame, in characters")
          .quantity("turnaround", Dimension::Time, "0 ms", "device response time per request")
          // libmodbus's default response timeout (500 ms); a master retries a few times.
          .times_out_requests("500 ms", 2)
          .needs({WorkDim::Requests});
  return s;
}

ManagementBus::ManagementBus(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, 1),
      ps_per_char_(Rational(params.integer("bits_per_char")) * ps_per_second() /
                   params.quantity("baud")) {
  const Rational frames =
      (params.quantity("request_frame") + params.quantity("response_frame")) / Rational(8);
  if (!frames.is_integer())
    throw InputError(params.get("request_frame").where,
                     describe("frames must be whole numbers of bytes"));
  const Rational chars = frames + Rational(2) * params.quantity("gap_chars");
  per_transaction_ps_ = chars * ps_per_char_ + params.quantity("turnaround");
}

std::uint64_t ManagementBus::service_ps(const Stage& stage) {
  Rational t = Rational(stage.dims().get(WorkDim::Requests)) * per_transaction_ps_;
  // Extra payload (a register block, a firmware chunk) rides on the responses.
  if (stage.dims().has(WorkDim::Bytes))
    t = t + Rational(stage.dims().get(WorkDim::Bytes)) * ps_per_char_;
  return t.ceil_u64();
}

CNUAS_REGISTER_MODEL(ManagementBus);

}  // namespace cnuas
