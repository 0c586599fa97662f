#include "core/inputs/platform.h"

#include <cctype>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/inputs/topology.h"

namespace cnuas {

bool is_identifier(const std::string& name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}

const ElementInstance* PlatformDesc::find(const std::string& instance) const {
  for (const auto& e : elements)
    if (e.name == instance) return &e;
  return nullptr;
}

namespace {

PlatformDesc load_nested(const YamlSource& source, std::vector<std::string> outer);

struct Loader {
  PlatformDesc& platform;
  std::vector<std::string> visiting;
  std::unordered_map<std::string, std::size_t> positions;         // instance name -> element index
  std::unordered_map<std::string, std::size_t> connection_index;  // "from\nto" -> connection index

  void load(const YamlSource& src, const SourceLocation& from) {
    for (const auto& v : visiting)
      if (same_file(v, src.file))
        throw InputError(from, fmt::format("include loops back to '{}'", src.file));
    visiting.push_back(src.file);
    const std::string& file = src.file;
    require_map(src.root, file, "a platform");
    check_keys(src.root, file,
               {"platform", "include", "plugins", "elements", "connections", "workload"},
               "platform");
    if (const YAML::Node inc = src.root["include"]) {
      require_sequence(inc, file, "include");
      for (const auto& item : inc) {
        std::string path = resolve_path(file, scalar_text(item, file, "include entry"));
        load(load_yaml_file(path, location_of(item, file)), location_of(item, file));
      }
    }
    if (const YAML::Node n = src.root["platform"]) {
      platform.name = scalar_text(n, file, "platform");
      if (!is_identifier(platform.name))
        throw InputError(
            location_of(n, file),
            fmt::format("platform name '{}' must be an identifier (letters, digits, _ and -)",
                        platform.name));
    }
    if (const YAML::Node plugins = src.root["plugins"]) {
      require_sequence(plugins, file, "plugins");
      for (const auto& p : plugins) {
        // A bare library name is searched for; a path is relative to this file.
        std::string name = scalar_text(p, file, "plugin");
        std::string path = name.find('/') == std::string::npos ? name : resolve_path(file, name);
        Registry::instance().load_plugin(path, location_of(p, file));
        platform.plugins.emplace_back(path, location_of(p, file));
      }
    }
    if (const YAML::Node elements = src.root["elements"]) {
      require_sequence(elements, file, "elements");
      for (const auto& e : elements) read_element(e, file);
    }
    if (const YAML::Node connections = src.root["connections"]) {
      require_sequence(connections, file, "connections");
      for (const auto& c : connections) read_connection(c, file);
    }
    if (const YAML::Node w = src.root["workload"]) {
      platform.workload = w;
      platform.workload_file = file;
    }
    visiting.pop_back();
  }

  void read_element(const YAML::Node& e, const std::string& file) {
    require_map(e, file, "an element");
    check_keys(e, file, {"name", "type", "profile", "count", "set", "platform"}, "element");
    const SourceLocation where = location_of(e, file);
    if (!e["name"]) throw InputError(where, "element has no 'name:'");
    std::string name = scalar_text(e["name"], file, "name");
    if (!is_identifier(name))
      throw InputError(
          location_of(e["name"], file),
          fmt::format("element name '{}' must be an identifier (letters, digits, _ and -)", name));
    const std::uint32_t count = read_count(e, file);
    if (e["platform"]) {
      read_subplatform(e, file, name, count);
      return;
    }
    ElementInstance base;
    base.name = name;
    base.where = where;
    if (const YAML::Node p = e["profile"]) {
      base.profile_file = resolve_path(file, scalar_text(p, file, "profile"));
      ProfileDoc doc = load_profile(base.profile_file, location_of(p, file));
      base.type = doc.type;
      base.values = doc.values;
    }
    if (const YAML::Node t = e["type"]) {
      std::string type = scalar_text(t, file, "type");
      Registry::instance().require(type, location_of(t, file));
      if (!base.type.empty() && base.type != type)
        throw InputError(location_of(t, file),
                         fmt::format("element '{}' says type '{}' but its profile '{}' is "
                                     "for '{}'",
                                     name, type, base.profile_file, base.type));
      base.type = type;
    }
    if (base.type.empty())
      throw InputError(where, fmt::format("element '{}' needs 'type:' or 'profile:'", name));
    const Schema& schema = *Registry::instance().find(base.type)->schema;
    if (const YAML::Node set = e["set"]) {
      require_map(set, file, "set");
      read_field_values(set, file, schema, {}, "set: of element '" + name + "'", base.values);
    }
    if (count == 0) {
      add(base);
    } else {
      for (std::uint32_t i = 0; i < count; ++i) {
        ElementInstance inst = base;
        inst.name = fmt::format("{}[{}]", name, i);
        add(inst);
      }
    }
  }

