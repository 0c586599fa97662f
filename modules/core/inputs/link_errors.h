// `- {name: dirty, event: link_errors, target: LINK, start: T, duration: D, ber: B}`:
// a cnuas.link with bit error rate B over [T, T + D) (a dirty connector, a
// marginal cable, a failing optic), instead of its own bit_error_rate.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/inputs/platform.h"

namespace cnuas {

struct LinkErrorEvent {
  std::string name;
  std::string target;                    // instance name of a cnuas.link
  std::uint64_t from_ps = 0, to_ps = 0;  // to exclusive
  double ber = 0;
  SourceLocation where;
};

// Reads one `event: link_errors` entry of a workload.
LinkErrorEvent read_link_errors(const YAML::Node& o, const std::string& file,
                                const PlatformDesc& platform);

// Per target link, its spans in time order; throws InputError when two of one link overlap.
std::map<std::string, std::vector<LinkErrorEvent>> link_error_spans(
    const std::vector<LinkErrorEvent>& events);

}  // namespace cnuas
