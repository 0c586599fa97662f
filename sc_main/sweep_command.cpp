// `cnuas sweep PLATFORM --vary ELEMENT.FIELD=V1,V2,...`: runs every combination
// of the varied values as its own `cnuas run` process (at most -j at once),
// each writing DIR/point-K, and gathers one CSV row per point.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "command_line.h"
#include "commands.h"
#include "core/kernel/errors.h"
#include "core/outputs/stats_table.h"
#include "run/simulation.h"

namespace po = boost::program_options;

namespace cnuas::cli {
namespace {

struct Varied {
  std::string target;               // ELEMENT.FIELD
  std::vector<std::string> values;  // each a value --set accepts
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

bool is_bare_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

// "nic.line_rate=100,200,400 Gbit/s": a unit after the last value applies to
// every value written as a bare number.
Varied parse_vary(const std::string& spec) {
  const auto eq = spec.find('=');
  const std::string target = trim(spec.substr(0, eq));
  if (eq == std::string::npos || target.find('.') == std::string::npos || eq + 1 == spec.size())
    throw InputError(
        fmt::format("--vary '{}': expected ELEMENT.FIELD=V1,V2,... (e.g. "
                    "'nic.line_rate=100,200,400 Gbit/s')",
                    spec));
  Varied v{target, {}};
  std::stringstream items(spec.substr(eq + 1));
  for (std::string item; std::getline(items, item, ',');) v.values.push_back(trim(item));
  std::string unit;
  const std::string& last = v.values.back();
  const auto space = last.rfind(' ');
  if (space != std::string::npos && !is_bare_number(last.substr(space + 1)))
    unit = last.substr(space + 1);
  for (std::string& value : v.values) {
    if (value.empty())
      throw InputError(fmt::format("--vary '{}': an empty value in the list", spec));
    if (!unit.empty() && is_bare_number(value)) value += " " + unit;
  }
  return v;
}

// Runs `argv` with its stdout and stderr in `log`; returns its pid.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> c_argv;
  for (const auto& a : argv) c_argv.push_back(const_cast<char*>(a.c_str()));
  c_argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw InternalError("cnuas sweep: fork failed");
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    ::execv("/proc/self/exe", c_argv.data());
    ::_exit(127);
  }
  return pid;
}

// The headline figures of one point's statistics: the run's, then per
// operation group and per collective.
std::vector<std::pair<std::string, std::string>> headline(const std::string& stats_path) {
  std::ifstream in(stats_path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  const auto stats = nlohmann::ordered_json::parse(text.str());
  const StatsTable table = stats_table(stats, stats_path);
  auto column = [&](const std::string& name) {
    for (std::size_t c = 0; c < table.columns.size(); ++c)
      if (table.columns[c] == name) return c;
    throw InternalError("stats table without column " + name);
  };
  std::vector<std::pair<std::string, std::string>> figures;
  const std::uint64_t makespan = stats.value("makespan_ps", std::uint64_t{0});
  for (const auto& row : table.rows) {
    auto add = [&](const std::string& label, const std::string& col) {
      figures.emplace_back(label, row[column(col)]);
    };
    if (row[0] == "run") {
      add("makespan_ps", "makespan_ps");
      add("energy_j", "energy_j");
      add("average_power_w", "average_power_w");
    } else if (row[0] == "operation_group") {
      add(row[1] + ".latency_mean_ps", "latency_mean_ps");
      add(row[1] + ".latency_p99_ps", "latency_p99_ps");
      // Operations completed per second of the run's simulated time.
      const double count = std::stod(row[column("count")]);
      figures.emplace_back(row[1] + ".ops_per_s",
                           makespan == 0 ? "" : fmt::format("{:.6g}", count * 1e12 / makespan));
    } else if (row[0] == "collective") {
      add(row[1] + ".time_ps", "time_ps");
      add(row[1] + ".algbw_GBps", "algbw_GBps");
      add(row[1] + ".busbw_GBps", "busbw_GBps");
    }
  }
  return figures;
}

std::string readable_ps(double ps) {
  if (ps >= 1e9) return fmt::format("{:.3f} ms", ps / 1e9);
  if (ps >= 1e6) return fmt::format("{:.3f} us", ps / 1e6);
  if (ps >= 1e3) return fmt::format("{:.3f} ns", ps / 1e3);
  return fmt::format("{:.0f} ps", ps);
}

}  // namespace

int sweep_command(const std::vector<std::string>& args) {
  std::string platform, workload, out_dir = "cnuas-sweep", csv_path;
  std::vector<std::string> varies, sets;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  po::options_description opts("cnuas sweep PLATFORM --vary ELEMENT.FIELD=V1,V2,... [options]");
  opts.add_options()("help,h", "show this help")(
      "vary", po::value(&varies)->composing(),
      "a field and its values, e.g. 'nic.line_rate=100,200,400 Gbit/s' (repeatable: every "
      "combination runs)")("set", po::value(&sets)->composing(),
                           "a fixed override for every point: ELEMENT.FIELD=VALUE (repeatable)")(
      "workload,w", po::value(&workload), "workload YAML (default: the platform's own)")(
      "jobs,j", po::value(&jobs), "points run at once (default: the number of CPUs)")(
      "out,o", po::value(&out_dir), "write DIR/sweep.csv and each point's outputs in DIR/point-K")(
      "csv", po::value(&csv_path), "also write the sweep's CSV to FILE");
  po::variables_map vm = parse_command_line(args, opts, &platform);
  if (vm.count("help")) {
    std::cout << opts
              << "\nPoints are numbered in the order of the combinations, the first --vary "
                 "changing slowest. The CSV has a row per point: the varied values, the exit "
                 "status of its run, then makespan, energy, each operation group's latencies and "
                 "rate and each collective's time, algbw and busbw.\n";
    return 0;
  }
  if (platform.empty()) throw InputError("cnuas sweep needs a PLATFORM file");
  if (varies.empty())
    throw InputError("cnuas sweep needs at least one --vary ELEMENT.FIELD=V1,V2,...");
  if (jobs == 0) throw InputError("--jobs 0: give at least 1");
  std::vector<Varied> varied;
  for (const auto& v : varies) varied.push_back(parse_vary(v));

  // The cross product, the first --vary changing slowest.
  std::vector<std::vector<std::string>> points = {{}};
  for (const Varied& v : varied) {
    std::vector<std::vector<std::string>> next;
    for (const auto& p : points)
      for (const auto& value : v.values) {
        next.push_back(p);
        next.back().push_back(value);
      }
    points = std::move(next);
  }
  // Every point loads before any runs, so a bad value stops the sweep with its message.
  for (const auto& p : points) {
    RunOptions options;
    options.platform_file = platform;
    options.workload_file = workload;
    options.sets = sets;
    for (std::size_t i = 0; i < varied.size(); ++i)
      options.sets.push_back(varied[i].target + "=" + p[i]);
    Simulation check(options);
  }

  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) throw InputError("cannot create output directory '" + out_dir + "': " + ec.message());
  std::vector<int> status(points.size(), -1);
  std::map<pid_t, std::size_t> running;
  auto point_dir = [&](std::size_t k) { return out_dir + "/point-" + std::to_string(k); };
  auto reap_one = [&] {
    int raw = 0;
    const pid_t pid = ::waitpid(-1, &raw, 0);
    const auto it = running.find(pid);
    if (it == running.end()) return;
    status[it->second] = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    running.erase(it);
  };
  for (std::size_t k = 0; k < points.size(); ++k) {
    while (running.size() >= jobs) reap_one();
    std::filesystem::create_directories(point_dir(k), ec);
    std::vector<std::string> argv = {"cnuas",      "run",   platform, "--out",
                                     point_dir(k), "--log", "quiet"};
    if (!workload.empty()) argv.insert(argv.end(), {"--workload", workload});
    for (const auto& s : sets) argv.insert(argv.end(), {"--set", s});
    for (std::size_t i = 0; i < varied.size(); ++i)
      argv.insert(argv.end(), {"--set", varied[i].target + "=" + points[k][i]});
    running[spawn(argv, point_dir(k) + "/run.log")] = k;
  }
  while (!running.empty()) reap_one();

