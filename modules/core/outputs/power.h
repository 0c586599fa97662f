// Power roll-up: rack load over time from the booked stages, checked against
// the power shelves that feed each rack.
//
// An element draws idle_power all the time and active_power for every lane it
// has busy. After the run, the loads of a rack's elements are summed over time
// (exactly, in integer microwatts and picoseconds) and each shelf's supplies,
// failures, battery and alarms are played against that load. The events go to
// the ordered trace; averages, peaks, energy and a time series go to the stats.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/inputs/rational.h"
#include "core/kernel/errors.h"

namespace cnuas {

class RunContext;
class Element;

// What the roll-up needs to know about a power shelf (implemented by shelf models).
class PowerSupplyModel {
 public:
  virtual ~PowerSupplyModel() = default;
  virtual std::uint32_t supplies() const = 0;
  virtual std::uint32_t redundancy() const = 0;
  virtual const Rational& supply_rating_w() const = 0;
  virtual const Rational& efficiency() const = 0;
  virtual const Rational& battery_capacity_j() const = 0;
  virtual std::uint64_t switchover_ps() const = 0;
  // An alarm raised when the load passes a limit clears only once the load is
  // this fraction below it (0.02: 2 %), so a load hovering at the limit does
  // not raise it again and again.
  virtual const Rational& alarm_hysteresis() const = 0;
};

// A supply event from the workload: supplies fail or come back at a time.
struct SupplyEvent {
  std::string name;
  std::string kind;    // supply_failure, supply_restore, ac_loss
  std::string target;  // the shelf's instance name
  std::uint64_t at_ps = 0;
  std::uint32_t supplies = 1;
  SourceLocation where;
};

struct PowerEvent {
  std::uint64_t at_ps;
  std::string kind;  // over_capacity, over_capacity_cleared, supply_failure, ..., battery_takeover
  const Element* shelf;
  std::int64_t load_uw;
  std::int64_t capacity_uw;  // what the working supplies deliver
  Rational battery_j;        // energy left in the battery
};

struct PowerSample {
  std::uint64_t from_ps, to_ps;
  Rational average_w;
};

struct RackPower {
  std::string rack;
  const Element* shelf = nullptr;  // nullptr: no shelf feeds this rack
  std::int64_t idle_uw = 0;
  std::int64_t peak_uw = 0;
  std::uint64_t peak_at_ps = 0;
  Rational energy_j;        // delivered to the elements
  Rational input_energy_j;  // drawn by the supplies (energy / efficiency)
  std::vector<PowerSample> series;
  std::vector<std::pair<std::uint64_t, std::int64_t>> telemetry;  // shelf reads: (time, load)
};

struct PowerReport {
  std::vector<RackPower> racks;  // sorted by rack name; "" is the elements outside any rack
  std::vector<PowerEvent> events;
  Rational platform_energy_j;
};

// Power of one element in integer microwatts (rounded to the nearest).
std::int64_t to_microwatts(const Rational& watts);

PowerReport roll_up_power(const RunContext& context, const std::vector<SupplyEvent>& supply_events,
                          std::uint64_t makespan_ps, std::uint32_t series_bins = 100);

}  // namespace cnuas
