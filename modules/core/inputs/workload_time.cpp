#include "core/inputs/workload_time.h"

#include <fmt/format.h>

#include "core/inputs/rational.h"
#include "core/inputs/units.h"
#include "core/inputs/yaml_source.h"

namespace cnuas {

std::uint64_t workload_time(const YAML::Node& n, const std::string& file, const std::string& what) {
  const std::string text = scalar_text(n, file, what);
  Rational ps;
  try {
    ps = parse_quantity(text, Dimension::Time).value;
  } catch (const UnitError& e) {
    throw InputError(location_of(n, file), what + ": " + e.message);
  }
  if (Rational(kMaxWorkloadTimePs) < ps)
    throw InputError(location_of(n, file),
                     fmt::format("{}: '{}' is past the longest run accepted (1000000 s)", what,
                                 text.substr(0, 60)));
  return ps.ceil_u64();
}

}  // namespace cnuas
