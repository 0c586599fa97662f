// Reading YAML with locations: every error names file:line:col.
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/kernel/errors.h"

namespace cnuas {

// A YAML document and the name it came from (a path, or "<embedded default>").
struct YamlSource {
  std::string file;
  YAML::Node root;
};

YamlSource load_yaml_file(const std::string& path, const SourceLocation& referenced_from = {});
YamlSource load_yaml_text(const std::string& text, const std::string& name);

SourceLocation location_of(const YAML::Node& node, const std::string& file);

// Refuses keys not in `accepted`, naming the key, the accepted keys and the nearest.
void check_keys(const YAML::Node& map, const std::string& file,
                const std::vector<std::string>& accepted, const std::string& what);

// A scalar's text; anything else is an InputError saying what was expected.
std::string scalar_text(const YAML::Node& node, const std::string& file, const std::string& what);

// Requires a map / a sequence.
void require_map(const YAML::Node& node, const std::string& file, const std::string& what);
void require_sequence(const YAML::Node& node, const std::string& file, const std::string& what);

// `relative` resolved against the directory of `base_file`, unless absolute.
std::string resolve_path(const std::string& base_file, const std::string& relative);

// Whether two paths name the same file however they are spelled ("a.yaml",
// "./a.yaml", "../dir/a.yaml", through a symbolic link): the include and base
// chains compare with it, so that a loop is found whatever its spelling.
bool same_file(const std::string& a, const std::string& b);

}  // namespace cnuas
