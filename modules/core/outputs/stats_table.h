// A run's statistics as one flat table, for spreadsheets, pandas and
// `cnuas compare`: a row for the run, one per element, per operation group
// (workload entry) and per collective, every row with the same columns (empty
// where a column does not apply to the row's kind).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cnuas {

struct StatsTable {
  // "kind", "name", then the metrics.
  std::vector<std::string> columns;
  // Cells as text, numbers as the statistics file writes them.
  std::vector<std::vector<std::string>> rows;
};

// Flattens a statistics document (what --stats writes); an InputError naming
// `origin` when it is not one.
StatsTable stats_table(const nlohmann::ordered_json& stats, const std::string& origin);

// RFC 4180 CSV: a header row, then the rows; cells quoted only when needed.
void write_csv(std::ostream& out, const std::vector<std::string>& header,
               const std::vector<std::vector<std::string>>& rows);

}  // namespace cnuas
