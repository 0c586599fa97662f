#include "dc/link.h"

#include "core/kernel/registry.h"

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
          .quantity("lane_rate", Dimension::DataRate, std::nullopt,
                    "signalling rate of one lane, before encoding", true)
          .integer("width", 1, "lanes bonded into one transfer (x16, 18 NVLinks)", 1, 1024)
          .choice("encoding", {"none", "8b/10b", "64b/66b", "128b/130b", "242b/256b"}, "none",
                  "line code; its overhead reduces the payload rate")
          .quantity("length", Dimension::Length, "0 m", "cable or trace length")
          .quantity("velocity_factor", Dimension::Count, "70 %", "signal speed as a fraction of c",
                    true)
          .integer("channels", 1, "independent transfers in flight at once (lanes of the adapter)",
                   1, 65536)
          .needs({WorkDim::Bytes});
  return s;
}

Link::Link(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, static_cast<std::uint32_t>(params.integer("channels"))) {
  const Rational payload_rate = params.quantity("lane_rate") * Rational(params.integer("width")) *
                                encoding_efficiency(params.text("encoding"));
  const Rational speed = Rational(299'792'458) * params.quantity("velocity_factor");  // m/s
  const Rational propagation_ps = params.quantity("length") / speed * ps_per_second();
  cost_ = LinearCost(propagation_ps, Rational(8) * ps_per_second() / payload_rate);
}

std::uint64_t Link::service_ps(const Stage& stage) {
  return cost_.ceil_at(stage.dims().get(WorkDim::Bytes));
}

CNUAS_REGISTER_MODEL(Link);

}  // namespace cnuas
