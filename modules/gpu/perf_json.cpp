#include "gpu/perf_json.h"

#include <map>

#include "gpu/clock.h"
#include "gpu/power_model.h"

namespace cnuas::gpu {

namespace {

std::uint64_t sum(const std::vector<std::uint64_t>& v) {
  std::uint64_t s = 0;
  for (std::uint64_t x : v) s += x;
  return s;
}

std::uint64_t duration_ps(const ArchConfig& arch, std::uint64_t cycles) {
  return Clock(arch.sm.clock_hz).ps(cycles);
}

nlohmann::json energy_json(const Energy& e) {
  return {{"core", e.core}, {"l1", e.l1},     {"l2", e.l2},        {"noc", e.noc},
          {"dram", e.dram}, {"idle", e.idle}, {"total", e.total()}};
}

}  // namespace

bool clock_changed(const KernelRun& run) {
  return run.clock.size() > 1 || run.throttle_events + run.raise_events > 0;
}

std::uint64_t kernel_ps(const KernelRun& run, const ArchConfig& arch, std::uint64_t cycle) {
  if (run.clock.size() <= 1) return duration_ps(arch, cycle);
  std::size_t i = run.clock.size() - 1;
  while (i > 0 && run.clock[i].first_cycle > cycle) --i;
  const KernelRun::ClockSpan& s = run.clock[i];
  return s.first_ps + Clock(s.hz).ps(cycle - s.first_cycle);
}

nlohmann::json summary_json(const Counters& c, const ArchConfig& arch, std::uint64_t cycles,
                            std::uint64_t run_ps) {
  const std::uint64_t instructions = sum(c.sm_instructions);
  const std::uint64_t ps = run_ps ? run_ps : duration_ps(arch, cycles);
  const double seconds = static_cast<double>(ps) * 1e-12;
  nlohmann::json j;
  j["cycles"] = cycles;
  j["warp_instructions"] = instructions;
  j["thread_instructions"] = c.thread_instructions;
  j["ipc"] = ratio(instructions, cycles);
  nlohmann::json issue;
  std::uint64_t stalled = 0;
  for (std::uint64_t s : c.stalls) stalled += s;
  issue["W0"] = stalled;
  for (std::size_t w = 1; w <= 32; ++w) issue["W" + std::to_string(w)] = c.issue[w];
  issue["predicated_off"] = c.issue[0];
  j["warp_issue"] = issue;
  nlohmann::json stalls;
  for (std::size_t s = 0; s < kStalls; ++s) stalls[stall_name(static_cast<Stall>(s))] = c.stalls[s];
  j["stalls"] = stalls;
  nlohmann::json units;
  for (std::size_t u = 0; u < kUnits; ++u)
    units[unit_name(static_cast<Unit>(u))] = c.unit_instructions[u];
  j["instructions_by_unit"] = units;
  j["l1"] = {{"hits", c.l1_hits},
             {"misses", c.l1_misses},
             {"hit_rate", ratio(c.l1_hits, c.l1_hits + c.l1_misses)}};
  j["shared"] = {{"accesses", c.shared_accesses},
                 {"wavefronts", c.shared_wavefronts},
                 {"wavefronts_per_access", ratio(c.shared_wavefronts, c.shared_accesses)}};
  j["l2"] = {{"hits", c.l2_hits},
             {"misses", c.l2_misses},
             {"hit_rate", ratio(c.l2_hits, c.l2_hits + c.l2_misses)}};
  const std::uint64_t bursts = c.dram_reads + c.dram_writes;
  const std::uint64_t data_ps = sum(c.bank_data_ps), active_ps = sum(c.channel_active_ps);
  const double peak = (arch.dram.channel_bytes_per_s * Rational(arch.dram.channels)).to_double();
  const double bandwidth =
      seconds > 0 ? static_cast<double>(bursts * arch.dram.burst_bytes) / seconds : 0.0;
  j["dram"] = {{"read_bursts", c.dram_reads},
               {"write_bursts", c.dram_writes},
               {"activates", c.dram_activates},
               {"row_hit_rate", ratio(c.dram_row_hits, c.dram_row_hits + c.dram_activates)},
               {"bandwidth_bytes_per_s", bandwidth},
               {"peak_bytes_per_s", peak},
               {"bandwidth_utilization", peak > 0 ? bandwidth / peak : 0.0},
               {"efficiency", ratio(data_ps, active_ps)}};
  const std::uint64_t ports = arch.sm.count + arch.l2.slices;
  j["noc"] = {{"flits", c.noc_flits}, {"occupancy", ratio(c.noc_busy_ps, ports * ps)}};
  const Energy e = energy_of(c, arch, ps);
  j["energy_j"] = energy_json(e);
  j["average_power_w"] = seconds > 0 ? e.total() / seconds : 0.0;
  return j;
}

nlohmann::json kernel_json(const KernelRun& run, const ArchConfig& arch) {
  nlohmann::json j;
  j["kernel"] = run.kernel;
  j["class"] = "performance model: cycle-level virtual time, uncalibrated";
  j["architecture"] = arch.name;
  j["sm_clock_hz"] = arch.sm.clock_hz.to_double();
  j["time_ps"] = run.time_ps;
  j["ctas"] = run.ctas;
  j["ctas_per_sm"] = run.ctas_per_sm;
  const bool throttled = clock_changed(run);
  j["summary"] = summary_json(run.total, arch, run.cycles, throttled ? run.time_ps : 0);
  if (throttled) {
    // Power management: each clock change, and the time at each clock.
    nlohmann::json changes = nlohmann::json::array();
    std::map<std::uint64_t, std::uint64_t> time_at_khz;
    for (std::size_t i = 0; i < run.clock.size(); ++i) {
      const KernelRun::ClockSpan& s = run.clock[i];
      const std::uint64_t until =
          i + 1 < run.clock.size() ? run.clock[i + 1].first_ps : run.time_ps;
      const auto khz = static_cast<std::uint64_t>((s.hz / Rational(1000)).to_double() + 0.5);
      time_at_khz[khz] += until - s.first_ps;
      changes.push_back(
          {{"cycle", s.first_cycle}, {"time_ps", s.first_ps}, {"clock_mhz", khz / 1e3}});
    }
    nlohmann::json at = nlohmann::json::array();
    for (auto it = time_at_khz.rbegin(); it != time_at_khz.rend(); ++it)
      at.push_back({{"clock_mhz", it->first / 1e3}, {"time_ps", it->second}});
    j["sm_clock"] = {{"max_mhz", arch.sm.clock_hz.to_double() / 1e6},
                     {"tdp_w", arch.power.tdp_w.to_double()},
                     {"throttle_events", run.throttle_events},
                     {"raise_events", run.raise_events},
                     {"spans", changes},
                     {"time_at_clock", at}};
  }
  nlohmann::json sm_ipc = nlohmann::json::array();
  for (std::uint64_t n : run.total.sm_instructions) sm_ipc.push_back(ratio(n, run.cycles));
  j["sm_ipc"] = sm_ipc;
  const std::uint64_t ps = run.time_ps;
  nlohmann::json banks = nlohmann::json::array();
  for (std::size_t b = 0; b < run.total.bank_data_ps.size(); ++b)
    banks.push_back({{"channel", b / arch.dram.banks},
                     {"bank", b % arch.dram.banks},
                     {"efficiency", ratio(run.total.bank_data_ps[b], run.total.bank_active_ps[b])},
                     {"utilization", ratio(run.total.bank_data_ps[b], ps)}});
  j["dram_banks"] = banks;
  nlohmann::json channels = nlohmann::json::array();
  for (std::size_t ch = 0; ch < run.total.channel_active_ps.size(); ++ch) {
    std::uint64_t data = 0;
    for (std::size_t b = ch * arch.dram.banks; b < (ch + 1) * arch.dram.banks; ++b)
      data += run.total.bank_data_ps[b];
    channels.push_back({{"channel", ch},
                        {"efficiency", ratio(data, run.total.channel_active_ps[ch])},
                        {"utilization", ratio(data, ps)}});
  }
  j["dram_channels"] = channels;

  // Time series: one entry per window of sample_cycles SM cycles (the last may be shorter).
  nlohmann::json series;
  series["sample_cycles"] = run.sample_cycles;
  nlohmann::json windows = nlohmann::json::array();
  for (std::size_t w = 0; w < run.windows.size(); ++w) {
    const Counters& c = run.windows[w];
    const std::uint64_t start = w * run.sample_cycles;
    if (start >= run.cycles) break;
    const std::uint64_t cycles = std::min(run.sample_cycles, run.cycles - start);
    const std::uint64_t wps =
        throttled ? kernel_ps(run, arch, start + cycles) - kernel_ps(run, arch, start)
                  : duration_ps(arch, cycles);
    nlohmann::json s = summary_json(c, arch, cycles, throttled ? wps : 0);
    if (throttled)
      s["clock_mhz"] = wps ? static_cast<double>(cycles) * 1e6 / static_cast<double>(wps) : 0.0;
    s["start_cycle"] = start;
    nlohmann::json ipc = nlohmann::json::array();
    for (std::uint64_t n : c.sm_instructions) ipc.push_back(ratio(n, cycles));
    s["sm_ipc"] = ipc;
    nlohmann::json eff = nlohmann::json::array();
    for (std::size_t b = 0; b < c.bank_data_ps.size(); ++b)
      eff.push_back(ratio(c.bank_data_ps[b], c.bank_active_ps[b]));
    s["dram_bank_efficiency"] = eff;
    const Energy e = energy_of(c, arch, wps);
    const double sec = static_cast<double>(wps) * 1e-12;
    s["power_w"] = {{"core", e.core / sec}, {"l1", e.l1 / sec},     {"l2", e.l2 / sec},
                    {"noc", e.noc / sec},   {"dram", e.dram / sec}, {"idle", e.idle / sec}};
    windows.push_back(s);
  }
  series["windows"] = windows;
  j["series"] = series;
  return j;
}

}  // namespace cnuas::gpu
