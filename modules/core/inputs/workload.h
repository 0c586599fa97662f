// Workloads: YAML lists of operations with explicit work dimensions.
//
//   workload: copy-then-compute
//   operations:
//     - name: h2d
//       path: [host, pcie, gpu[0]]   # or from: host / to: gpu[0] (shortest path)
//       dims: {bytes: 64 MiB}
//       mode: serial                 # or overlap
//       start: 0 ns
//       repeat: 4                    # h2d#0..h2d#3, back to back
//       interval: 10 us              # or periodic: repetition i ready at start + i*interval
//       after: [setup]               # waits for every repetition of setup
//     - name: ar
//       collective: ring_allreduce   # or tree_allreduce, hierarchical_allreduce, nvls_allreduce,
//                                    # ring_allgather, ring_reduce_scatter, all_to_all
//       participants: "server[*].gpu[*]"  # ranks in this order; nodes by name before the last '.'
//       nics: "server[*].nic[*]"     # optional: rank r reaches other nodes through nics[r]
//       channels: 8                  # optional: parallel rings/trees, bytes / channels each
//       dims: {bytes: 1 GiB}         # buffer per rank
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/inputs/collectives.h"
#include "core/inputs/link_errors.h"
#include "core/inputs/platform.h"
#include "core/inputs/topology.h"
#include "core/kernel/operation.h"
#include "core/kernel/outage.h"
#include "core/outputs/power.h"

namespace cnuas {

struct OperationDesc {
  std::string name;
  WorkDims dims;
  StageMode mode = StageMode::Serial;
  std::vector<std::string> path;  // element instance names, resolved
  std::uint64_t start_ps = 0;
  std::uint32_t repeat = 1;
  bool periodic = false;  // without interval: each repetition waits for the previous one
  std::uint64_t interval_ps = 0;
  std::vector<std::string> after;
  bool read = false;
  std::string request;
  std::optional<CollectiveKind> collective;
  std::vector<std::string> participants;  // ranks, for collectives
  std::vector<std::string> nics;  // per rank: the element its traffic to other nodes goes through
  std::uint32_t channels = 1;
  std::string reducer;  // nvls_allreduce: the switch that reduces
  SourceLocation where;
};

// `- {event: element_down | element_up | element_flap, target: ELEMENT, start: T}`
// (element_flap adds down_for, period and count): when an element serves nothing.
struct ElementEvent {
  std::string name;
  std::string kind;
  std::string target;  // instance name
  std::string port;    // down/up/flap: only the target's port facing this element ("": all)
  std::uint64_t at_ps = 0;
  std::uint64_t down_for_ps = 0, period_ps = 0;  // element_flap
  std::uint32_t count = 1;                       // element_flap
  std::uint64_t duration_ps = 0;                 // element_degrade
  std::uint64_t rate_num = 1, rate_den = 1;      // element_degrade: the speed left
  SourceLocation where;
};

struct WorkloadDesc {
  std::string name;
  std::string file;
  std::vector<OperationDesc> operations;
  std::vector<SupplyEvent> supply_events;    // entries with `event:` for a power shelf
  std::vector<ElementEvent> element_events;  // entries with `event:` for an element's failure
  std::vector<LinkErrorEvent> link_errors;   // entries with `event: link_errors`
};

// Per target element (by instance name) or port, its outages in time order, from the
// workload's element events: every down followed by its up, flaps expanded,
// overlapping spans joined. Throws InputError for a down never brought up.
// (target, port): the element, and the neighbour its failed port faces ("" for the whole element).
using OutageTarget = std::pair<std::string, std::string>;
std::map<OutageTarget, std::vector<Outage>> element_outages(const WorkloadDesc& workload);

// Per target element, its slowdowns (element_degrade) in time order; throws
// InputError when two of one element overlap.
std::map<std::string, std::vector<Slowdown>> element_slowdowns(const WorkloadDesc& workload);

// Reads a workload (a path scalar or an inline mapping) and checks it against
// the platform: elements exist, consecutive path elements are connected, every
// element gets the work dimensions it needs, `after:` names exist and do not loop.
WorkloadDesc load_workload(const YAML::Node& node, const std::string& file,
                           const PlatformDesc& platform, Topology& topology);

// The elements a collective's transfer crosses: the shortest path, through the
// source's and target's NICs when they are in different nodes and `nics:` was
// given; Transfer::kSwitch is the reducing switch.
std::vector<std::string> transfer_path(const OperationDesc& op, Topology& topology,
                                       std::uint32_t source, std::uint32_t target);

}  // namespace cnuas
