// One run: load the platform and workload, elaborate, simulate, write outputs.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/driver.h"
#include "core/element.h"
#include "core/platform.h"
#include "core/power.h"
#include "core/topology.h"
#include "core/workload.h"

namespace cnuas {

struct RunOptions {
  std::string platform_file;  // empty: the embedded default platform
  std::string workload_file;  // empty: the platform's own workload
  std::vector<std::string> sets;
  std::vector<std::string> plugins;
  std::string trace_path, perfetto_path, vcd_path, stats_path;
  bool lookahead = true;  // off: wake SystemC at every ready time (same results, slower)
};

// The platform as SystemC modules: every element, bound by its connections.
class PlatformModule : public sc_core::sc_module {
 public:
  PlatformModule(sc_core::sc_module_name name, const PlatformDesc& desc);
  Element& element(const std::string& instance_name) const;
  const std::vector<Element*>& elements() const { return elements_; }
  // Binding of from.out leading to `to`, and of to.in it arrives by.
  std::uint32_t out_port(const Element* from, const Element* to) const {
    return port(from, to).out;
  }
  std::uint32_t in_port(const Element* from, const Element* to) const { return port(from, to).in; }
  // Binding of e.in the workload driver uses (the driver binds after all connections).
  std::uint32_t driver_in_port(const Element* e) const;

 private:
  std::size_t position(const std::string& instance_name) const;
  std::vector<Element*> elements_;
  std::vector<std::unique_ptr<Element>> owned_;
  std::vector<std::string> names_;
  struct Port {
    const Element* target;
    std::uint32_t out;
    std::uint32_t in;
  };
  const Port& port(const Element* from, const Element* to) const;
  std::vector<std::vector<Port>> ports_;
  std::vector<std::uint32_t> in_bindings_;
};

class Simulation {
 public:
  // Loads and checks everything; throws InputError for bad input.
  explicit Simulation(const RunOptions& options);
  ~Simulation();
  // Elaborates and runs to completion; writes the requested outputs.
  void run();

  const PlatformDesc& platform() const { return platform_; }
  const WorkloadDesc& workload() const { return workload_; }
  PlatformModule& platform_module() { return *module_; }
  std::uint64_t makespan_ps() const;
  std::string summary() const;  // a short human summary of the finished run

 private:
  void elaborate();
  void roll_up();
  void write_outputs() const;

  void build_operations(DependencyGraph& graph);
  const Route& route_between(const std::string& from, const std::string& to,
                             const SourceLocation& where);
  const Route& route_along(const std::vector<std::string>& path);

  RunOptions options_;
  PlatformDesc platform_;
  std::unique_ptr<Topology> topology_;
  std::map<std::pair<std::string, std::string>, const Route*> routes_by_ends_;
  WorkloadDesc workload_;
  std::unique_ptr<PlatformModule> module_;
  std::unique_ptr<WorkloadDriver> driver_;
  double wall_seconds_ = 0;
  PowerReport power_;
};

// The built-in default platform and workload (platforms/default.yaml).
const char* embedded_default_platform();

}  // namespace cnuas
