#include "gpu/power_manager.h"

#include "gpu/power_model.h"

namespace cnuas::gpu {

double PowerManager::dynamic_j(const Counters& total) const {
  const Energy e = energy_of(total, arch_, 0);
  return e.total();  // no idle part over zero time
}

void PowerManager::begin(std::uint64_t cycle, std::uint64_t ps, const Counters& total) {
  throttles_ = raises_ = 0;
  if (!enabled()) return;
  if (clock_.hz() != arch_.sm.clock_hz) clock_.change(cycle, arch_.sm.clock_hz);
  last_ps_ = ps;
  next_ps_ = ps + arch_.power.interval_ps;
  clock_.set_next_change_ps(next_ps_);
  last_dynamic_j_ = dynamic_j(total);
}

Rational PowerManager::clock_for(double static_w, double dynamic_w) const {
  const PowerConfig& p = arch_.power;
  const double current = clock_.hz().to_double();
  const double limit = p.tdp_w.to_double();
  Rational f = arch_.sm.clock_hz;
  for (;;) {
    const double predicted = static_w + dynamic_w * f.to_double() / current;
    if (predicted <= limit) return f;
    if (f < p.min_clock_hz + p.clock_step_hz) return f;  // the lowest step
    f = f - p.clock_step_hz;
  }
}

std::optional<std::uint64_t> PowerManager::control(std::uint64_t now_ps, std::uint64_t earliest,
                                                   const Counters& total) {
  const double dynamic = dynamic_j(total);
  const double seconds = static_cast<double>(now_ps - last_ps_) * 1e-12;
  const double dynamic_w = seconds > 0 ? (dynamic - last_dynamic_j_) / seconds : 0.0;
  last_ps_ = now_ps;
  next_ps_ = now_ps + arch_.power.interval_ps;
  clock_.set_next_change_ps(next_ps_);
  last_dynamic_j_ = dynamic;
  const Rational target = clock_for(arch_.energy.static_w.to_double(), dynamic_w);
  const Rational current = clock_.hz();
  if (target == current) return std::nullopt;
  ++(target < current ? throttles_ : raises_);
  const std::uint64_t from = std::max(clock_.cycle_at_or_after(now_ps), earliest);
  clock_.change(from, target);
  return from;
}

}  // namespace cnuas::gpu