  static std::uint32_t read_count(const YAML::Node& e, const std::string& file) {
    const YAML::Node c = e["count"];
    if (!c) return 0;
    std::string text = scalar_text(c, file, "count");
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
        text.size() > 6 || std::stoul(text) == 0)
      throw InputError(location_of(c, file),
                       fmt::format("count must be a whole number >= 1, got '{}'", text));
    return static_cast<std::uint32_t>(std::stoul(text));
  }

  void add_connection(Connection c) {
    auto [it, inserted] =
        connection_index.try_emplace(c.from + '\n' + c.to, platform.connections.size());
    if (!inserted)
      throw InputError(c.where, fmt::format("connection {} -> {} already made at {}", c.from, c.to,
                                            platform.connections[it->second].where.str()));
    platform.connections.push_back(std::move(c));
  }

  // A declaration in an including platform refines the included one of the
  // same name; the same name twice in one file is a mistake, not a merge.
  void add(ElementInstance inst) {
    auto [it, inserted] = positions.try_emplace(inst.name, platform.elements.size());
    if (inserted) {
      platform.elements.push_back(std::move(inst));
      return;
    }
    ElementInstance& existing = platform.elements[it->second];
    if (same_file(existing.where.file, inst.where.file))
      throw InputError(inst.where,
                       fmt::format("element '{}' is declared twice in this file (first at {}); "
                                   "give each its own name (only an including platform refines "
                                   "an element of an included one)",
                                   inst.name, existing.where.str()));
    if (existing.type != inst.type)
      throw InputError(inst.where,
                       fmt::format("element '{}' redeclared with type '{}' (was '{}' at {})",
                                   inst.name, inst.type, existing.type, existing.where.str()));
    for (auto& [k, v] : inst.values) existing.values[k] = v;
    existing.where = inst.where;
  }

  // `- {name: server, count: 4, platform: hgx-server.yaml, set: {"*.rack": r0}}`: every
  // element and connection of that platform, once per copy, named server[i].<element>.
  // `set:` keys are ELEMENT.FIELD inside the copy (ELEMENT may use [*], or be * for all).
  void read_subplatform(const YAML::Node& e, const std::string& file, const std::string& name,
                        std::uint32_t count) {
    const SourceLocation where = location_of(e, file);
    for (const char* key : {"type", "profile"})
      if (e[key])
        throw InputError(location_of(e[key], file),
                         fmt::format("'{}' does not go with 'platform:'", key));
    const std::string sub_file = resolve_path(file, scalar_text(e["platform"], file, "platform"));
    for (const auto& v : visiting)
      if (same_file(v, sub_file))
        throw InputError(where, &v == &visiting.back()
                                    ? fmt::format("platform '{}' contains itself", sub_file)
                                    : fmt::format("platform '{}' contains itself through {}",
                                                  sub_file, fmt::join(visiting, " -> ")));
    // The inner platform is read with this chain of platforms, so that a cycle
    // through several files is found, not followed until the stack overflows.
    const PlatformDesc inner =
        load_nested(load_yaml_file(sub_file, location_of(e["platform"], file)), visiting);
    std::vector<std::pair<std::string, RawValue>> overrides;
    if (const YAML::Node set = e["set"]) {
      require_map(set, file, "set");
      for (auto it = set.begin(); it != set.end(); ++it)
        overrides.emplace_back(
            scalar_text(it->first, file, "set key"),
            RawValue{scalar_text(it->second, file, "set value"), location_of(it->second, file)});
    }
    for (std::uint32_t i = 0; i < std::max<std::uint32_t>(count, 1); ++i) {
      const std::string prefix = count == 0 ? name : fmt::format("{}[{}]", name, i);
      for (ElementInstance inst : inner.elements) {
        const std::string local = inst.name;
        inst.name = prefix + "." + local;
        for (const auto& [key, value] : overrides) {
          auto dot = key.rfind('.');
          if (dot == std::string::npos)
            throw InputError(value.where, fmt::format("set key '{}' must read ELEMENT.FIELD", key));
          const std::string pattern = key.substr(0, dot), field = key.substr(dot + 1);
          if (pattern != "*" && !matches_pattern(pattern, local)) continue;
          const Schema& schema = *Registry::instance().find(inst.type)->schema;
          if (!schema.find(field))
            throw InputError(
                value.where,
                fmt::format("set '{}': element '{}' ({}) has no field '{}'; fields: {}", key, local,
                            inst.type, field, join_names(schema.field_names())));
          // "{index}" in a value stands for the copy's number: "r{index}" gives r0, r1, ...
          RawValue v = value;
          for (auto at = v.text.find("{index}"); at != std::string::npos;
               at = v.text.find("{index}"))
            v.text.replace(at, 7, std::to_string(i));
          inst.values[field] = v;
        }
        add(std::move(inst));
      }
      for (const Connection& c : inner.connections)
        platform.connections.push_back({prefix + "." + c.from, prefix + "." + c.to, c.where});
    }
  }

