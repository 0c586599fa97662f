// `cnuas compare RUN_A RUN_B`: per element, operation group and collective,
// which statistics changed between two runs, as an aligned table or CSV.
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "command_line.h"
#include "commands.h"
#include "core/kernel/errors.h"
#include "core/outputs/stats_table.h"

namespace po = boost::program_options;

namespace cnuas::cli {
namespace {

// A run given as its --out directory or as its statistics file.
StatsTable load_run(const std::string& what, const std::string& given) {
  namespace fs = std::filesystem;
  std::string path = given;
  if (fs::is_directory(path)) path = (fs::path(path) / "stats.json").string();
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(
        fmt::format("{} '{}': cannot read {}; give a run's --out directory or its "
                    "stats.json",
                    what, given, path));
  std::ostringstream text;
  text << in.rdbuf();
  nlohmann::ordered_json stats;
  try {
    stats = nlohmann::ordered_json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(
        SourceLocation{path},
        fmt::format("{} is not JSON ({}); give a stats.json written by cnuas run", what, e.what()));
  }
  return stats_table(stats, path);
}

std::optional<long long> as_integer(const std::string& text) {
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> as_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return value;
}

// Digits after the decimal point of a number's text (none in exponent form).
int decimals(const std::string& text) {
  const auto dot = text.find('.');
  if (dot == std::string::npos || text.find_first_of("eE") != std::string::npos) return 0;
  return static_cast<int>(text.size() - dot - 1);
}

// B - A and the change relative to A: exact for integers, else with as many
// decimals as the values are written with.
std::pair<std::string, std::string> change(const std::string& a, const std::string& b) {
  const auto ia = as_integer(a), ib = as_integer(b);
  const auto da = as_number(a), db = as_number(b);
  if (!da || !db) return {"", ""};
  const bool exponent = (a + b).find_first_of("eE") != std::string::npos;
  const std::string delta =
      ia && ib   ? fmt::format("{:+}", *ib - *ia)
      : exponent ? fmt::format("{:+.6g}", *db - *da)
                 : fmt::format("{:+.{}f}", *db - *da, std::max(decimals(a), decimals(b)));
  const std::string percent =
      *da == 0 ? "" : fmt::format("{:+.2f}%", (*db - *da) / std::fabs(*da) * 100.0);
  return {delta, percent};
}

}  // namespace

int compare_command(const std::vector<std::string>& args) {
  std::vector<std::string> runs;
  std::string csv_path;
  po::options_description opts("cnuas compare RUN_A RUN_B [options]");
  opts.add_options()("help,h", "show this help")("csv", po::value(&csv_path),
                                                 "also write the differences as CSV to FILE")(
      "all", "list every statistic, changed or not");
  po::options_description all;
  all.add(opts);
  all.add_options()("runs", po::value(&runs));
  po::positional_options_description positions;
  positions.add("runs", -1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(positions).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts
              << "\nRUN_A and RUN_B are `cnuas run --out` directories or stats.json files. "
                 "Columns: kind, name, metric, value in A, value in B, B - A and the change "
                 "relative to A.\n";
    return 0;
  }
  if (runs.size() != 2)
    throw InputError(
        fmt::format("cnuas compare needs two runs (RUN_A RUN_B), got {}; each a "
                    "--out directory or a stats.json",
                    runs.size()));
  const StatsTable a = load_run("RUN_A", runs[0]);
  const StatsTable b = load_run("RUN_B", runs[1]);
  const bool every = vm.count("all") != 0;

  // Rows by (kind, name): A's order, then those only B has.
  using Key = std::pair<std::string, std::string>;
  std::map<Key, const std::vector<std::string>*> b_rows;
  for (const auto& r : b.rows) b_rows[{r[0], r[1]}] = &r;
  std::vector<std::vector<std::string>> out_rows;
  std::map<Key, bool> seen;
  auto compare_row = [&](const std::vector<std::string>* ra, const std::vector<std::string>* rb) {
    const std::vector<std::string>& any = ra ? *ra : *rb;
    for (std::size_t c = 2; c < a.columns.size(); ++c) {
      const std::string va = ra ? (*ra)[c] : "-";
      const std::string vb = rb ? (*rb)[c] : "-";
      if ((ra && va.empty()) || (rb && vb.empty())) continue;  // not a metric of this kind
      if (va == vb && !every) continue;
      const auto [delta, percent] = change(va, vb);
      out_rows.push_back({any[0], any[1], a.columns[c], va, vb, delta, percent});
    }
  };
  for (const auto& ra : a.rows) {
    const Key key{ra[0], ra[1]};
    seen[key] = true;
    const auto found = b_rows.find(key);
    compare_row(&ra, found == b_rows.end() ? nullptr : found->second);
  }
  for (const auto& rb : b.rows)
    if (!seen.count({rb[0], rb[1]})) compare_row(nullptr, &rb);

  const std::vector<std::string> header = {"kind", "name", "metric", "a", "b", "delta", "change"};
  std::cout << fmt::format("cnuas compare: A = {}, B = {}: {} statistic(s) {}\n", runs[0], runs[1],
                           out_rows.size(), every ? "listed" : "differ");
  if (!out_rows.empty()) {
    std::vector<std::size_t> width(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) {
      width[c] = header[c].size();
      for (const auto& r : out_rows) width[c] = std::max(width[c], r[c].size());
    }
    auto line = [&](const std::vector<std::string>& cells) {
      std::string text;
      for (std::size_t c = 0; c < cells.size(); ++c) {
        // Names left-aligned, numbers right-aligned.
        text += c < 3 ? fmt::format("{:<{}}", cells[c], width[c])
                      : fmt::format("{:>{}}", cells[c], width[c]);
        text += c + 1 < cells.size() ? "  " : "";
      }
      while (!text.empty() && text.back() == ' ') text.pop_back();
      std::cout << "  " << text << "\n";
    };
    line(header);
    for (const auto& r : out_rows) line(r);
  }
  if (!csv_path.empty()) {
    std::ofstream out(csv_path, std::ios::binary);
    if (!out) throw InputError(fmt::format("cannot write --csv file '{}'", csv_path));
    // The change as a number, without its % sign.
    std::vector<std::vector<std::string>> rows = out_rows;
    for (auto& r : rows)
      if (!r[6].empty()) r[6].pop_back();
    write_csv(out, {"kind", "name", "metric", "a", "b", "delta", "change_percent"}, rows);
  }
  return 0;
}

}  // namespace cnuas::cli
