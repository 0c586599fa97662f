#include "run/simulation.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibration/analytic.h"
#include "calibration/calibration_file.h"
#include "core/kernel/run_context.h"
#include "core/outputs/counter_tracks.h"
#include "core/outputs/stats.h"
#include "core/outputs/stats_table.h"
#include "core/outputs/waveforms.h"
#include "core/outputs/wording.h"
#include "dc/link.h"
#include "run/progress_line.h"

namespace cnuas {

Simulation::Simulation(const RunOptions& options)
    : options_(options), context_(std::make_unique<RunContext>()) {
  for (const auto& p : options_.plugins)
    Registry::instance().load_plugin(p, SourceLocation{"--plugin " + p});
  YamlSource source = options_.platform_file.empty() ? load_yaml_text(embedded_default_platform(),
                                                                      "<embedded default platform>")
                                                     : load_yaml_file(options_.platform_file);
  platform_ = load_platform(source);
  for (const auto& s : options_.sets) apply_override(platform_, s);
  for (const auto& o : options_.field_overrides)
    apply_field_override(platform_, o.field, o.value, o.origin);
  // Every element's parameters, resolved once for the run; bad values fail before elaboration.
  resolve_platform(platform_);
  topology_ = std::make_unique<Topology>(platform_);
  if (options_.program_driven) {
    workload_.name = "program";
  } else if (!options_.workload_file.empty()) {
    workload_ = load_workload(YAML::Node(options_.workload_file), "", platform_, *topology_);
  } else if (platform_.workload && !platform_.workload.IsNull()) {
    workload_ = load_workload(platform_.workload, platform_.workload_file, platform_, *topology_);
  } else {
    // An empty `workload:` is pointed at; a missing one at the file's start.
    const SourceLocation where = platform_.workload && !platform_.workload_file.empty()
                                     ? location_of(platform_.workload, platform_.workload_file)
                                     : SourceLocation{platform_.file, 1, 1};
    throw InputError(where,
                     "platform has no workload: add 'workload:' (its operations, or a workload "
                     "file's name) or give one with -w WORKLOAD.yaml");
  }
}

Simulation::~Simulation() = default;

void Simulation::elaborate() {
  RunContext& context = *context_;
  context.header.platform = platform_.name;
  context.header.workload = workload_.name;
  context.scheduler().set_lookahead(options_.lookahead);
  // Engine and ingress records only matter to the trace files.
  context.record_feeds = !options_.trace_path.empty() || !options_.perfetto_path.empty();
  context.log_level = options_.log_level;
  if (!options_.vcd_path.empty()) context.enable_waveforms(options_.vcd_path);
  module_ = std::make_unique<PlatformModule>(platform_.name.c_str(), platform_);
  check_wiring();

  apply_calibrations();
  // Element failures from the workload: when each element is down, and the
  // trace's instants that say so.
  for (const auto& [target, outages] : element_outages(workload_)) {
    Element& e = module_->element(target.first);
    // A failed port: its peer and lanes in the trace (`lanes`: only those are down).
    std::string port;
    if (!target.second.empty()) {
      const Element& peer = module_->element(target.second);
      e.add_port_outages(peer, outages);
      port = fmt::format(",\"port\":\"{}\",\"lanes\":[{}]", peer.name(),
                         fmt::join(e.lanes_facing(peer), ","));
    } else {
      e.set_outages(outages);
    }
    for (const Outage& o : outages) {
      context.trace().record_instant(
          {o.from_ps, e.index(), "element_down", fmt::format("\"until_ps\":{}{}", o.to_ps, port)});
      context.trace().record_instant(
          {o.to_ps, e.index(), "element_up", fmt::format("\"since_ps\":{}{}", o.from_ps, port)});
    }
  }
  for (const auto& [target, slowdowns] : element_slowdowns(workload_)) {
    Element& e = module_->element(target);
    for (const Slowdown& s : slowdowns) {
      context.trace().record_instant({s.from_ps, e.index(), "element_degraded",
                                      fmt::format("\"until_ps\":{},\"rate\":{}", s.to_ps,
                                                  Rational(s.rate_num, s.rate_den).to_decimal(6))});
      context.trace().record_instant(
          {s.to_ps, e.index(), "element_restored", fmt::format("\"since_ps\":{}", s.from_ps)});
    }
    e.set_slowdowns(slowdowns);
  }
  // Power losses: every element of the rack stops.
  if (!power_cuts_.empty())
    for (Element* e : module_->elements()) {
      const auto cuts = power_cuts_.find(e->params().text("rack"));
      if (cuts != power_cuts_.end() && !e->params().text("rack").empty())
        e->set_power_cuts(cuts->second);
    }
  for (const auto& [target, events] : link_error_spans(workload_.link_errors)) {
    auto* link = dynamic_cast<Link*>(&module_->element(target));
    if (link == nullptr) throw std::logic_error("link_errors target '" + target + "' is no link");
    std::vector<Link::ErrorSpan> spans;
    for (const LinkErrorEvent& e : events) {
      spans.push_back({e.from_ps, e.to_ps, e.ber});
      context.trace().record_instant({e.from_ps, link->index(), "link_errors",
                                      fmt::format("\"until_ps\":{},\"ber\":{}", e.to_ps, e.ber)});
      context.trace().record_instant(
          {e.to_ps, link->index(), "link_errors_end", fmt::format("\"since_ps\":{}", e.from_ps)});
    }
    link->set_error_spans(std::move(spans));
  }
  if (options_.program_driven) {
    program_driver_ = std::make_unique<ProgramDriver>("program", context.payloads());
    for (Element* e : module_->elements()) program_driver_->out.bind(e->in);
    return;
  }
  DependencyGraph graph;
  build_operations(graph);
  driver_ = std::make_unique<WorkloadDriver>("driver", std::move(graph), context.payloads());
  // The driver may start an operation at any element; it binds last, after every connection.
  for (Element* e : module_->elements()) driver_->out.bind(e->in);
}

// Wiring mistakes are bad input found before anything runs, at the element's
// declaration when the check does not know a closer place.
void Simulation::check_wiring() {
  const std::vector<Element*> elements = module_->elements();
  for (std::size_t i = 0; i < elements.size(); ++i) {
    try {
      elements[i]->check_wiring();
    } catch (const InputError& e) {
      const std::string message = e.what();
      // A message that starts with a location already says where.
      if (i >= platform_.elements.size() || message.find(": ") < message.find(' ') ||
          message.rfind(platform_.elements[i].where.str(), 0) == 0)
        throw;
      throw InputError(platform_.elements[i].where, message);
    }
  }
}

// Why no element matches a calibration: the timing fields in which the first
// elements of its type differ from the profile it was fitted with, when that
// profile can still be read (as given at fit time, or beside the calibration).
std::string Simulation::calibration_mismatch(const calibration::CalibrationFile& c,
                                             const std::string& path) const {
  std::string profile = c.profile;
  if (!std::filesystem::exists(profile))
    profile = (std::filesystem::path(path).parent_path() / c.profile).string();
  if (!std::filesystem::exists(profile))
    return "their profile differs from the one it was fitted with (" + c.profile +
           " cannot be read to say how)";
  const ProfileDoc doc = load_profile(profile);
  const ModelInfo& model = Registry::instance().require(c.component, SourceLocation{path});
  const ParamSet fitted =
      resolve_params(*model.schema, doc.values, "profile " + profile, SourceLocation{profile});
  std::vector<std::string> lines;
  std::size_t shown = 0;
  for (const Element* e : module_->elements()) {
    if (e->type() != c.component) continue;
    if (++shown > 3) {
      lines.push_back("...");
      break;
    }
    const std::vector<std::string> d = calibration::timing_differences(fitted, e->params());
    lines.push_back(fmt::format("'{}' differs in {}", e->name(),
                                d.empty() ? std::string("no timing field (the calibration was "
                                                        "fitted by another version: fit it again)")
                                          : fmt::format("{}", fmt::join(d, ", "))));
  }
  return "their timing fields differ from the profile it was fitted with: " +
         fmt::format("{}", fmt::join(lines, "; "));
}

// A calibration applies to every element of its type whose timing fields hash
// like the profile it was fitted with; it must have been validated on held-out data.
void Simulation::apply_calibrations() {
  RunContext& context = *context_;
  context.calibration_members.assign(context.elements().size(), "");
  std::vector<std::string> applied;
  for (const std::string& path : options_.calibrations) {
    const calibration::CalibrationFile c = calibration::read_calibration(path);
    if (!c.validation)
      throw InputError(SourceLocation{path},
                       fmt::format("calibration of {} for '{}' was never validated: run cnuas "
                                   "calibrate validate with held-out observations first",
                                   c.component, c.target));
    Registry::instance().require(c.component, SourceLocation{path});
    std::size_t matched = 0, same_type = 0;
    for (Element* e : module_->elements()) {
      if (e->type() != c.component) continue;
      ++same_type;
      if (calibration::timing_hash(e->params()) != c.profile_hash) continue;
      ++matched;
      e->set_calibration({c.affine.a, c.affine.b, c.target, c.validation->heldout.mape});
      context.calibration_members[e->index()] =
          fmt::format("\"target\":\"{}\",\"heldout_mape_percent\":{:.6g}", c.target,
                      c.validation->heldout.mape);
    }
    if (matched == 0)
      throw InputError(SourceLocation{path},
                       fmt::format("calibration of {} ({}, profile hash {}) matches none of the "
                                   "platform's {} {} elements: {}",
                                   c.component, c.profile, c.profile_hash, same_type, c.component,
                                   calibration_mismatch(c, path)));
    applied.push_back(fmt::format("{} for '{}' on {} element(s), held-out MAPE {:.3g} %",
                                  c.component, c.target, matched, c.validation->heldout.mape));
  }
  calibration_summary_ = applied;
  if (!applied.empty()) context.header.evidence_class = "analytic+calibrated";
}

const Route& Simulation::route_along(const std::vector<std::string>& path) {
  if (path.size() > StageEvent::kMaxStages)
    throw InputError(
        fmt::format("a route of {} elements from '{}' to '{}'; at most {} are accepted",
                    path.size(), path.front(), path.back(), StageEvent::kMaxStages));
  Route route;
  for (const auto& name : path) route.path.push_back(&module_->element(name));
  route.initiator_port = module_->driver_in_port(route.path[0]);
  for (std::size_t k = 0; k + 1 < route.path.size(); ++k)
    route.out_port.push_back(module_->out_port(route.path[k], route.path[k + 1]));
  route.in_port.push_back(Route::kNoPort);
  for (std::size_t k = 1; k < route.path.size(); ++k)
    route.in_port.push_back(route.path[k]->sender_port(route.path[k - 1]).value_or(Route::kNoPort));
  return context_->add_route(std::move(route));
}

const Route& Simulation::route_of(const std::vector<std::string>& path) {
  auto [it, inserted] = routes_by_path_.try_emplace(path, nullptr);
  if (inserted) it->second = &route_along(path);
  return *it->second;
}

void Simulation::build_operations(DependencyGraph& graph) {
  RunContext& context = *context_;
  std::uint64_t instances = 0;
  for (const OperationDesc& desc : workload_.operations) {
    instances += desc.collective
                     ? collective_transfer_count(*desc.collective,
                                                 collective_shape(desc.participants, desc.channels))
                     : desc.repeat;
  }
  constexpr std::uint64_t kMaxInstances = 100'000'000;  // 6.4 GB of operation state
  if (instances > kMaxInstances)
    throw InputError(
        SourceLocation{workload_.file},
        fmt::format("workload '{}' expands to {} operation instances; at most {} are accepted",
                    workload_.name, instances, kMaxInstances));

  auto add_operation = [&](const OperationSpec& spec, const Route& route, StageMode mode,
                           std::uint32_t repetition, std::uint64_t earliest) {
    Operation op;
    op.spec = &spec;
    op.dims = &spec.dims;
    op.route = &route;
    op.mode = mode;
    op.repetition = repetition;
    return graph.add_node(&context.add_operation(op), earliest);
  };
  // Each entry's join completes when all its instances have.
  std::map<std::string, std::uint32_t> join_of;
  for (const OperationDesc& desc : workload_.operations) join_of[desc.name] = graph.add_join();
  for (const OperationDesc& desc : workload_.operations) {
    const std::uint32_t join = join_of[desc.name];
    std::vector<std::uint32_t> first_nodes;  // the instances that wait for `after:`
    if (desc.collective) {
      const std::vector<Transfer> transfers =
          expand_collective(*desc.collective, collective_shape(desc.participants, desc.channels),
                            desc.dims.get(WorkDim::Bytes));
      // Pieces differ by at most one byte: a few specs serve every transfer.
      std::map<std::pair<std::uint64_t, bool>, const OperationSpec*> spec_of;
      std::map<std::pair<std::uint32_t, std::uint32_t>, const Route*> route_of_pair;
      std::vector<std::uint32_t> nodes;
      nodes.reserve(transfers.size());
      context.collectives.push_back({desc.name, *desc.collective,
                                     static_cast<std::uint32_t>(desc.participants.size()),
                                     desc.channels, desc.dims.get(WorkDim::Bytes),
                                     static_cast<std::uint32_t>(context.operations().size()),
                                     static_cast<std::uint32_t>(transfers.size())});
      for (std::uint32_t i = 0; i < transfers.size(); ++i) {
        const Transfer& t = transfers[i];
        const OperationSpec*& spec = spec_of[{t.bytes, t.reduce}];
        if (spec == nullptr) {
          WorkDims dims = desc.dims;
          dims.set(WorkDim::Bytes, t.bytes);
          if (t.reduce) dims.set(WorkDim::ReduceBytes, t.bytes);
          spec =
              &context.add_spec({desc.name, dims, true, desc.read, desc.request, desc.where.str()});
        }
        const Route*& route = route_of_pair[{t.source, t.target}];
        if (route == nullptr)
          route = &route_of(transfer_path(desc, *topology_, t.source, t.target));
        nodes.push_back(add_operation(*spec, *route, desc.mode, i, desc.start_ps));
      }
      // Edges once every node exists: a tree's reduction waits for later-numbered children.
      for (std::uint32_t i = 0; i < transfers.size(); ++i) {
        for (std::uint32_t before : transfers[i].after) graph.add_edge(nodes[before], nodes[i]);
        if (transfers[i].after.empty()) first_nodes.push_back(nodes[i]);
        graph.add_edge(nodes[i], join);
      }
    } else {
      const Route& route = route_along(desc.path);
      const OperationSpec& spec = context.add_spec(
          {desc.name, desc.dims, desc.repeat > 1, desc.read, desc.request, desc.where.str()});
      std::uint32_t previous = DependencyGraph::kNone;
      for (std::uint32_t i = 0; i < desc.repeat; ++i) {
        const std::uint64_t earliest = desc.start_ps + (desc.periodic ? i * desc.interval_ps : 0);
        const std::uint32_t node = add_operation(spec, route, desc.mode, i, earliest);
        // Without an interval each repetition follows the previous one.
        if (!desc.periodic && previous != DependencyGraph::kNone)
          graph.add_edge(previous, node);
        else
          first_nodes.push_back(node);
        graph.add_edge(node, join);
        previous = node;
      }
    }
    for (const auto& dep : desc.after)
      for (std::uint32_t node : first_nodes) graph.add_edge(join_of[dep], node);
  }
}

void Simulation::run() {
  if (may_lose_power()) settle_power_cuts();
  elaborate();
  auto t0 = std::chrono::steady_clock::now();
  {
    const ProgressLine progress;
    sc_core::sc_start();
  }
  wall_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  context_->throw_if_failed();
  if (driver_->completed_operations() != driver_->total_operations())
    throw InternalError(fmt::format("simulation ended with {} of {} operations complete",
                                    driver_->completed_operations(), driver_->total_operations()));
  roll_up();
  write_outputs();
}

void Simulation::begin_program() {
  // Host time covers the whole program: it advances the simulation in steps.
  program_start_ = std::chrono::steady_clock::now();
  elaborate();
  // The program injects at its own pace, so stages are booked only when time
  // reaches them: nothing may be booked ahead of a later injection.
  context_->scheduler().set_lookahead(false);
  // Ends elaboration: sockets resolve their bindings, so injection can start.
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
}

void Simulation::finish_program(
    const std::function<void(std::uint64_t makespan_ps)>& before_outputs) {
  {
    const ProgressLine progress;
    sc_core::sc_start();
  }
  wall_seconds_ =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - program_start_).count();
  context_->throw_if_failed();
  if (before_outputs) before_outputs(makespan_ps());
  roll_up();
  write_outputs();
}

