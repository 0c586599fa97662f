#include "gpu/perf_stats.h"

#include <algorithm>

namespace cnuas::gpu {

const char* stall_name(Stall s) {
  static const char* names[] = {"data_hazard", "structural", "memory", "barrier", "idle"};
  return names[static_cast<std::size_t>(s)];
}

void Counters::resize(std::uint32_t sms, std::uint32_t channels, std::uint32_t banks) {
  sm_instructions.assign(sms, 0);
  sm_active_cycles.assign(sms, 0);
  bank_data_ps.assign(banks, 0);
  bank_active_ps.assign(banks, 0);
  channel_active_ps.assign(channels, 0);
}

namespace {
void add_vector(std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  if (a.size() < b.size()) a.resize(b.size(), 0);
  for (std::size_t i = 0; i < b.size(); ++i) a[i] += b[i];
}
}  // namespace

void Counters::add(const Counters& o) {
  add_vector(sm_instructions, o.sm_instructions);
  add_vector(sm_active_cycles, o.sm_active_cycles);
  for (std::size_t i = 0; i < issue.size(); ++i) issue[i] += o.issue[i];
  for (std::size_t i = 0; i < kStalls; ++i) stalls[i] += o.stalls[i];
  for (std::size_t i = 0; i < kUnits; ++i) unit_instructions[i] += o.unit_instructions[i];
  thread_instructions += o.thread_instructions;
  l1_hits += o.l1_hits;
  l1_misses += o.l1_misses;
  shared_wavefronts += o.shared_wavefronts;
  shared_accesses += o.shared_accesses;
  l2_hits += o.l2_hits;
  l2_misses += o.l2_misses;
  noc_flits += o.noc_flits;
  noc_busy_ps += o.noc_busy_ps;
  dram_reads += o.dram_reads;
  dram_writes += o.dram_writes;
  dram_activates += o.dram_activates;
  dram_row_hits += o.dram_row_hits;
  tensor_flops += o.tensor_flops;
  add_vector(bank_data_ps, o.bank_data_ps);
  add_vector(bank_active_ps, o.bank_active_ps);
  add_vector(channel_active_ps, o.channel_active_ps);
}

PerfRecorder::PerfRecorder(const ArchConfig& arch, std::uint64_t sample_cycles)
    : sms_(arch.sm.count),
      channels_(arch.dram.channels),
      banks_(arch.dram.channels * arch.dram.banks),
      automatic_(sample_cycles == 0),
      sample_cycles_(automatic_ ? kAutoFirstCycles : sample_cycles),
      sm_clock_(arch.sm.clock_hz) {
  total_.resize(sms_, channels_, banks_);
}

void PerfRecorder::reset(std::uint64_t base) {
  base_ = base;
  total_ = Counters{};
  total_.resize(sms_, channels_, banks_);
  windows_.clear();
  if (automatic_) sample_cycles_ = kAutoFirstCycles;
}

void PerfRecorder::coarsen_if_automatic() {
  while (automatic_ && windows_.size() > kAutoMaxWindows) {
    // Window i of the doubled interval covers old windows 2i and 2i+1 (both
    // start at base_, so the boundaries line up).
    std::deque<Counters> merged;
    for (std::size_t i = 0; i < windows_.size(); i += 2) {
      merged.push_back(std::move(windows_[i]));
      if (i + 1 < windows_.size()) merged.back().add(windows_[i + 1]);
    }
    windows_ = std::move(merged);
    sample_cycles_ *= 2;
  }
}

Counters& PerfRecorder::at_cycle(std::uint64_t cycle) {
  const std::uint64_t w = (cycle > base_ ? cycle - base_ : 0) / sample_cycles_;
  while (windows_.size() <= w) {
    windows_.emplace_back();
    windows_.back().resize(sms_, channels_, banks_);
  }
  return windows_[w];
}

template <typename F>
void PerfRecorder::split_cycles(std::uint64_t first, std::uint64_t count, F add) {
  while (count) {
    const std::uint64_t rel = first > base_ ? first - base_ : 0;
    const std::uint64_t end_of_window = base_ + (rel / sample_cycles_ + 1) * sample_cycles_;
    const std::uint64_t n = std::min(count, end_of_window - first);
    add(at_cycle(first), n);
    first += n;
    count -= n;
  }
}

void PerfRecorder::stall(std::uint32_t, std::uint64_t first, std::uint64_t count, Stall reason,
                         std::uint32_t schedulers) {
  const std::size_t r = static_cast<std::size_t>(reason);
  total_.stalls[r] += count * schedulers;
  split_cycles(first, count, [&](Counters& c, std::uint64_t n) { c.stalls[r] += n * schedulers; });
}

void PerfRecorder::active(std::uint32_t sm, std::uint64_t first, std::uint64_t count) {
  total_.sm_active_cycles[sm] += count;
  split_cycles(first, count, [&](Counters& c, std::uint64_t n) { c.sm_active_cycles[sm] += n; });
}

void PerfRecorder::span(std::vector<std::uint64_t> Counters::*field, std::uint32_t index,
                        std::uint64_t from_ps, std::uint64_t to_ps) {
  if (to_ps <= from_ps) return;
  (total_.*field)[index] += to_ps - from_ps;
  while (from_ps < to_ps) {
    const std::uint64_t c = sm_clock_.cycle_at_or_after(from_ps);
    const std::uint64_t rel = c > base_ ? c - base_ : 0;
    const std::uint64_t boundary =
        sm_clock_.ps(base_ + (rel / sample_cycles_ + 1) * sample_cycles_);
    const std::uint64_t end = std::min(to_ps, boundary);
    (at_cycle(c).*field)[index] += end - from_ps;
    from_ps = end;
  }
}

}  // namespace cnuas::gpu
