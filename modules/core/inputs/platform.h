// Platform descriptions: which elements exist, with which parameters, and how
// their sockets connect.
//
//   platform: two-gpus
//   include: [common.yaml]            # earlier entries; same-named elements are refined
//   plugins: [libvendor_models.so]
//   elements:
//     - name: gpu
//       count: 2                      # gpu[0], gpu[1]
//       profile: ../profiles/gpu.yaml # or type: + set:
//       set: {lanes: 4}               # per-instance overrides
//   connections:
//     - host -> pcie                  # host.out to pcie.in
//     - pcie <-> gpu[*]               # both ways, for every gpu
//   workload: default-workload.yaml   # or an inline mapping
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/inputs/profile.h"

namespace cnuas {

struct ElementInstance {
  std::string name;  // "gpu[1]"; the hierarchical name is "<platform>.gpu[1]"
  std::string type;
  RawValues values;  // profile + set: merged
  std::string profile_file;
  SourceLocation where;
  ParamSet params;  // `values` parsed against the type's schema, by resolve_platform
};

struct Connection {
  std::string from;  // instance names
  std::string to;
  SourceLocation where;
};

struct PlatformDesc {
  std::string name;
  std::string file;
  std::vector<ElementInstance> elements;
  std::vector<Connection> connections;
  std::vector<std::pair<std::string, SourceLocation>> plugins;
  YAML::Node workload;        // a path scalar or an inline mapping
  std::string workload_file;  // the file the workload node sits in

  const ElementInstance* find(const std::string& instance) const;
};

// Loads a platform file (or text) with its includes. Plugins are loaded while
// reading, so plugin types can be checked like built-in ones.
PlatformDesc load_platform(const YamlSource& source);

// Applies "--set element.field=value" (element may use [*]); unknown targets are errors.
void apply_override(PlatformDesc& platform, const std::string& assignment);

// Sets `field` to `value` on every element whose type declares the field (the
// CUDA runtime's --gpu-mode sets `mode` on every GPU); `origin` names the option
// in errors. An InputError when no element declares it.
void apply_field_override(PlatformDesc& platform, const std::string& field,
                          const std::string& value, const std::string& origin);

// Parses every element's values against its type's schema, once for the run:
// the one place parameters are resolved (defaults < base < profile < platform
// set: < --set < field overrides).
void resolve_platform(PlatformDesc& platform);

// Valid element and operation names: letters, digits, '_' and '-', starting with a letter or '_'.
bool is_identifier(const std::string& name);

}  // namespace cnuas
