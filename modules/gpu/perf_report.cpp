#include "gpu/perf_report.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <stdexcept>

#include "core/outputs/xml_text.h"
#include "gpu/clock.h"
#include "gpu/kernel_names.h"
#include "gpu/perf_json.h"
#include "gpu/power_model.h"
#include "gpu/svg_charts.h"

namespace cnuas::gpu {

namespace {

// Cycles in window w of a run (the last window may be short).
std::uint64_t window_cycles(const KernelRun& r, std::size_t w) {
  const std::uint64_t start = w * r.sample_cycles;
  return start >= r.cycles ? 0 : std::min(r.sample_cycles, r.cycles - start);
}

std::size_t windows_of(const KernelRun& r) {
  return static_cast<std::size_t>((r.cycles + r.sample_cycles - 1) / r.sample_cycles);
}

// One time column of the charts: consecutive samples merged.
struct Column {
  Counters counters;
  std::uint64_t cycles = 0;
};

std::vector<Column> columns_of(const KernelRun& r, const ArchConfig& arch) {
  const std::size_t n = windows_of(r);
  const std::size_t per_column = (n + kMaxColumns - 1) / kMaxColumns;
  std::vector<Column> out;
  for (std::size_t w = 0; w < n; ++w) {
    if (w % per_column == 0) {
      out.emplace_back();
      out.back().counters.resize(arch.sm.count, arch.dram.channels,
                                 arch.dram.channels * arch.dram.banks);
    }
    if (w < r.windows.size()) out.back().counters.add(r.windows[w]);
    out.back().cycles += window_cycles(r, w);
  }
  return out;
}

struct Chart {
  std::string name, title, svg;
};

std::vector<Chart> charts_of(const KernelRun& r, const ArchConfig& arch) {
  const std::vector<Column> columns = columns_of(r, arch);
  const std::size_t n = columns.size();
  std::vector<double> column_us;
  for (const Column& c : columns)
    column_us.push_back(static_cast<double>(c.cycles) / arch.sm.clock_hz.to_double() * 1e6);
  std::vector<Chart> out;

  // DRAM efficiency per channel over time; per bank over the whole kernel.
  std::vector<std::vector<double>> eff(arch.dram.channels, std::vector<double>(n, -1.0));
  for (std::size_t w = 0; w < n; ++w) {
    const std::vector<double> e =
        channel_efficiency(columns[w].counters, arch.dram.channels, arch.dram.banks);
    for (std::size_t ch = 0; ch < e.size(); ++ch) eff[ch][w] = e[ch];
  }
  out.push_back({"dram-efficiency", "DRAM efficiency per channel",
                 heatmap_svg("DRAM efficiency per channel (data time / busy time of its banks)",
                             "channel", eff, column_us)});
  std::vector<std::vector<double>> banks(arch.dram.channels,
                                         std::vector<double>(arch.dram.banks, -1.0));
  for (std::size_t ch = 0; ch < arch.dram.channels; ++ch)
    for (std::size_t b = 0; b < arch.dram.banks; ++b) {
      const std::size_t i = ch * arch.dram.banks + b;
      if (i < r.total.bank_active_ps.size() && r.total.bank_active_ps[i])
        banks[ch][b] = ratio(r.total.bank_data_ps[i], r.total.bank_active_ps[i]);
    }
  out.push_back({"dram-banks", "DRAM efficiency per bank",
                 grid_svg("DRAM efficiency per bank over the whole kernel", "channel",
                          "bank in the channel", banks)});

  // Per-SM IPC (scaled by the scheduler count) and global IPC.
  std::vector<std::vector<double>> sm_ipc(arch.sm.count, std::vector<double>(n, -1.0));
  Band global{"IPC", "#1f77b4", std::vector<double>(n, 0.0)};
  for (std::size_t w = 0; w < n; ++w) {
    const Counters& c = columns[w].counters;
    const std::uint64_t cycles = columns[w].cycles;
    std::uint64_t all = 0;
    for (std::size_t s = 0; s < arch.sm.count && s < c.sm_instructions.size(); ++s) {
      all += c.sm_instructions[s];
      if (c.sm_active_cycles[s])
        sm_ipc[s][w] = ratio(c.sm_instructions[s], cycles * arch.sm.schedulers);
    }
    global.values[w] = ratio(all, cycles);
  }
  out.push_back(
      {"ipc", "Global IPC",
       stacked_svg("Global IPC (warp instructions per cycle)", "IPC", {global}, column_us)});
  out.push_back(
      {"sm-ipc", "Per-SM IPC",
       heatmap_svg("Per-SM IPC / issue width (grey: no resident warps)", "SM", sm_ipc, column_us)});

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
    const Counters& c = columns[w].counters;
    const double slots =
        static_cast<double>(columns[w].cycles * arch.sm.count * arch.sm.schedulers);
    if (slots <= 0) continue;
    for (std::size_t s = 0; s < kStalls; ++s) issue[s].values[w] = c.stalls[s] / slots;
    for (std::size_t g = 0; g < 5; ++g)
      for (int k = groups[g].first; k <= groups[g].second; ++k)
        issue[kStalls + g].values[w] +=
            static_cast<double>(c.issue[static_cast<std::size_t>(k)]) / slots;
  }
  out.push_back({"warp-issue", "Warp issue",
                 stacked_svg("Warp issue: W0 stalls by reason, W1-W32 by active lanes",
                             "fraction of scheduler slots", issue, column_us)});
  std::vector<Band> stalls(issue.begin(), issue.begin() + kStalls);
  out.push_back({"stalls", "Stall breakdown",
                 stacked_svg("Stall breakdown (scheduler slots without an issue)",
                             "fraction of scheduler slots", stalls, column_us)});