  // "gpu[*]" -> every gpu[i]; "gpu[2]" or "host" -> itself (must exist).
  std::vector<std::string> expand(const std::string& pattern, const SourceLocation& where) const {
    std::vector<std::string> out;
    if (pattern.find("[*]") != std::string::npos) {
      for (const auto& e : platform.elements)
        if (matches_pattern(pattern, e.name)) out.push_back(e.name);
    } else if (positions.count(pattern)) {
      out.push_back(pattern);
    }
    if (out.empty()) {
      std::vector<std::string> names;
      for (const auto& e : platform.elements) names.push_back(e.name);
      std::string hint = nearest_name(pattern, names);
      throw InputError(
          where,
          fmt::format("connection names unknown element '{}'{}; elements: {}", pattern,
                      hint.empty() ? "" : " (did you mean '" + hint + "'?)", join_names(names)));
    }
    return out;
  }

  // "gpu.out" -> "gpu"; hierarchical names ("server[0].nic[1]") keep their dots.
  static std::string strip_socket(std::string endpoint, const char* socket,
                                  const SourceLocation& where) {
    for (const std::string suffix : {".in", ".out"}) {
      if (endpoint.size() > suffix.size() &&
          endpoint.compare(endpoint.size() - suffix.size(), suffix.size(), suffix) == 0) {
        if (suffix.substr(1) != socket)
          throw InputError(
              where,
              fmt::format("socket '{}' in '{}': connections go from an element's 'out' socket "
                          "to another's 'in' socket",
                          suffix.substr(1), endpoint));
        return endpoint.substr(0, endpoint.size() - suffix.size());
      }
    }
    return endpoint;
  }

  static std::string trim(const std::string& s) {
    auto b = s.find_first_not_of(" \t");
    auto e = s.find_last_not_of(" \t");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
  }

