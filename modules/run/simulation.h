// One run: load the platform and workload, elaborate, simulate, write outputs.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/inputs/platform.h"
#include "core/inputs/topology.h"
#include "core/inputs/workload.h"
#include "core/kernel/driver.h"
#include "core/kernel/element.h"
#include "core/kernel/platform_module.h"
#include "core/kernel/program_driver.h"
#include "core/kernel/run_context.h"
#include "core/outputs/power.h"

namespace cnuas {
namespace calibration {
struct CalibrationFile;
}

// Per rack name, the spans its elements have no power (power_passes.cpp).
using PowerCuts = std::map<std::string, std::vector<Outage>>;

struct RunOptions {
  std::string platform_file;  // empty: the embedded default platform
  std::string workload_file;  // empty: the platform's own workload
  std::vector<std::string> sets;
  // Applied after the sets, to every element whose type declares the field.
  struct FieldOverride {
    std::string field, value, origin;
  };
  std::vector<FieldOverride> field_overrides;
  std::vector<std::string> plugins;
  std::string trace_path, perfetto_path, vcd_path, stats_path;
  std::string csv_path;   // the statistics as one flat CSV table (stats_table.h)
  bool lookahead = true;  // off: wake SystemC at every ready time (same results, slower)
  LogLevel log_level = LogLevel::Warning;  // elements whose `log` is "inherit" take it
  std::vector<std::string> calibrations;   // validated calibration files to apply
  // A program (the CUDA runtime) issues the operations as it runs: no workload
  // is read and a ProgramDriver replaces the workload driver.
  bool program_driven = false;
};

class Simulation {
 public:
  // Loads and checks everything; throws InputError for bad input.
  explicit Simulation(const RunOptions& options);
  ~Simulation();
  // Elaborates and runs to completion; writes the requested outputs.
  void run();
  // Elaborates without running: builds every element, so that `validate`
  // applies the checks their constructors make, exactly as a run would.
  void elaborate_only() { elaborate(); }

  // Program-driven runs: elaborate, then inject through program_driver() and
  // advance with sc_start; finish() runs what is left and writes the outputs.
  void begin_program();
  ProgramDriver& program_driver() { return *program_driver_; }
  const Route& route_along(const std::vector<std::string>& path);
  Topology& topology() { return *topology_; }
  // `before_outputs`, when given, runs once the simulation has run dry and
  // before the outputs are written, with the run's makespan.
  void finish_program(const std::function<void(std::uint64_t makespan_ps)>& before_outputs = {});

  // The run's context: the trace, operations and failure of this run.
  RunContext& context() { return *context_; }
  const RunContext& context() const { return *context_; }
  const PlatformDesc& platform() const { return platform_; }
  const RunOptions& options() const { return options_; }
  const WorkloadDesc& workload() const { return workload_; }
  PlatformModule& platform_module() { return *module_; }
  std::uint64_t makespan_ps() const;
  std::string summary() const;  // a short human summary of the finished run
  // Records in the JSON Lines trace, once it is written.
  std::optional<std::uint64_t> trace_records() const { return trace_records_; }

 private:
  void elaborate();
  void roll_up();
  bool may_lose_power() const;
  void settle_power_cuts();
  std::optional<PowerCuts> cuts_found_with(const PowerCuts& cuts);
  void write_outputs() const;

  void build_operations(DependencyGraph& graph);
  void apply_calibrations();
  void check_wiring();
  bool any_model_time() const;  // some stage was timed by the cycle-level GPU model
  std::string calibration_mismatch(const calibration::CalibrationFile& c,
                                   const std::string& path) const;
  const Route& route_of(const std::vector<std::string>& path);

  RunOptions options_;
  // Declared before the modules: the context outlives the elements and drivers
  // built in it (members are destroyed in reverse order).
  std::unique_ptr<RunContext> context_;
  PlatformDesc platform_;
  std::unique_ptr<Topology> topology_;
  std::map<std::vector<std::string>, const Route*> routes_by_path_;
  WorkloadDesc workload_;
  std::unique_ptr<PlatformModule> module_;
  std::unique_ptr<WorkloadDriver> driver_;
  std::unique_ptr<ProgramDriver> program_driver_;
  double wall_seconds_ = 0;
  std::chrono::steady_clock::time_point program_start_;
  mutable std::optional<std::uint64_t> trace_records_;  // set by write_outputs
  PowerReport power_;
  PowerCuts power_cuts_;  // settled before elaboration (settle_power_cuts)
  std::vector<std::string> calibration_summary_;
};

// The built-in default platform and workload (platforms/default.yaml).
const char* embedded_default_platform();

}  // namespace cnuas
