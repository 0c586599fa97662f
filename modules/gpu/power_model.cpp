#include "gpu/power_model.h"

namespace cnuas::gpu {

namespace {
double pj(const Rational& per_event, std::uint64_t events) {
  return per_event.to_double() * static_cast<double>(events) * 1e-12;
}
}  // namespace

Energy energy_of(const Counters& c, const ArchConfig& arch, std::uint64_t duration_ps) {
  const EnergyConfig& e = arch.energy;
  Energy out;
  for (std::size_t u = 0; u < kUnits; ++u)
    out.core += pj(e.instruction_pj[u], c.unit_instructions[u]);
  std::uint64_t active_cycles = 0;
  for (std::uint64_t a : c.sm_active_cycles) active_cycles += a;
  const double cycle_s = 1.0 / arch.sm.clock_hz.to_double();
  out.core += e.sm_active_w.to_double() * static_cast<double>(active_cycles) * cycle_s;
  out.core += pj(e.tensor_flop_pj, c.tensor_flops);
  out.l1 =
      pj(e.l1_access_pj, c.l1_hits + c.l1_misses) + pj(e.shared_access_pj, c.shared_wavefronts);
  out.l2 = pj(e.l2_access_pj, c.l2_hits + c.l2_misses);
  out.noc = pj(e.noc_flit_pj, c.noc_flits);
  out.dram =
      pj(e.dram_activate_pj, c.dram_activates) + pj(e.dram_burst_pj, c.dram_reads + c.dram_writes);
  out.idle = e.static_w.to_double() * static_cast<double>(duration_ps) * 1e-12;
  return out;
}

}  // namespace cnuas::gpu
