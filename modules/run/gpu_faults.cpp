#include "run/gpu_faults.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/inputs/units.h"
#include "core/inputs/workload_time.h"
#include "core/inputs/yaml_source.h"

namespace cnuas {
namespace {

unsigned whole_number(const YAML::Node& n, const std::string& file, const std::string& what,
                      const std::vector<unsigned>& accepted) {
  const std::string text = scalar_text(n, file, what);
  std::vector<std::string> names;
  for (unsigned a : accepted) names.push_back(std::to_string(a));
  const auto it = std::find(names.begin(), names.end(), text);
  if (it == names.end())
    throw InputError(location_of(n, file),
                     fmt::format("{} '{}' is not accepted; accepted: {}", what, text.substr(0, 40),
                                 join_names(names)));
  return accepted[static_cast<std::size_t>(it - names.begin())];
}

GpuFault read_entry(const YAML::Node& o, const std::string& file) {
  require_map(o, file, "a faults entry");
  GpuFault f;
  f.where = location_of(o, file);
  if (!o["event"]) throw InputError(f.where, "a faults entry needs 'event:'");
  const std::string kind = scalar_text(o["event"], file, "event");
  const std::vector<std::string> kinds = {"ecc_error", "gpu_xid", "gpu_throttle"};
  if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
    const std::string hint = nearest_name(kind, kinds);
    throw InputError(
        location_of(o["event"], file),
        fmt::format("unknown GPU fault '{}'{}; accepted: {}", kind.substr(0, 60),
                    hint.empty() ? "" : " (did you mean '" + hint + "'?)", join_names(kinds)));
  }
  std::vector<std::string> keys = {"event", "target", "start"};
  if (kind == "ecc_error") keys.push_back("bits");
  if (kind == "gpu_xid") keys.push_back("xid");
  if (kind == "gpu_throttle") keys.insert(keys.end(), {"duration", "clock"});
  check_keys(o, file, keys, kind + " entry");
  for (const std::string& key : keys)
    if (!o[key]) throw InputError(f.where, fmt::format("{} needs '{}:'", kind, key));
  f.target = scalar_text(o["target"], file, "target");
  f.target_where = location_of(o["target"], file);
  f.at_ps = workload_time(o["start"], file, kind + " start");
  if (kind == "ecc_error") {
    f.kind = GpuFaultKind::EccError;
    f.bits = whole_number(o["bits"], file, "ecc_error bits", {1, 2});
    if (f.bits == 2) f.xid = 48;
  } else if (kind == "gpu_xid") {
    f.kind = GpuFaultKind::Xid;
    f.xid = whole_number(o["xid"], file, "gpu_xid xid",
                         std::vector<unsigned>(std::begin(kAcceptedXids), std::end(kAcceptedXids)));
  } else {
    f.kind = GpuFaultKind::Throttle;
    f.duration_ps = workload_time(o["duration"], file, "gpu_throttle duration");
    if (f.duration_ps == 0)
      throw InputError(location_of(o["duration"], file),
                       "gpu_throttle: duration must be above zero");
    if (static_cast<u128>(f.at_ps) + f.duration_ps > kMaxWorkloadTimePs)
      throw InputError(f.where, "gpu_throttle: it ends past the longest run accepted (1000000 s)");
    f.clock_where = location_of(o["clock"], file);
    const std::string text = scalar_text(o["clock"], file, "clock");
    try {
      f.clock = parse_quantity(text, Dimension::Frequency).value;
    } catch (const UnitError& e) {
      throw InputError(f.clock_where, "gpu_throttle clock: " + e.message);
    }
    if (f.clock.is_zero()) throw InputError(f.clock_where, "gpu_throttle clock must be above 0 Hz");
  }
  return f;
}

}  // namespace

const char* xid_meaning(unsigned xid) {
  switch (xid) {
    case 13:
      return "graphics engine exception";
    case 31:
      return "GPU memory page fault";
    case 48:
      return "double-bit ECC error";
    case 79:
      return "GPU has fallen off the bus";
    default:
      return "unknown Xid";
  }
}

std::vector<GpuFault> load_gpu_faults(const std::string& path) {
  const YamlSource source = load_yaml_file(path);
  if (!source.root || source.root.IsNull()) return {};
  require_sequence(source.root, source.file, "a faults file (a list of entries)");
  std::vector<GpuFault> faults;
  for (const YAML::Node& entry : source.root) faults.push_back(read_entry(entry, source.file));
  return faults;
}

}  // namespace cnuas
