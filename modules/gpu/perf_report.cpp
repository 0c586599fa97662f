#include "gpu/perf_report.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "gpu/clock.h"
#include "gpu/perf_json.h"
#include "gpu/power_model.h"
#include "gpu/svg_charts.h"

namespace cnuas::gpu {

namespace {

double ratio(std::uint64_t a, std::uint64_t b) {
  return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

// Cycles in window w of a run (the last window may be short).
std::uint64_t window_cycles(const KernelRun& r, std::size_t w) {
  const std::uint64_t start = w * r.sample_cycles;
  return start >= r.cycles ? 0 : std::min(r.sample_cycles, r.cycles - start);
}

std::size_t windows_of(const KernelRun& r) {
  return static_cast<std::size_t>((r.cycles + r.sample_cycles - 1) / r.sample_cycles);
}

const Counters& window(const KernelRun& r, std::size_t w) {
  static const Counters empty;
  return w < r.windows.size() ? r.windows[w] : empty;
}

struct Chart {
  std::string name, svg;
};

std::vector<Chart> charts_of(const KernelRun& r, const ArchConfig& arch) {
  const std::size_t n = windows_of(r);
  const double seconds = static_cast<double>(r.sample_cycles) / arch.sm.clock_hz.to_double();
  std::vector<Chart> out;

  // DRAM efficiency per bank: data time over time with requests pending.
  const std::size_t banks = std::size_t{arch.dram.channels} * arch.dram.banks;
  std::vector<std::vector<double>> eff(banks, std::vector<double>(n, -1.0));
  for (std::size_t w = 0; w < n; ++w) {
    const Counters& c = window(r, w);
    for (std::size_t b = 0; b < banks && b < c.bank_active_ps.size(); ++b)
      if (c.bank_active_ps[b]) eff[b][w] = ratio(c.bank_data_ps[b], c.bank_active_ps[b]);
  }
  out.push_back({"dram-efficiency", heatmap_svg("DRAM efficiency per bank (data time / busy time)",
                                                "bank", eff, seconds)});

  // Per-SM IPC (scaled by the scheduler count) and global IPC.
  std::vector<std::vector<double>> sm_ipc(arch.sm.count, std::vector<double>(n, -1.0));
  Band global{"IPC", "#1f77b4", std::vector<double>(n, 0.0)};
  for (std::size_t w = 0; w < n; ++w) {
    const Counters& c = window(r, w);
    const std::uint64_t cycles = window_cycles(r, w);
    std::uint64_t all = 0;
    for (std::size_t s = 0; s < arch.sm.count && s < c.sm_instructions.size(); ++s) {
      all += c.sm_instructions[s];
      if (c.sm_active_cycles[s])
        sm_ipc[s][w] = ratio(c.sm_instructions[s], cycles * arch.sm.schedulers);
    }
    global.values[w] = ratio(all, cycles);
  }
  out.push_back(
      {"ipc", stacked_svg("Global IPC (warp instructions per cycle)", "IPC", {global}, seconds)});
  out.push_back({"sm-ipc", heatmap_svg("Per-SM IPC / issue width (grey: no resident warps)", "SM",
                                       sm_ipc, seconds)});

  // Warp issue: what each scheduler slot did, as fractions.
  const char* stall_colours[] = {"#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#c7c7c7"};
  std::vector<Band> issue;
  for (std::size_t s = 0; s < kStalls; ++s)
    issue.push_back({std::string("W0 ") + stall_name(static_cast<Stall>(s)), stall_colours[s],
                     std::vector<double>(n, 0.0)});
  const std::pair<int, int> groups[] = {{1, 8}, {9, 16}, {17, 24}, {25, 31}, {32, 32}};
  const char* group_colours[] = {"#c5e1a5", "#9ccc65", "#7cb342", "#558b2f", "#2e7d32"};
  for (std::size_t g = 0; g < 5; ++g)
    issue.push_back({groups[g].first == groups[g].second
                         ? fmt::format("W{}", groups[g].first)
                         : fmt::format("W{}-{}", groups[g].first, groups[g].second),
                     group_colours[g], std::vector<double>(n, 0.0)});
  for (std::size_t w = 0; w < n; ++w) {
    const Counters& c = window(r, w);
    const double slots =
        static_cast<double>(window_cycles(r, w) * arch.sm.count * arch.sm.schedulers);
    if (slots <= 0) continue;
    for (std::size_t s = 0; s < kStalls; ++s) issue[s].values[w] = c.stalls[s] / slots;
    for (std::size_t g = 0; g < 5; ++g)
      for (int k = groups[g].first; k <= groups[g].second; ++k)
        issue[kStalls + g].values[w] +=
            static_cast<double>(c.issue[static_cast<std::size_t>(k)]) / slots;
  }
  out.push_back(
      {"warp-issue", stacked_svg("Warp issue: W0 stalls by reason, W1-W32 by active lanes",
                                 "fraction of scheduler slots", issue, seconds)});
  std::vector<Band> stalls(issue.begin(), issue.begin() + kStalls);
  out.push_back({"stalls", stacked_svg("Stall breakdown (scheduler slots without an issue)",
                                       "fraction of scheduler slots", stalls, seconds)});

  // Power by component.
  const char* parts[] = {"core", "l1", "l2", "noc", "dram", "idle"};
  const char* part_colours[] = {"#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#2ca02c", "#c7c7c7"};
  std::vector<Band> power;
  for (std::size_t p = 0; p < 6; ++p)
    power.push_back({parts[p], part_colours[p], std::vector<double>(n, 0.0)});
  const Clock clock(arch.sm.clock_hz);
  for (std::size_t w = 0; w < n; ++w) {
    const std::uint64_t ps = clock.ps(window_cycles(r, w));
    if (!ps) continue;
    const Energy e = energy_of(window(r, w), arch, ps);
    const double sec = static_cast<double>(ps) * 1e-12;
    const double values[] = {e.core, e.l1, e.l2, e.noc, e.dram, e.idle};
    for (std::size_t p = 0; p < 6; ++p) power[p].values[w] = values[p] / sec;
  }
  out.push_back({"power", stacked_svg("Power by component (estimated energies, uncalibrated)", "W",
                                      power, seconds)});
  return out;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + path.string());
}

std::string safe(const std::string& name) {
  std::string s;
  for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '-';
  return s.substr(0, 60);
}

}  // namespace

void write_report(const std::string& dir, const std::vector<ReportedKernel>& kernels) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create report directory " + dir + ": " + ec.message());
  std::string html =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Cnuas GPU performance "
      "report</title>\n<style>body{font-family:sans-serif;margin:2em}table{border-collapse:"
      "collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}th{text-align:left}"
      "</style></head><body>\n<h1>GPU performance report</h1>\n<p>Cycle-level virtual time from "
      "the Cnuas performance model: an uncalibrated prediction for the architecture profile "
      "named; energies are the profile's estimates.</p>\n";
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const KernelRun& r = *kernels[k].run;
    const ArchConfig& arch = *kernels[k].arch;
    const nlohmann::json s = summary_json(r.total, arch, r.cycles);
    html += fmt::format("<h2>{}. {} on {} ({})</h2>\n<table>\n", k + 1, r.kernel, kernels[k].device,
                        arch.name);
    auto row = [&](const std::string& name, const std::string& value) {
      html += "<tr><th>" + name + "</th><td>" + value + "</td></tr>\n";
    };
    row("cycles", std::to_string(r.cycles));
    row("time", fmt::format("{:.3f} us", static_cast<double>(r.time_ps) * 1e-6));
    row("warp instructions", std::to_string(s["warp_instructions"].get<std::uint64_t>()));
    row("IPC", fmt::format("{:.3f}", s["ipc"].get<double>()));
    row("CTAs (resident per SM)", fmt::format("{} ({})", r.ctas, r.ctas_per_sm));
    row("L1 hit rate", fmt::format("{:.1f} %", 100 * s["l1"]["hit_rate"].get<double>()));
    row("L2 hit rate", fmt::format("{:.1f} %", 100 * s["l2"]["hit_rate"].get<double>()));
    row("DRAM bandwidth", fmt::format("{:.1f} GB/s ({:.1f} % of peak)",
                                      s["dram"]["bandwidth_bytes_per_s"].get<double>() / 1e9,
                                      100 * s["dram"]["bandwidth_utilization"].get<double>()));
    row("DRAM efficiency", fmt::format("{:.1f} %", 100 * s["dram"]["efficiency"].get<double>()));
    row("NoC occupancy", fmt::format("{:.1f} %", 100 * s["noc"]["occupancy"].get<double>()));
    row("average power", fmt::format("{:.1f} W", s["average_power_w"].get<double>()));
    html += "</table>\n";
    for (const Chart& c : charts_of(r, arch)) {
      const std::string file = fmt::format("k{:02}-{}-{}.svg", k + 1, safe(r.kernel), c.name);
      write_file(std::filesystem::path(dir) / file, c.svg);
      html += fmt::format("<p><img src=\"{}\" alt=\"{}\"></p>\n", file, c.name);
    }
  }
  html += "</body></html>\n";
  write_file(std::filesystem::path(dir) / "index.html", html);
}

}  // namespace cnuas::gpu
