#include "dc/bmc.h"

#include "core/kernel/registry.h"

namespace cnuas {

const Schema& Bmc::schema() {
  static const Schema s =
      Schema("cnuas.bmc",
             "Baseboard management controller: per-request service times by request kind")
          .timing(
              "A request takes the core (lane) that frees first and holds it for its whole "
              "service time (occupancy); no latency.")
          .integer("lanes", 1, "requests served at once (BMC cores)", 1, 64)
          .quantity("sensor_read", Dimension::Time, std::nullopt,
                    "one sensor read from the BMC's cache")
          .quantity("redfish_get", Dimension::Time, std::nullopt,
                    "one Redfish GET, HTTPS and JSON rendering included")
          .quantity("ipmi_command", Dimension::Time, std::nullopt, "one IPMI command")
          .quantity("firmware_overhead", Dimension::Time, "0 s",
                    "fixed cost of a firmware image transfer")
          .quantity("firmware_rate", Dimension::DataRate, "1 MB/s", "firmware image write rate",
                    true)
          // ipmitool's lanplus defaults: 1 s between retransmissions, 4 retries.
          .times_out_requests("1 s", 4)
          .serves_requests({"sensor_read", "redfish_get", "ipmi_command", "firmware_transfer"});
  return s;
}

Bmc::Bmc(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, static_cast<std::uint32_t>(params.integer("lanes"))),
      sensor_read_ps_(params.quantity("sensor_read")),
      redfish_get_ps_(params.quantity("redfish_get")),
      ipmi_command_ps_(params.quantity("ipmi_command")),
      firmware_overhead_ps_(params.quantity("firmware_overhead")),
      ps_per_firmware_byte_(Rational(8) * ps_per_second() / params.quantity("firmware_rate")) {}

std::uint64_t Bmc::service_ps(const Stage& stage) {
  const WorkDims& d = stage.dims();
  const Rational requests(d.has(WorkDim::Requests) ? d.get(WorkDim::Requests) : 1);
  const std::string& kind = stage.op.spec->request;
  if (kind == "firmware_transfer") {
    if (!d.has(WorkDim::Bytes))
      throw InputError("a firmware_transfer needs the image size as bytes");
    return (firmware_overhead_ps_ + Rational(d.get(WorkDim::Bytes)) * ps_per_firmware_byte_)
        .ceil_u64();
  }
  const Rational& each = kind == "sensor_read"   ? sensor_read_ps_
                         : kind == "redfish_get" ? redfish_get_ps_
                                                 : ipmi_command_ps_;
  return (requests * each).ceil_u64();
}

CNUAS_REGISTER_MODEL(Bmc);

}  // namespace cnuas