  // Power by component.
  const char* parts[] = {"core", "l1", "l2", "noc", "dram", "idle"};
  const char* part_colours[] = {"#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#2ca02c", "#c7c7c7"};
  std::vector<Band> power;
  for (std::size_t p = 0; p < 6; ++p)
    power.push_back({parts[p], part_colours[p], std::vector<double>(n, 0.0)});
  const Clock clock(arch.sm.clock_hz);
  for (std::size_t w = 0; w < n; ++w) {
    const std::uint64_t ps = clock.ps(columns[w].cycles);
    if (!ps) continue;
    const Energy e = energy_of(columns[w].counters, arch, ps);
    const double sec = static_cast<double>(ps) * 1e-12;
    const double values[] = {e.core, e.l1, e.l2, e.noc, e.dram, e.idle};
    for (std::size_t p = 0; p < 6; ++p) power[p].values[w] = values[p] / sec;
  }
  out.push_back({"power", "Power",
                 stacked_svg("Power by component (estimated energies, uncalibrated)", "W", power,
                             column_us)});
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

std::string dim3(const ptx::Dim3& d) {
  return fmt::format("({}, {}, {})", d.x, d.y, d.z);
}

// Resident warps per SM the occupancy limit allows, over the SM's maximum.
double occupancy(const KernelRun& r, const ArchConfig& arch) {
  return ratio(std::uint64_t{r.ctas_per_sm} * r.warps_per_cta, arch.sm.max_warps);
}

// Time at each SM clock, as "1980 MHz 12.0 %, 1500 MHz 88.0 %" (highest first).
std::string clock_summary(const KernelRun& r) {
  std::map<double, std::uint64_t, std::greater<double>> at;
  for (std::size_t i = 0; i < r.clock.size(); ++i) {
    const std::uint64_t until = i + 1 < r.clock.size() ? r.clock[i + 1].first_ps : r.time_ps;
    at[r.clock[i].hz.to_double() / 1e6] += until - r.clock[i].first_ps;
  }
  std::string out;
  for (const auto& [mhz, ps] : at)
    out += fmt::format(
        "{}{:.0f} MHz {:.1f} %", out.empty() ? "" : ", ", mhz,
        r.time_ps ? 100.0 * static_cast<double>(ps) / static_cast<double>(r.time_ps) : 0.0);
  return out;
}

std::string comparison_table(const std::vector<ReportedKernel>& kernels) {
  std::string html =
      "<h2>Kernels compared</h2>\n<table>\n<tr><th>#</th><th>kernel</th><th>GPU</th><th>time "
      "(us)</th><th>cycles</th><th>warp instructions</th><th>IPC</th><th>DRAM bandwidth "
      "(GB/s)</th><th>occupancy limit</th><th>L1 hits</th><th>L2 hits</th><th>power "
      "(W)</th></tr>\n";
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const KernelRun& r = *kernels[k].run;
    const ArchConfig& arch = *kernels[k].arch;
    const nlohmann::json s =
        summary_json(r.total, arch, r.cycles, clock_changed(r) ? r.time_ps : 0);
    html += fmt::format(
        "<tr><td>{}</td><th><a href=\"#k{}\">{}</a></th><td>{}</td><td>{:.3f}</td><td>{}</td><td>"
        "{}</td><td>{:.3f}</td><td>{:.1f}</td><td>{:.0f} %</td><td>{:.1f} %</td><td>{:.1f} "
        "%</td><td>{:.1f}</td></tr>\n",
        k + 1, k + 1, xml_escape(demangled(r.kernel)), xml_escape(kernels[k].device),
        static_cast<double>(r.time_ps) * 1e-6, r.cycles,
        s["warp_instructions"].get<std::uint64_t>(), s["ipc"].get<double>(),
        s["dram"]["bandwidth_bytes_per_s"].get<double>() / 1e9, 100 * occupancy(r, arch),
        100 * s["l1"]["hit_rate"].get<double>(), 100 * s["l2"]["hit_rate"].get<double>(),
        s["average_power_w"].get<double>());
  }
  return html + "</table>\n";
}

}  // namespace

