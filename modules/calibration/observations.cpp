#include "calibration/observations.h"

#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "core/kernel/errors.h"

namespace cnuas::calibration {

std::uint64_t fnv1a(const std::string& text, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string hex(std::uint64_t value) {
  return fmt::format("{:016x}", value);
}

static std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) {
    const auto b = cell.find_first_not_of(" \t\r"), e = cell.find_last_not_of(" \t\r");
    out.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
  }
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

ObservationSet read_observations(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("cannot open observations '{}'", path));
  ObservationSet set;
  set.file = path;
  std::string line;
  int number = 0;
  std::vector<std::string> header;
  std::map<std::string, std::size_t> column;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const SourceLocation where{path, number, 1};
    std::vector<std::string> cells = split_csv(line);
    if (header.empty()) {
      header = cells;
      for (std::size_t i = 0; i < header.size(); ++i) {
        const std::string& h = header[i];
        const bool known = h == "component" || h == "target" || h == "time" || h == "unit" ||
                           h == "repetition" || work_dim_by_name(h).has_value();
        if (!known)
          throw InputError(
              where, fmt::format("unknown column '{}'; accepted: component, target, time, unit, "
                                 "repetition and the work dimensions {}",
                                 h, join_names(work_dim_names())));
        column[h] = i;
      }
      for (const char* required : {"component", "target", "time", "unit"})
        if (!column.count(required))
          throw InputError(where, fmt::format("header has no '{}' column", required));
      continue;
    }
    if (cells.size() != header.size())
      throw InputError(where,
                       fmt::format("{} cells, but the header has {}", cells.size(), header.size()));
    Observation o;
    o.line = number;
    o.component = cells[column["component"]];
    o.target = cells[column["target"]];
    if (o.component.empty() || o.target.empty())
      throw InputError(where, "component and target must not be empty");
    try {
      const Quantity t =
          parse_quantity(cells[column["time"]] + " " + cells[column["unit"]], Dimension::Time);
      o.measured_s = t.value.to_double() / 1e12;
    } catch (const UnitError& e) {
      throw InputError(where, "time: " + e.message);
    }
    if (!(o.measured_s > 0)) throw InputError(where, "a measured time must be above zero");
    for (const auto& [name, index] : column) {
      auto dim = work_dim_by_name(name);
      if (!dim) continue;
      if (cells[index].empty()) continue;
      try {
        o.dims.set(*dim, parse_work_value(*dim, cells[index]));
      } catch (const UnitError& e) {
        throw InputError(where, name + ": " + e.message);
      }
    }
    if (column.count("repetition")) o.repetition = cells[column["repetition"]];
    std::string identity = o.component + "|" + o.target + "|" + cells[column["time"]] +
                           cells[column["unit"]] + "|" + o.repetition;
    for (const auto& info : work_dim_table())
      if (o.dims.has(info.id)) identity += fmt::format("|{}={}", info.name, o.dims.get(info.id));
    o.identity = fnv1a(identity);
    set.hash = fnv1a(hex(o.identity), set.hash == 0 ? 14695981039346656037ULL : set.hash);
    set.rows.push_back(std::move(o));
  }
  if (set.rows.empty()) throw InputError(SourceLocation{path}, "no observations");
  return set;
}

}  // namespace cnuas::calibration