// Power over the run and the shelves' events, which join the ordered trace.
void Simulation::roll_up() {
  RunContext& context = *context_;
  power_ = roll_up_power(context, workload_.supply_events, makespan_ps());
  for (const PowerEvent& e : power_.events) {
    context.trace().record_instant(
        {e.at_ps, e.shelf->index(), e.kind,
         fmt::format("\"load_w\":{},\"capacity_w\":{},\"battery_j\":{}",
                     Rational(e.load_uw, 1'000'000).to_decimal(6),
                     Rational(e.capacity_uw, 1'000'000).to_decimal(6), e.battery_j.to_decimal(6))});
  }
}

std::uint64_t Simulation::makespan_ps() const {
  return cnuas::makespan_ps(*context_);
}

static std::ofstream open_output(const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw InputError(fmt::format("cannot write output file '{}'", path));
  return out;
}

bool Simulation::any_model_time() const {
  for (const Element* e : context_->elements())
    if (e->stats().model_stages != 0) return true;
  return false;
}

void Simulation::write_outputs() const {
  RunContext& context = *context_;
  // Cycle-level model time is neither analytic nor calibrated: the run says it has some.
  if (any_model_time() && context.header.evidence_class.find("+model") == std::string::npos)
    context.header.evidence_class += "+model";
  // The VCD ends at the run's end; its GTKWave save file zooms to it.
  if (Waveforms* w = context.waveforms()) w->close();
  const TraceNames names{&context.component_names(), &context.component_lanes(),
                         &context.operations(), &context.calibration_members,
                         [&context](std::uint32_t c, std::uint32_t lane) {
                           return context.elements()[c]->lane_name(lane);
                         }};
  if (!options_.trace_path.empty() || !options_.perfetto_path.empty()) {
    std::vector<std::uint64_t> ordered = context.trace().ordered();
    // Elements with `trace: false` keep their stages in memory (stats and power
    // use them) but out of the files.
    std::vector<bool> traced;
    for (const Element* e : context.elements()) traced.push_back(e->traced());
    drop_untraced_stages(ordered, context.trace(), traced);
    if (!options_.trace_path.empty()) {
      auto out = open_output(options_.trace_path);
      write_trace_jsonl(out, context.header, context.trace(), ordered, names);
      trace_records_ = ordered.size();
    }
    if (!options_.perfetto_path.empty()) {
      auto out = open_output(options_.perfetto_path);
      const std::vector<CounterTrack> counters = element_counter_tracks(context);
      write_trace_perfetto(out, context.header, context.trace(), ordered, names, &counters);
    }
  }
  if (!options_.stats_path.empty() || !options_.csv_path.empty()) {
    std::ostringstream stats;
    write_stats_json(stats, context, &power_);
    if (!options_.stats_path.empty()) {
      auto out = open_output(options_.stats_path);
      out << stats.str();
    }
    if (!options_.csv_path.empty()) {
      const StatsTable table =
          stats_table(nlohmann::ordered_json::parse(stats.str()), options_.stats_path);
      auto out = open_output(options_.csv_path);
      write_csv(out, table.columns, table.rows);
    }
  }
}

