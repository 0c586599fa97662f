// The flat statistics table (stats.csv, --csv) and a trace every line of
// which is a record, as JSON Lines readers such as pandas expect.
#include <sstream>

#include <gtest/gtest.h>

#include "cli/cli_harness.h"
#include "cli/tiny_platform.h"

namespace cnuas {
using namespace testing_support;
using nlohmann::json;

// Splits simple CSV (no quoted cells: the tiny platform has none).
static std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream lines(read_file(path));
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> cells;
    std::istringstream parts(line + ",");
    for (std::string cell; std::getline(parts, cell, ',');) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

static std::string cell(const std::vector<std::vector<std::string>>& csv, const std::string& kind,
                        const std::string& name, const std::string& column) {
  std::size_t c = 0;
  while (c < csv[0].size() && csv[0][c] != column) ++c;
  EXPECT_LT(c, csv[0].size()) << "no column " << column;
  for (const auto& row : csv)
    if (row[0] == kind && row[1] == name && c < row.size()) return row[c];
  ADD_FAILURE() << "no row " << kind << " " << name;
  return "";
}

TEST(StatsCsv, OneRowPerElementAndOperationGroupWithTheirFigures) {
  const std::string dir = scratch_dir() + "/csv_run", extra = scratch_dir() + "/extra.csv";
  const CommandResult r = run_cnuas("run " + tiny_platform() + " --out " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(run_cnuas("run " + tiny_platform() + " --csv " + extra).exit_code, 0);
  const auto csv = read_csv(dir + "/stats.csv");
  // Header, the run, two elements, one operation group.
  ASSERT_EQ(csv.size(), 5u);
  EXPECT_EQ(csv[0][0], "kind");
  EXPECT_EQ(csv[0][1], "name");
  for (const auto& row : csv) EXPECT_EQ(row.size(), csv[0].size());
  // By hand (tiny_platform.h): 4 us run, the wire busy 2 us over 2 stages,
  // utilization 2/4, each send 2 us from ready to end.
  EXPECT_EQ(cell(csv, "run", "tiny", "makespan_ps"), "4000000");
  EXPECT_EQ(cell(csv, "element", "tiny.wire", "type"), "cnuas.pipe");
  EXPECT_EQ(cell(csv, "element", "tiny.wire", "busy_ps"), "2000000");
  EXPECT_EQ(cell(csv, "element", "tiny.wire", "stages"), "2");
  EXPECT_EQ(cell(csv, "element", "tiny.wire", "utilization"), "0.5");
  EXPECT_EQ(cell(csv, "element", "tiny.src", "busy_ps"), "0");
  EXPECT_EQ(cell(csv, "operation_group", "send", "count"), "2");
  EXPECT_EQ(cell(csv, "operation_group", "send", "latency_max_ps"), "2000000");
  EXPECT_EQ(cell(csv, "operation_group", "send", "failed"), "0");
  // Columns of another kind stay empty.
  EXPECT_EQ(cell(csv, "operation_group", "send", "busy_ps"), "");
  EXPECT_EQ(read_file(extra), read_file(dir + "/stats.csv"));
}

TEST(StatsCsv, TraceLinesAreAllRecordsWithTheSameLeadingKeys) {
  const std::string dir = scratch_dir() + "/records_run";
  ASSERT_EQ(run_cnuas("run " + tiny_platform() + " --out " + dir).exit_code, 0);
  // Every line an object with t_ps, seq, component and class: a table without a
  // header row in the middle. 2 sends x 2 stages.
  const auto lines = read_jsonl(dir + "/trace.jsonl");
  ASSERT_EQ(lines.size(), 4u);
  for (const json& line : lines) {
    ASSERT_TRUE(line.is_object());
    for (const char* key : {"t_ps", "seq", "component", "class"})
      EXPECT_TRUE(line.contains(key)) << key << " missing in " << line;
    EXPECT_FALSE(line.contains("format")) << line;
  }
}

TEST(StatsCsv, CsvIsDeterministic) {
  const std::string a = scratch_dir() + "/csv_a.csv", b = scratch_dir() + "/csv_b.csv";
  ASSERT_EQ(run_cnuas("run " + tiny_platform() + " --csv " + a).exit_code, 0);
  ASSERT_EQ(run_cnuas("run " + tiny_platform() + " --csv " + b).exit_code, 0);
  EXPECT_EQ(read_file(a), read_file(b));
}

}  // namespace cnuas