  std::vector<std::string> header = {"point"};
  for (const Varied& v : varied) header.push_back(v.target);
  header.push_back("exit_status");
  std::vector<std::string> metric_names;
  std::vector<std::map<std::string, std::string>> figures(points.size());
  bool failed = false;
  for (std::size_t k = 0; k < points.size(); ++k) {
    if (status[k] != 0) {
      failed = true;
      std::cerr << fmt::format("cnuas: error: sweep point-{} ({}) exited with status {}; see {}\n",
                               k, fmt::join(points[k], ", "), status[k], point_dir(k) + "/run.log");
      continue;
    }
    for (const auto& [name, value] : headline(point_dir(k) + "/stats.json")) {
      if (std::find(metric_names.begin(), metric_names.end(), name) == metric_names.end())
        metric_names.push_back(name);
      figures[k][name] = value;
    }
  }
  header.insert(header.end(), metric_names.begin(), metric_names.end());
  std::vector<std::vector<std::string>> rows;
  for (std::size_t k = 0; k < points.size(); ++k) {
    std::vector<std::string> row = {std::to_string(k)};
    row.insert(row.end(), points[k].begin(), points[k].end());
    row.push_back(std::to_string(status[k]));
    for (const auto& m : metric_names) row.push_back(figures[k][m]);
    rows.push_back(std::move(row));
  }
  const std::string sweep_csv = out_dir + "/sweep.csv";
  for (const std::string& path : {sweep_csv, csv_path}) {
    if (path.empty()) continue;
    std::ofstream out(path, std::ios::binary);
    if (!out) throw InputError(fmt::format("cannot write '{}'", path));
    write_csv(out, header, rows);
  }
  std::cout << fmt::format("cnuas sweep: {} point(s) of {}, {} at once\n", points.size(), platform,
                           std::min<std::size_t>(jobs, points.size()));
  for (std::size_t k = 0; k < points.size(); ++k)
    std::cout << fmt::format("  point-{}  {}  makespan {}\n", k, fmt::join(points[k], ", "),
                             figures[k].count("makespan_ps")
                                 ? readable_ps(std::stod(figures[k]["makespan_ps"]))
                                 : "- (failed)");
  std::cout << fmt::format("  csv:      {}\n", sweep_csv);
  return failed ? 1 : 0;
}

}  // namespace cnuas::cli
