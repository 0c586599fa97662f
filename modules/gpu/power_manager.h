// Power capping of the detailed GPU, as the hardware's power management does
// it: every power.interval the manager averages the power over the interval
// just past (the counted events' energy plus static power) and sets the SM
// clock to the highest step (sm.clock - k x power.clock_step, no lower than
// power.min_clock) at which that power, its dynamic part scaled with the
// clock, fits power.tdp. Energy per event does not depend on the clock (no
// voltage scaling is modelled), so a slower clock spreads the same events over
// more time. The clock changes at a cycle boundary no SM has evaluated yet.
#pragma once

#include <cstdint>
#include <optional>

#include "gpu/arch_config.h"
#include "gpu/perf_stats.h"
#include "gpu/sm_clock.h"

namespace cnuas::gpu {

class PowerManager {
 public:
  PowerManager(const ArchConfig& arch, SmClock& clock) : arch_(arch), clock_(clock) {}
  bool enabled() const { return arch_.power.tdp_w > Rational(0); }

  // A kernel starts at `cycle` (time `ps`): the GPU was idle, under any limit, so the clock is
  // back at sm.clock, and the first interval starts.
  void begin(std::uint64_t cycle, std::uint64_t ps, const Counters& total);
  bool due(std::uint64_t now_ps) const { return enabled() && now_ps >= next_ps_; }
  // At an interval's end: sets the clock for the next one. `earliest` is the first cycle no SM
  // has evaluated. Returns the cycle from which the clock changed, if it did.
  std::optional<std::uint64_t> control(std::uint64_t now_ps, std::uint64_t earliest,
                                       const Counters& total);
  std::uint32_t throttle_events() const { return throttles_; }
  std::uint32_t raise_events() const { return raises_; }

 private:
  double dynamic_j(const Counters& total) const;
  // The highest clock step whose predicted power fits the limit.
  Rational clock_for(double static_w, double dynamic_w) const;

  const ArchConfig& arch_;
  SmClock& clock_;
  std::uint64_t last_ps_ = 0, next_ps_ = 0;
  double last_dynamic_j_ = 0;
  std::uint32_t throttles_ = 0, raises_ = 0;
};

}  // namespace cnuas::gpu
