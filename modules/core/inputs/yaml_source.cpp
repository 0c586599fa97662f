#include "core/inputs/yaml_source.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <fmt/format.h>

namespace cnuas {

// Inside a flow collection ([...] or {...}) a bracket ends or opens one, so an
// unquoted `name: server[0]` breaks the file: say so, with the word to quote.
static std::string flow_bracket_hint(const std::string& text, const YAML::Exception& e) {
  if (e.msg.find("flow") == std::string::npos) return "";
  std::istringstream lines(text);
  std::string line;
  static const std::regex kBracketedWord(
      R"((?:^|[:,\[{])\s*([A-Za-z_][\w.-]*\[[^\]\s,{}]*\][\w.\[\]-]*))");
  std::string found;
  for (int n = 0; n <= e.mark.line && std::getline(lines, line); ++n) {
    if (n + 3 < e.mark.line) continue;  // the mistake is on the error's line or just before
    std::smatch m;
    if (std::regex_search(line, m, kBracketedWord)) found = m[1];
  }
  if (found.empty()) return "";
  return fmt::format(
      " (inside [ ] or {{ }} a bracket ends or starts a list: quote the value, \"{}\")", found);
}

static InputError parse_error(const std::string& file, const YAML::Exception& e,
                              const std::string& text) {
  return InputError(SourceLocation{file, e.mark.line + 1, e.mark.column + 1},
                    "YAML syntax error: " + e.msg + flow_bracket_hint(text, e));
}

YamlSource load_yaml_file(const std::string& path, const SourceLocation& referenced_from) {
  std::ifstream in(path);
  if (!in) throw InputError(referenced_from, fmt::format("cannot open '{}'", path));
  std::stringstream text;
  text << in.rdbuf();
  return load_yaml_text(text.str(), path);
}

namespace {

// YAML is Unicode text: the first byte sequence that is not UTF-8, by line
// and column (names from the files end up in JSON outputs, which must be UTF-8).
void require_utf8(const std::string& text, const std::string& name) {
  int line = 1, column = 1;
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    const std::size_t length = b < 0x80         ? 1
                               : (b >> 5) == 6  ? 2
                               : (b >> 4) == 14 ? 3
                               : (b >> 3) == 30 ? 4
                                                : 0;
    bool ok = length != 0 && i + length <= text.size();
    std::uint32_t cp = length == 1 ? b : length == 2 ? b & 0x1F : length == 3 ? b & 0x0F : b & 0x07;
    for (std::size_t k = 1; ok && k < length; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      ok = (c & 0xC0) == 0x80;
      cp = (cp << 6) | (c & 0x3F);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8 either.
    static constexpr std::uint32_t kLeast[] = {0, 0, 0x80, 0x800, 0x10000};
    ok = ok && cp >= kLeast[length] && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
    if (!ok)
      throw InputError(SourceLocation{name, line, column},
                       fmt::format("byte {:#04x} is not UTF-8 text; YAML files must be UTF-8", b));
    if (b == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    i += length;
  }
}

// yaml-cpp keeps every entry of a mapping, lookups find the first: a key
// given twice would silently take its first value. Every key is declared once.
void require_unique_keys(const YAML::Node& node, const std::string& name, int depth = 0) {
  if (depth > 200) throw InputError(location_of(node, name), "YAML nested deeper than 200 levels");
  if (node.IsMap()) {
    std::map<std::string, YAML::Mark> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (it->first.IsScalar()) {
        const auto [where, fresh] = seen.emplace(it->first.Scalar(), it->first.Mark());
        if (!fresh)
          throw InputError(location_of(it->first, name),
                           fmt::format("key '{}' is given twice (first at line {}); each key may "
                                       "appear once in a mapping",
                                       it->first.Scalar(), where->second.line + 1));
      }
      require_unique_keys(it->second, name, depth + 1);
    }
  } else if (node.IsSequence()) {
    for (const YAML::Node& item : node) require_unique_keys(item, name, depth + 1);
  }
}

}  // namespace

YamlSource load_yaml_text(const std::string& text, const std::string& name) {
  require_utf8(text, name);
  try {
    YamlSource source{name, YAML::Load(text)};
    require_unique_keys(source.root, name);
    return source;
  } catch (const YAML::Exception& e) {
    throw parse_error(name, e, text);
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

bool same_file(const std::string& a, const std::string& b) {
  if (a == b) return true;
  std::error_code failed_a, failed_b;
  const std::filesystem::path canonical_a = std::filesystem::weakly_canonical(a, failed_a);
  const std::filesystem::path canonical_b = std::filesystem::weakly_canonical(b, failed_b);
  return !failed_a && !failed_b && canonical_a == canonical_b;
}

}  // namespace cnuas
