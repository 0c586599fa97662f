#include "core/inputs/profile.h"

#include <fmt/format.h>

namespace cnuas {

// Reads the keys of one map at `prefix` ("" at the top, "sm." inside `sm:`): a
// field's value is a scalar, a section's a map read one level down.
static void read_section(const YAML::Node& map, const std::string& file, const Schema& schema,
                         const std::vector<std::string>& reserved, const std::string& prefix,
                         const std::string& what, RawValues& out) {
  std::vector<std::string> accepted = reserved;
  for (const auto& key : schema.keys_under(prefix)) accepted.push_back(key);
  const std::string where =
      prefix.empty() ? what
                     : fmt::format("section '{}' of {}", prefix.substr(0, prefix.size() - 1), what);
  check_keys(map, file, accepted, where);
  for (auto it = map.begin(); it != map.end(); ++it) {
    const std::string key = it->first.Scalar();
    const std::string name = prefix + key;
    if (schema.find(name)) {
      out[name] = {scalar_text(it->second, file, "field '" + name + "'"),
                   location_of(it->second, file)};
    } else if (schema.has_section(name + ".")) {
      require_map(it->second, file, fmt::format("section '{}' of {}", name, what));
      read_section(it->second, file, schema, {}, name + ".", what, out);
    }  // else a reserved key
  }
}

void read_field_values(const YAML::Node& map, const std::string& file, const Schema& schema,
                       const std::vector<std::string>& reserved, const std::string& what,
                       RawValues& out) {
  read_section(map, file, schema, reserved, "", what + " (type " + schema.type() + ")", out);
}

static ProfileDoc load_profile_chain(const std::string& path, const SourceLocation& from,
                                     std::vector<std::string>& visiting) {
  for (const auto& v : visiting)
    if (same_file(v, path))
      throw InputError(from, fmt::format("profile base chain loops back to '{}': {}", path,
                                         join_names(visiting, " -> ")));
  visiting.push_back(path);
  YamlSource src = load_yaml_file(path, from);
  require_map(src.root, src.file, "a profile");
  ProfileDoc doc;
  doc.file = path;
  const YAML::Node type_node = src.root["type"];
  if (!type_node)
    throw InputError(location_of(src.root, path),
                     fmt::format("profile has no 'type:'; known types: {}",
                                 join_names(Registry::instance().type_names())));
  doc.type = scalar_text(type_node, path, "type");
  doc.type_where = location_of(type_node, path);
  const ModelInfo& model = Registry::instance().require(doc.type, doc.type_where);
  if (const YAML::Node base = src.root["base"]) {
    std::string base_path = resolve_path(path, scalar_text(base, path, "base"));
    ProfileDoc parent = load_profile_chain(base_path, location_of(base, path), visiting);
    if (parent.type != doc.type)
      throw InputError(location_of(base, path),
                       fmt::format("base profile '{}' is of type '{}', but this profile is '{}'",
                                   base_path, parent.type, doc.type));
    doc.values = parent.values;
  }
  if (const YAML::Node d = src.root["description"])
    doc.description = scalar_text(d, path, "description");
  read_field_values(src.root, path, *model.schema, {"type", "base", "description"}, "profile",
                    doc.values);
  visiting.pop_back();
  return doc;
}

ProfileDoc load_profile(const std::string& path, const SourceLocation& referenced_from) {
  std::vector<std::string> visiting;
  ProfileDoc doc = load_profile_chain(path, referenced_from, visiting);
  // Validate the values now so `cnuas validate --profile` catches bad units.
  const ModelInfo& model = Registry::instance().require(doc.type, doc.type_where);
  for (const auto& [key, raw] : doc.values)
    parse_field_value(*model.schema->find(key), raw.text, raw.where, "profile " + path);
  return doc;
}

ParamSet resolve_params(const Schema& schema, const RawValues& values, const std::string& owner,
                        const SourceLocation& where) {
  ParamSet params(&schema);
  for (const auto& [key, raw] : values) {
    const FieldSpec* spec = schema.find(key);
    if (spec == nullptr) {
      std::string hint = nearest_name(key, schema.field_names());
      throw InputError(raw.where, fmt::format("{}: unknown field '{}' for type {}{}; accepted: {}",
                                              owner, key, schema.type(),
                                              hint.empty() ? "" : " (did you mean '" + hint + "'?)",
                                              join_names(schema.field_names())));
    }
    params.set(key, parse_field_value(*spec, raw.text, raw.where, owner));
  }
  params.finalize(owner, where);
  return params;
}

}  // namespace cnuas