  void read_connection(const YAML::Node& c, const std::string& file) {
    const SourceLocation where = location_of(c, file);
    std::string from, to;
    bool both = false, all_pairs = false;
    if (c.IsScalar()) {
      std::string text = c.Scalar();
      auto arrow = text.find("<->");
      size_t len = 3;
      both = arrow != std::string::npos;
      if (!both) {
        arrow = text.find("->");
        len = 2;
      }
      if (arrow == std::string::npos)
        throw InputError(where,
                         fmt::format("connection '{}' must read 'a -> b' or 'a <-> b'", text));
      from = trim(text.substr(0, arrow));
      to = trim(text.substr(arrow + len));
    } else {
      require_map(c, file, "a connection");
      check_keys(c, file, {"from", "to", "bidirectional", "all_pairs"}, "connection");
      if (!c["from"] || !c["to"]) throw InputError(where, "connection needs 'from:' and 'to:'");
      from = scalar_text(c["from"], file, "from");
      to = scalar_text(c["to"], file, "to");
      if (c["bidirectional"])
        both = scalar_text(c["bidirectional"], file, "bidirectional") == "true";
      if (c["all_pairs"]) all_pairs = scalar_text(c["all_pairs"], file, "all_pairs") == "true";
    }
    from = strip_socket(from, "out", where);
    to = strip_socket(to, "in", where);
    auto sources = expand(from, where);
    auto targets = expand(to, where);
    auto connect = [&](const std::string& a, const std::string& b) {
      if (a == b) throw InputError(where, fmt::format("element '{}' cannot connect to itself", a));
      add_connection({a, b, where});
    };
    // gpu[*] -> nic[*] pairs by index (all_pairs: every one with every one); a
    // single element on one side connects to all of the other.
    if (sources.size() > 1 && targets.size() > 1 && !all_pairs) {
      if (sources.size() != targets.size())
        throw InputError(
            where, fmt::format("'{}' has {} elements but '{}' has {}: [*] on both sides pairs them "
                               "by index (all_pairs: true connects every one with every one)",
                               from, sources.size(), to, targets.size()));
      for (size_t i = 0; i < sources.size(); ++i) {
        connect(sources[i], targets[i]);
        if (both) connect(targets[i], sources[i]);
      }
    } else {
      for (const auto& a : sources)
        for (const auto& b : targets) {
          connect(a, b);
          if (both) connect(b, a);
        }
    }
  }
};

}  // namespace

PlatformDesc load_platform(const YamlSource& source) {
  return load_nested(source, {});
}

namespace {

PlatformDesc load_nested(const YamlSource& source, std::vector<std::string> outer) {
  PlatformDesc platform;
  platform.file = source.file;
  Loader loader{platform, std::move(outer), {}, {}};
  loader.load(source, {});
  if (platform.name.empty())
    throw InputError(location_of(source.root, source.file), "platform has no 'platform:' name");
  if (platform.elements.empty())
    throw InputError(location_of(source.root, source.file), "platform declares no elements");
  return platform;
}

}  // namespace

void apply_override(PlatformDesc& platform, const std::string& assignment) {
  const SourceLocation where{"--set " + assignment};
  auto eq = assignment.find('=');
  auto dot = assignment.rfind('.', eq);
  if (eq == std::string::npos || dot == std::string::npos || dot == 0)
    throw InputError(
        fmt::format("--set '{}': expected ELEMENT.FIELD=VALUE (ELEMENT may use [*])", assignment));
  std::string element = assignment.substr(0, dot);
  std::string field = assignment.substr(dot + 1, eq - dot - 1);
  std::string value = assignment.substr(eq + 1);
  bool matched = false;
  std::vector<std::string> names;
  for (auto& e : platform.elements) {
    names.push_back(e.name);
    if (element != "*" && !matches_pattern(element, e.name)) continue;
    matched = true;
    const Schema& schema = *Registry::instance().find(e.type)->schema;
    if (!schema.find(field)) {
      std::string hint = nearest_name(field, schema.field_names());
      throw InputError(fmt::format(
          "--set '{}': element '{}' (type {}) has no field '{}'{}; fields: {}", assignment, e.name,
          e.type, field, hint.empty() ? "" : " (did you mean '" + hint + "'?)",
          join_names(schema.field_names())));
    }
    e.values[field] = {value, where};
  }
  if (!matched) {
    std::string hint = nearest_name(element, names);
    throw InputError(fmt::format("--set '{}': no element '{}'{}; elements: {}", assignment, element,
                                 hint.empty() ? "" : " (did you mean '" + hint + "'?)",
                                 join_names(names)));
  }
}

void apply_field_override(PlatformDesc& platform, const std::string& field,
                          const std::string& value, const std::string& origin) {
  const SourceLocation where{origin};
  bool matched = false;
  for (auto& e : platform.elements) {
    if (!Registry::instance().find(e.type)->schema->find(field)) continue;
    matched = true;
    e.values[field] = {value, where};
  }
  if (!matched)
    throw InputError(where, fmt::format("no element of platform '{}' has a field '{}' to set",
                                        platform.name, field));
}

void resolve_platform(PlatformDesc& platform) {
  for (ElementInstance& inst : platform.elements)
    inst.params =
        resolve_params(*Registry::instance().find(inst.type)->schema, inst.values,
                       fmt::format("element '{}' ({})", inst.name, inst.type), inst.where);
}

}  // namespace cnuas