std::vector<double> channel_efficiency(const Counters& c, std::uint32_t channels,
                                       std::uint32_t banks_per_channel) {
  std::vector<double> out(channels, -1.0);
  for (std::size_t ch = 0; ch < channels; ++ch) {
    std::uint64_t data = 0, active = 0;
    for (std::size_t b = ch * banks_per_channel;
         b < (ch + 1) * banks_per_channel && b < c.bank_active_ps.size(); ++b) {
      data += c.bank_data_ps[b];
      active += c.bank_active_ps[b];
    }
    if (active) out[ch] = ratio(data, active);
  }
  return out;
}

void write_report(const std::string& dir, const std::vector<ReportedKernel>& kernels) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create report directory " + dir + ": " + ec.message());
  std::string html =
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Cnuas GPU performance "
      "report</title>\n<style>body{font-family:sans-serif;margin:2em auto;max-width:1340px;"
      "padding:0 1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;"
      "text-align:right}th{text-align:left}img{max-width:100%;height:auto;display:block}"
      "summary{cursor:pointer}</style></head><body>\n<h1>GPU performance report</h1>\n<p>"
      "Cycle-level virtual time from the Cnuas performance model: an uncalibrated prediction for "
      "the architecture profile named; energies are the profile's estimates.</p>\n";
  html += comparison_table(kernels);
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const KernelRun& r = *kernels[k].run;
    const ArchConfig& arch = *kernels[k].arch;
    const nlohmann::json s =
        summary_json(r.total, arch, r.cycles, clock_changed(r) ? r.time_ps : 0);
    const std::string name = demangled(r.kernel);
    html += fmt::format("<h2 id=\"k{}\">{}. {} on {} ({})</h2>\n", k + 1, k + 1, xml_escape(name),
                        xml_escape(kernels[k].device), xml_escape(arch.name));
    if (name != r.kernel) html += fmt::format("<p>PTX name <code>{}</code></p>\n", r.kernel);
    html += "<table>\n";
    auto row = [&](const std::string& label, const std::string& value) {
      html += "<tr><th>" + label + "</th><td>" + value + "</td></tr>\n";
    };
    row("grid", dim3(r.grid));
    row("block", dim3(r.block));
    row("shared memory per CTA", fmt::format("{} B", r.shared_bytes));
    row("registers per thread", fmt::format("{} (profile assumption)", r.registers_per_thread));
    row("CTAs (resident per SM)", fmt::format("{} ({})", r.ctas, r.ctas_per_sm));
    row("occupancy limit",
        fmt::format("{:.0f} % ({} of {} warps)", 100 * occupancy(r, arch),
                    std::uint64_t{r.ctas_per_sm} * r.warps_per_cta, arch.sm.max_warps));
    row("cycles", std::to_string(r.cycles));
    row("time", fmt::format("{:.3f} us", static_cast<double>(r.time_ps) * 1e-6));
    if (clock_changed(r))
      row("SM clock (power capping)",
          fmt::format("{} throttle and {} raise events; {}", r.throttle_events, r.raise_events,
                      clock_summary(r)));
    row("sample interval", fmt::format("{} cycles", r.sample_cycles));
    row("warp instructions", std::to_string(s["warp_instructions"].get<std::uint64_t>()));
    row("IPC", fmt::format("{:.3f}", s["ipc"].get<double>()));
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
      const std::string img = fmt::format("<img src=\"{}\" alt=\"{}\" width=\"{}\" height=\"{}\"",
                                          file, c.title, kChartWidth, kChartHeight);
      if (c.name == "dram-banks")  // detail on demand: fetched when opened
        html +=
            fmt::format("<details><summary>{} ({} banks)</summary>{} loading=\"lazy\"></details>\n",
                        c.title, std::size_t{arch.dram.channels} * arch.dram.banks, img);
      else
        html += "<p>" + img + "></p>\n";
    }
  }
  html += "</body></html>\n";
  write_file(std::filesystem::path(dir) / "index.html", html);
}

}  // namespace cnuas::gpu
