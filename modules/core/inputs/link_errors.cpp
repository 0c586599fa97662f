#include "core/inputs/link_errors.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/inputs/units.h"
#include "core/inputs/workload_time.h"
#include "core/inputs/yaml_source.h"
#include "core/kernel/errors.h"

namespace cnuas {

LinkErrorEvent read_link_errors(const YAML::Node& o, const std::string& file,
                                const PlatformDesc& platform) {
  LinkErrorEvent e;
  e.where = location_of(o, file);
  check_keys(o, file, {"name", "event", "target", "start", "duration", "ber"}, "link_errors event");
  e.name = o["name"] ? scalar_text(o["name"], file, "name") : "link_errors";
  for (const char* key : {"target", "duration", "ber"})
    if (!o[key])
      throw InputError(e.where, fmt::format("link_errors needs '{}:' (target: a cnuas.link, "
                                            "duration: a time, ber: a bit error rate)",
                                            key));
  e.target = scalar_text(o["target"], file, "target");
  const ElementInstance* link = platform.find(e.target);
  if (link == nullptr || link->type != "cnuas.link")
    throw InputError(
        location_of(o["target"], file),
        fmt::format("link_errors target '{}' {}; it must name a cnuas.link", e.target.substr(0, 60),
                    link == nullptr ? "is not an element" : "is a " + link->type));
  if (o["start"]) e.from_ps = workload_time(o["start"], file, "link_errors start");
  const std::uint64_t duration = workload_time(o["duration"], file, "link_errors duration");
  if (duration == 0)
    throw InputError(location_of(o["duration"], file), "link_errors: duration must be above zero");
  if (static_cast<u128>(e.from_ps) + duration > kMaxWorkloadTimePs)
    throw InputError(e.where, "link_errors: it ends past the longest run accepted (1000000 s)");
  e.to_ps = e.from_ps + duration;
  const std::string text = scalar_text(o["ber"], file, "ber");
  Rational ber;
  try {
    ber = parse_quantity(text, Dimension::Count).value;
  } catch (const UnitError& err) {
    throw InputError(location_of(o["ber"], file), "link_errors ber: " + err.message);
  }
  if (Rational(1, 100) < ber)
    throw InputError(location_of(o["ber"], file),
                     fmt::format("link_errors ber '{}' must be from 0 to 1e-2 (a link that bad is "
                                 "down: use element_down)",
                                 text.substr(0, 40)));
  e.ber = ber.to_double();
  return e;
}

std::map<std::string, std::vector<LinkErrorEvent>> link_error_spans(
    const std::vector<LinkErrorEvent>& events) {
  std::map<std::string, std::vector<LinkErrorEvent>> out;
  for (const LinkErrorEvent& e : events) out[e.target].push_back(e);
  for (auto& [target, list] : out) {
    std::stable_sort(list.begin(), list.end(),
                     [](const auto& a, const auto& b) { return a.from_ps < b.from_ps; });
    for (std::size_t i = 1; i < list.size(); ++i)
      if (list[i].from_ps < list[i - 1].to_ps)
        throw InputError(list[i].where,
                         fmt::format("link_errors of '{}' at {} ps overlaps the one at {} ps; give "
                                     "one bit error rate per span",
                                     target, list[i].from_ps, list[i - 1].from_ps));
  }
  return out;
}

}  // namespace cnuas
