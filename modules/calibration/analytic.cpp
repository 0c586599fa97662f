#include "calibration/analytic.h"

#include <map>

#include <fmt/format.h>

#include "calibration/observations.h"
#include "core/kernel/run_context.h"

namespace cnuas::calibration {

std::vector<std::pair<std::string, std::string>> timing_fields(const ParamSet& params) {
  std::vector<std::pair<std::string, std::string>> fields;
  for (const auto& [name, value] : params.values()) {
    // Fields every element has that do not change its timing.
    if (name == "idle_power" || name == "active_power" || name == "rack" || name == "log" ||
        name == "trace" || name == "on_outage")
      continue;
    // Wiring, not timing: which neighbour is the host side depends on the
    // platform, while the profile (alone, no neighbours) has none.
    if (name == "upstream") continue;
    // Loss recovery (cnuas.link, cnuas.nic) changes timing only when packets are
    // lost, which a calibration does not fit: profiles calibrated before these
    // fields existed still match.
    if (name == "bit_error_rate" || name == "retransmission" || name == "round_trip" ||
        name == "retransmit_timeout" || name == "retry_limit")
      continue;
    // The exact value, not its spelling: "1 GB/s" and "1000 MB/s" hash alike.
    switch (value.kind) {
      case FieldKind::Quantity:
        fields.emplace_back(name, value.quantity.value.to_decimal(30));
        break;
      case FieldKind::Integer:
        fields.emplace_back(name, std::to_string(value.integer));
        break;
      default:
        fields.emplace_back(name, value.text);
    }
  }
  return fields;
}

std::string timing_hash(const ParamSet& params) {
  std::string text = params.schema()->type();
  for (const auto& [name, value] : timing_fields(params)) text += "|" + name + "=" + value;
  return hex(fnv1a(text));
}

std::vector<std::string> timing_differences(const ParamSet& fitted, const ParamSet& element) {
  std::map<std::string, std::string> theirs;
  for (const auto& [name, value] : timing_fields(element)) theirs[name] = value;
  std::vector<std::string> differences;
  for (const auto& [name, value] : timing_fields(fitted)) {
    const auto it = theirs.find(name);
    if (it != theirs.end() && it->second == value) continue;
    // Shown as written; compared exactly.
    const auto shown = [](const std::string& text) {
      return text.empty() ? std::string("empty") : "'" + text + "'";
    };
    differences.push_back(
        fmt::format("{} ({} in the profile, {} here)", name, shown(fitted.get(name).text),
                    it == theirs.end() ? std::string("none") : shown(element.get(name).text)));
  }
  return differences;
}

AnalyticProbe::AnalyticProbe(const std::string& profile_path)
    : doc_(load_profile(profile_path)), context_(std::make_unique<RunContext>()) {
  const ModelInfo& model = Registry::instance().require(doc_.type, doc_.type_where);
  const ParamSet params = resolve_params(*model.schema, doc_.values, "profile " + profile_path,
                                         SourceLocation{profile_path});
  hash_ = timing_hash(params);
  context_->scheduler();
  element_ = model.create("calibrated", params);
}

AnalyticProbe::~AnalyticProbe() = default;

double AnalyticProbe::analytic_s(const WorkDims& dims) {
  const Schema& schema = *Registry::instance().find(doc_.type)->schema;
  for (WorkDim d : schema.needed_dims())
    if (!dims.has(d))
      throw InputError(fmt::format("{} needs work dimension '{}' in every observation", doc_.type,
                                   work_dim_name(d)));
  OperationSpec spec{"observation", dims, false, false, "", ""};
  Route route{{element_.get()}, {0}, 0, {}};
  Operation op;
  op.spec = &spec;
  op.dims = &spec.dims;
  op.route = &route;
  return static_cast<double>(element_->service_ps(Stage{op, 0})) / 1e12;
}

}  // namespace cnuas::calibration
