#include "core/outputs/stats_table.h"

#include <algorithm>

#include "core/kernel/errors.h"

namespace cnuas {
namespace {

enum Kind : unsigned { kRun = 1, kElement = 2, kGroup = 4, kCollective = 8 };

// A metric column: where each kind of row finds it (a JSON pointer inside the
// row's object), and what an absent value means.
struct Column {
  const char* name;
  unsigned kinds;
  const char* pointer;
  const char* absent = "";
};

// One pointer per column serves every kind that has it; the few metrics whose
// place differs by kind get a column of their own.
const std::vector<Column>& columns() {
  static const std::vector<Column> kColumns = {
      {"type", kElement, "/type"},
      {"collective", kCollective, "/collective"},
      {"makespan_ps", kRun, "/makespan_ps"},
      {"operations", kRun, "/operations_count"},
      {"stages", kRun | kElement, "/stages"},
      {"busy_ps", kElement, "/busy_ps"},
      {"utilization", kElement, "/utilization"},
      {"queue_wait_mean_ps", kElement, "/queue_wait_ps/mean"},
      {"queue_wait_p50_ps", kElement, "/queue_wait_ps/p50"},
      {"queue_wait_p99_ps", kElement, "/queue_wait_ps/p99"},
      {"queue_wait_max_ps", kElement, "/queue_wait_ps/max"},
      {"held_ps", kElement, "/held_ps"},
      {"energy_j", kRun | kElement, "/energy_j"},
      {"average_power_w", kRun, "/average_power_w"},
      {"count", kGroup, "/count"},
      {"latency_mean_ps", kGroup, "/latency_ps/mean"},
      {"latency_p50_ps", kGroup, "/latency_ps/p50"},
      {"latency_p99_ps", kGroup, "/latency_ps/p99"},
      {"latency_max_ps", kGroup, "/latency_ps/max"},
      {"failed", kGroup, "/failed", "0"},
      {"cancelled", kGroup, "/cancelled", "0"},
      {"ranks", kCollective, "/ranks"},
      {"bytes", kCollective, "/bytes"},
      {"time_ps", kCollective, "/time_ps"},
      {"algbw_GBps", kCollective, "/algbw_GBps"},
      {"busbw_GBps", kCollective, "/busbw_GBps"},
  };
  return kColumns;
}

std::string cell(const nlohmann::ordered_json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  return value.dump();
}

// The value at `path` ("/a/b": key a, then key b), or nullptr.
const nlohmann::ordered_json* find(const nlohmann::ordered_json& object, const std::string& path) {
  const nlohmann::ordered_json* at = &object;
  for (std::size_t start = 1; start <= path.size();) {
    const std::size_t slash = std::min(path.find('/', start), path.size());
    if (!at->is_object()) return nullptr;
    const auto it = at->find(path.substr(start, slash - start));
    if (it == at->end()) return nullptr;
    at = &*it;
    start = slash + 1;
  }
  return at;
}

std::vector<std::string> row(const char* kind_name, Kind kind, const std::string& name,
                             const nlohmann::ordered_json& object) {
  std::vector<std::string> cells = {kind_name, name};
  for (const Column& c : columns()) {
    if ((c.kinds & kind) == 0) {
      cells.emplace_back();
      continue;
    }
    const nlohmann::ordered_json* value = find(object, c.pointer);
    cells.push_back(value != nullptr ? cell(*value) : c.absent);
  }
  return cells;
}

}  // namespace

StatsTable stats_table(const nlohmann::ordered_json& stats, const std::string& origin) {
  if (!stats.is_object() || stats.value("format", "") != "cnuas-stats")
    throw InputError(SourceLocation{origin},
                     "not a cnuas statistics file (no \"format\": \"cnuas-stats\"); give a "
                     "stats.json written by cnuas run --stats or --out");
  StatsTable table;
  table.columns = {"kind", "name"};
  for (const Column& c : columns()) table.columns.push_back(c.name);
  table.rows.push_back(row("run", kRun, stats.value("platform", ""), stats));
  // Sections absent from a file mean none of that kind.
  const auto rows_of = [&](const char* key, const char* kind_name, Kind kind) {
    const auto section = stats.find(key);
    if (section == stats.end() || !section->is_object()) return;
    for (auto it = section->begin(); it != section->end(); ++it)
      table.rows.push_back(row(kind_name, kind, it.key(), it.value()));
  };
  rows_of("elements", "element", kElement);
  rows_of("operation_groups", "operation_group", kGroup);
  rows_of("collectives", "collective", kCollective);
  return table;
}

static std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

void write_csv(std::ostream& out, const std::vector<std::string>& header,
               const std::vector<std::vector<std::string>>& rows) {
  auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) out << (i ? "," : "") << csv_cell(cells[i]);
    out << "\n";
  };
  line(header);
  for (const auto& r : rows) line(r);
}

}  // namespace cnuas
