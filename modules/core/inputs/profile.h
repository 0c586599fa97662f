// Strict profiles: YAML files describing one real part for one element type.
//
//   type: cnuas.pipe          # the element type the profile is for
//   base: pcie-gen4-x16.yaml  # optional: start from another profile
//   description: ...          # optional free text
//   bandwidth: 25 GB/s        # every other key is a field of the type's schema
//
// Unknown keys, missing required fields and wrong units are errors with
// file:line:col. Values resolve: defaults < base < profile < platform `set:` <
// command-line --set.
#pragma once

#include <map>
#include <string>

#include "core/inputs/yaml_source.h"
#include "core/kernel/registry.h"

namespace cnuas {

// A raw value as written, before it is parsed against a schema.
struct RawValue {
  std::string text;
  SourceLocation where;
};
using RawValues = std::map<std::string, RawValue>;

struct ProfileDoc {
  std::string file;
  std::string type;
  SourceLocation type_where;
  std::string description;
  RawValues values;  // base values already merged underneath
};

// Loads a profile (following base: chains, refusing cycles) and checks every key
// against the type's schema.
ProfileDoc load_profile(const std::string& path, const SourceLocation& referenced_from = {});

// Reads `key: value` scalars of `map` into `out`, checking keys against `schema`.
// A map under a key is a section of dotted fields: `sm: {count: 2}` is the
// field `sm.count`, keeping the value's file:line:col; unknown keys in a
// section are refused with the keys of that section.
void read_field_values(const YAML::Node& map, const std::string& file, const Schema& schema,
                       const std::vector<std::string>& reserved, const std::string& what,
                       RawValues& out);

// Parses raw values against the schema and fills defaults.
ParamSet resolve_params(const Schema& schema, const RawValues& values, const std::string& owner,
                        const SourceLocation& where);

}  // namespace cnuas
