#include "run/run_metadata.h"

#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "core/kernel/registry.h"
#include "run/sha256.h"
#include "run/version.h"

namespace cnuas {
namespace {

using Json = nlohmann::ordered_json;

// Every file the run read, each once, in the order first met.
Json input_files(const Simulation& simulation) {
  const RunOptions& options = simulation.options();
  const PlatformDesc& platform = simulation.platform();
  std::vector<std::pair<std::string, std::string>> files;  // role, path
  std::set<std::string> seen;
  auto add = [&](const std::string& role, const std::string& path) {
    if (!path.empty() && path.front() != '<' && seen.insert(path).second)
      files.emplace_back(role, path);
  };
  add("platform", options.platform_file);
  for (const ElementInstance& e : platform.elements) add("profile", e.profile_file);
  add("workload", options.workload_file);
  if (options.workload_file.empty()) add("workload", platform.workload_file);
  for (const std::string& c : options.calibrations) add("calibration", c);
  for (const std::string& p : options.plugins) add("plugin", p);
  for (const auto& [p, where] : platform.plugins) add("plugin", p);
  Json list = Json::array();
  for (const auto& [role, path] : files) {
    const std::string digest = sha256_of_file(path);
    list.push_back({{"role", role},
                    {"path", path},
                    {"sha256", digest.empty() ? Json(nullptr) : Json(digest)}});
  }
  return list;
}

Json resolved_elements(const PlatformDesc& platform) {
  Json elements = Json::array();
  for (const ElementInstance& e : platform.elements) {
    Json fields = Json::object();
    const ModelInfo* model = Registry::instance().find(e.type);
    if (model != nullptr && model->schema != nullptr)
      for (const FieldSpec& f : model->schema->fields()) {
        if (!e.params.has(f.name)) continue;
        const FieldValue& v = e.params.get(f.name);
        fields[f.name] = {{"value", v.text}, {"from", v.where.str()}};
      }
    Json element = {{"name", e.name}, {"type", e.type}, {"defined_at", e.where.str()}};
    if (!e.profile_file.empty()) element["profile"] = e.profile_file;
    element["fields"] = fields;
    elements.push_back(element);
  }
  return elements;
}

// What a trace's first line said before version 3: the trace is records only.
Json trace_header(const Simulation& simulation) {
  Json header = {{"format", "cnuas-trace"},
                 {"version", 3},
                 {"platform", simulation.platform().name},
                 {"workload", simulation.workload().name},
                 {"time_unit", "ps"},
                 {"class", simulation.context().header.evidence_class}};
  if (const auto records = simulation.trace_records()) {
    header["file"] = simulation.options().trace_path;
    header["events"] = *records;
  }
  return header;
}

}  // namespace

void write_run_metadata(std::ostream& out, const std::vector<std::string>& command_line,
                        const Simulation& simulation) {
  const RunOptions& options = simulation.options();
  const PlatformDesc& platform = simulation.platform();
  Json overrides = Json::array();
  for (const auto& o : options.field_overrides)
    overrides.push_back({{"field", o.field}, {"value", o.value}, {"origin", o.origin}});
  Json connections = Json::array();
  for (const Connection& c : platform.connections) connections.push_back(c.from + " -> " + c.to);
  const Json doc = {{"format", "cnuas-run-metadata"},
                    {"version", 1},
                    {"cnuas_version", version()},
                    {"git_describe", git_describe()},
                    {"command_line", command_line},
                    {"trace_header", trace_header(simulation)},
                    {"platform",
                     {{"name", platform.name},
                      {"file", options.platform_file.empty() ? "<embedded default platform>"
                                                             : options.platform_file}}},
                    {"workload",
                     {{"name", simulation.workload().name},
                      {"operations", simulation.workload().operations.size()}}},
                    {"sets", options.sets},
                    {"field_overrides", overrides},
                    {"calibrations", options.calibrations},
                    {"input_files", input_files(simulation)},
                    {"elements", resolved_elements(platform)},
                    {"connections", connections}};
  out << doc.dump(2) << "\n";
}

void write_run_metadata_file(const std::string& path, const std::vector<std::string>& command_line,
                             const Simulation& simulation) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw InputError("cannot write output file '" + path + "'");
  write_run_metadata(out, command_line, simulation);
}

}  // namespace cnuas