static std::string time_text(std::uint64_t ps) {
  if (ps >= 1'000'000'000) return Rational(ps, 1'000'000'000).to_decimal(3) + " ms";
  if (ps >= 1'000'000) return Rational(ps, 1'000'000).to_decimal(3) + " us";
  if (ps >= 1'000) return Rational(ps, 1'000).to_decimal(3) + " ns";
  return std::to_string(ps) + " ps";
}

std::string Simulation::summary() const {
  const RunContext& context = *context_;
  const std::uint64_t makespan = makespan_ps();
  std::string out = fmt::format("cnuas: platform '{}' ({}), workload '{}' ({})\n", platform_.name,
                                counted(platform_.elements.size(), "element"), workload_.name,
                                counted(context.operations().size(), "operation"));
  std::uint64_t stages = 0;
  const Element* busiest = nullptr;
  Rational busiest_util;
  for (const Element* e : context.elements()) {
    stages += e->stats().stages;
    std::uint64_t busy = 0;
    for (std::uint32_t l = 0; l < e->lanes().size(); ++l) busy += e->lanes().busy_ps(l);
    if (makespan == 0) continue;
    Rational util = Rational(busy) / Rational(makespan * e->lanes().size());
    if (busiest == nullptr || busiest_util < util) {
      busiest = e;
      busiest_util = util;
    }
  }
  std::string evidence =
      calibration_summary_.empty() ? "analytic" : "analytic + calibrated components";
  if (any_model_time()) evidence += " + cycle-level model";
  out += fmt::format("  simulated time: {} [{}]  ({} booked, {:.3f} s host time)\n",
                     time_text(makespan), evidence, counted(stages, "stage"), wall_seconds_);
  for (const auto& c : calibration_summary_) out += fmt::format("  calibrated: {}\n", c);
  if (busiest)
    out += fmt::format("  busiest element: {} at {}% of its lanes' time [{}]\n", busiest->name(),
                       (busiest_util * Rational(100)).to_decimal(1),
                       busiest->calibration() ? "calibrated for " + busiest->calibration()->target
                       : busiest->stats().model_stages == 0 ? std::string("analytic")
                       : busiest->stats().model_stages == busiest->stats().stages
                           ? std::string("model")
                           : "analytic + model");
  // Per collective, what nccl-tests would print for it.
  for (const CollectiveResult& r : collective_results(context)) {
    const CollectiveRecord& c = *r.record;
    if (r.transfers_not_done > 0) {
      out += fmt::format("  collective {}: {} of {} ranks failed ({} transfers not done)\n", c.name,
                         collective_name(c.kind), c.ranks, r.transfers_not_done);
      continue;
    }
    out +=
        fmt::format("  collective {}: {} of {} ranks, {} B in {}: algbw {} GB/s, busbw {} GB/s\n",
                    c.name, collective_name(c.kind), c.ranks, c.bytes, time_text(r.time_ps),
                    r.algbw_gbps.to_decimal(3), r.busbw_gbps.to_decimal(3));
  }
  auto wrote = [&](const std::string& what, const std::string& path) {
    if (!path.empty()) out += fmt::format("  {:<9} {}\n", what, path);
  };
  wrote("trace:", options_.trace_path);
  wrote("perfetto:", options_.perfetto_path);
  wrote("vcd:", options_.vcd_path);
  if (!options_.vcd_path.empty()) wrote("gtkwave:", Waveforms::save_file_path(options_.vcd_path));
  wrote("stats:", options_.stats_path);
  wrote("csv:", options_.csv_path);
  return out;
}

}  // namespace cnuas
