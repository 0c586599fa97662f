#include "core/inputs/yaml_source.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace cnuas {

static InputError parse_error(const std::string& file, const YAML::Exception& e) {
  return InputError(SourceLocation{file, e.mark.line + 1, e.mark.column + 1},
                    "YAML syntax error: " + e.msg);
}

YamlSource load_yaml_file(const std::string& path, const SourceLocation& referenced_from) {
  std::ifstream in(path);
  if (!in) throw InputError(referenced_from, fmt::format("cannot open '{}'", path));
  std::stringstream text;
  text << in.rdbuf();
  return load_yaml_text(text.str(), path);
}

YamlSource load_yaml_text(const std::string& text, const std::string& name) {
  try {
    return {name, YAML::Load(text)};
  } catch (const YAML::Exception& e) {
    throw parse_error(name, e);
  }
}

SourceLocation location_of(const YAML::Node& node, const std::string& file) {
  const YAML::Mark m = node.Mark();
  if (m.is_null()) return {file, 0, 0};
  return {file, m.line + 1, m.column + 1};
}

void check_keys(const YAML::Node& map, const std::string& file,
                const std::vector<std::string>& accepted, const std::string& what) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    std::string key = scalar_text(it->first, file, what + " key");
    bool known = false;
    for (const auto& a : accepted) known = known || a == key;
    if (known) continue;
    std::string hint = nearest_name(key, accepted);
    throw InputError(
        location_of(it->first, file),
        fmt::format("unknown key '{}' in {}{}; accepted keys: {}", key, what,
                    hint.empty() ? "" : " (did you mean '" + hint + "'?)", join_names(accepted)));
  }
}

std::string scalar_text(const YAML::Node& node, const std::string& file, const std::string& what) {
  if (!node.IsScalar())
    throw InputError(location_of(node, file),
                     fmt::format("{} must be a single value (a scalar)", what));
  return node.Scalar();
}

void require_map(const YAML::Node& node, const std::string& file, const std::string& what) {
  if (!node.IsMap())
    throw InputError(location_of(node, file),
                     fmt::format("{} must be a mapping of keys to values", what));
}

void require_sequence(const YAML::Node& node, const std::string& file, const std::string& what) {
  if (!node.IsSequence())
    throw InputError(location_of(node, file), fmt::format("{} must be a list", what));
}

std::string resolve_path(const std::string& base_file, const std::string& relative) {
  if (relative.empty() || relative[0] == '/') return relative;
  auto slash = base_file.find_last_of('/');
  if (slash == std::string::npos || base_file.front() == '<') return relative;
  return base_file.substr(0, slash + 1) + relative;
}

}  // namespace cnuas
