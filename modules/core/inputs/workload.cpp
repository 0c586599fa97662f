#include "core/inputs/workload.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/inputs/workload_time.h"

namespace cnuas {
namespace {

std::vector<std::string> element_names(const PlatformDesc& platform) {
  std::vector<std::string> names;
  for (const auto& e : platform.elements) names.push_back(e.name);
  return names;
}

void require_element(const PlatformDesc& platform, const std::string& name,
                     const SourceLocation& where) {
  if (platform.find(name)) return;
  auto names = element_names(platform);
  std::string hint = nearest_name(name, names);
  throw InputError(
      where, fmt::format("unknown element '{}'{}; elements: {}", name,
                         hint.empty() ? "" : " (did you mean '" + hint + "'?)", join_names(names)));
}

// Every element on `path` gets the work dimensions and request kind it needs.
void check_needs(const OperationDesc& op, const std::vector<std::string>& path,
                 const PlatformDesc& platform, const std::string& who) {
  for (const auto& name : path) {
    const ElementInstance& e = *platform.find(name);
    const Schema& schema = *Registry::instance().find(e.type)->schema;
    const std::string gives = op.dims.empty() ? "nothing" : join_names(op.dims.names());
    if (!schema.request_kinds().empty()) {
      bool known = false;
      for (const auto& k : schema.request_kinds()) known = known || k == op.request;
      if (!known)
        throw InputError(op.where,
                         fmt::format("{} crosses '{}' ({}), which serves management requests: give "
                                     "'request:' as one of {}{}",
                                     who, name, e.type, join_names(schema.request_kinds()),
                                     op.request.empty() ? "" : " (got '" + op.request + "')"));
    }
    bool any = schema.needed_one_of().empty();
    for (WorkDim d : schema.needed_one_of()) any = any || op.dims.has(d);
    if (!any) {
      std::vector<std::string> names;
      for (WorkDim d : schema.needed_one_of()) names.emplace_back(work_dim_name(d));
      throw InputError(op.where,
                       fmt::format("{} crosses '{}' ({}), which needs at least one of: {}; the "
                                   "operation gives: {}",
                                   who, name, e.type, join_names(names), gives));
    }
    for (WorkDim d : schema.needed_dims())
      if (!op.dims.has(d))
        throw InputError(op.where,
                         fmt::format("{} crosses '{}' ({}), which needs work dimension '{}'; the "
                                     "operation gives: {}",
                                     who, name, e.type, work_dim_name(d), gives));
  }
}

void read_path(const YAML::Node& o, const std::string& file, const PlatformDesc& platform,
               Topology& topology, OperationDesc& op, const std::string& who) {
  if (o["path"] && (o["from"] || o["to"]))
    throw InputError(op.where, who + ": give either 'path:' or 'from:'/'to:', not both");
  if (const YAML::Node p = o["path"]) {
    require_sequence(p, file, "path");
    for (const auto& item : p) {
      std::string name = scalar_text(item, file, "path entry");
      require_element(platform, name, location_of(item, file));
      if (!op.path.empty() && !topology.connected(op.path.back(), name))
        throw InputError(
            location_of(item, file),
            fmt::format(
                "{}: path goes from '{}' to '{}', but the platform has no connection {} -> {}", who,
                op.path.back(), name, op.path.back(), name));
      op.path.push_back(name);
    }
  } else if (o["from"] && o["to"]) {
    std::string from = scalar_text(o["from"], file, "from");
    std::string to = scalar_text(o["to"], file, "to");
    require_element(platform, from, location_of(o["from"], file));
    require_element(platform, to, location_of(o["to"], file));
    op.path = topology.path(from, to, op.where);
  }
  if (op.path.empty())
    throw InputError(
        op.where, who + " needs 'path:' (a list of elements), 'from:' and 'to:', or 'collective:'");
}

std::vector<std::string> expand_names(const YAML::Node& p, const std::string& file,
                                      const char* what, const PlatformDesc& platform,
                                      Topology& topology) {
  // One pattern, or a list of names and patterns ("gpu[*]" needs quotes inside [...]).
  std::vector<YAML::Node> items;
  if (p.IsScalar()) {
    items.push_back(p);
  } else {
    require_sequence(p, file, what);
    for (const auto& item : p) items.push_back(item);
  }
  std::vector<std::string> out;
  for (const auto& item : items) {
    const std::string pattern = scalar_text(item, file, what);
    const auto names = topology.expand(pattern);
    if (names.empty()) require_element(platform, pattern, location_of(item, file));
    out.insert(out.end(), names.begin(), names.end());
  }
  return out;
}

// nvls_allreduce: the switch next to the first rank on its way to the second
// must reduce in the network and be every rank's direct neighbour.
std::string find_reducer(const OperationDesc& op, const PlatformDesc& platform, Topology& topology,
                         const std::string& who) {
  const auto path = topology.path(op.participants[0], op.participants[1], op.where);
  const ElementInstance* sw = path.size() == 3 ? platform.find(path[1]) : nullptr;
  const FieldSpec* field =
      sw == nullptr ? nullptr : sw->params.schema()->find("in_network_reduction");
  if (field == nullptr || !sw->params.boolean("in_network_reduction"))
    throw InputError(op.where,
                     fmt::format("{}: nvls_allreduce needs the ranks on one switch that reduces in "
                                 "the network (in_network_reduction: true); from '{}' to '{}' the "
                                 "route is {}",
                                 who, op.participants[0], op.participants[1], join_names(path)));
  for (const std::string& rank : op.participants)
    if (topology.path(rank, sw->name, op.where).size() != 2 ||
        topology.path(sw->name, rank, op.where).size() != 2)
      throw InputError(op.where, fmt::format("{}: nvls_allreduce needs every rank connected to "
                                             "'{}' both ways; '{}' is not",
                                             who, sw->name, rank));
  return sw->name;
}

void read_collective(const YAML::Node& o, const std::string& file, const PlatformDesc& platform,
                     Topology& topology, OperationDesc& op, const std::string& who) {
  const YAML::Node c = o["collective"];
  const std::string kind = scalar_text(c, file, "collective");
  op.collective = collective_by_name(kind);
  if (!op.collective) {
    std::string hint = nearest_name(kind, collective_names());
    throw InputError(location_of(c, file),
                     fmt::format("{}: unknown collective '{}'{}; accepted: {}", who, kind,
                                 hint.empty() ? "" : " (did you mean '" + hint + "'?)",
                                 join_names(collective_names())));
  }
  if (o["path"] || o["from"] || o["to"])
    throw InputError(op.where, who + ": a collective takes 'participants:', not a path");
  if (o["repeat"] || o["interval"])
    throw InputError(op.where, who + ": a collective cannot repeat");
  const YAML::Node p = o["participants"];
  if (!p)
    throw InputError(op.where,
                     who + ": a collective needs 'participants:' (element names or patterns)");
  op.participants = expand_names(p, file, "participant", platform, topology);
  if (op.participants.size() < 2)
    throw InputError(location_of(p, file),
                     fmt::format("{}: a collective needs at least 2 participants", who));
  if (!op.dims.has(WorkDim::Bytes))
    throw InputError(op.where,
                     fmt::format("{}: a collective needs 'bytes' (the buffer per rank)", who));
  if (const YAML::Node ch = o["channels"]) {
    const std::string text = scalar_text(ch, file, "channels");
    if (text.empty() || text.size() > 4 ||
        text.find_first_not_of("0123456789") != std::string::npos || std::stoul(text) == 0 ||
        std::stoul(text) > 1024)
      throw InputError(
          location_of(ch, file),
          fmt::format("{}: channels must be a whole number from 1 to 1024, got '{}'", who, text));
    op.channels = static_cast<std::uint32_t>(std::stoul(text));
  }
  if (const YAML::Node nics = o["nics"]) {
    op.nics = expand_names(nics, file, "nic", platform, topology);
    if (op.nics.size() != op.participants.size())
      throw InputError(location_of(nics, file),
                       fmt::format("{}: 'nics:' names {} elements for {} participants; give one "
                                   "per participant, in the same order",
                                   who, op.nics.size(), op.participants.size()));
  }
  const CollectiveShape shape = collective_shape(op.participants, op.channels);
  if (*op.collective == CollectiveKind::HierarchicalAllreduce) {
    std::vector<std::uint32_t> sizes;
    for (std::uint32_t m : shape.node_of) {
      if (m >= sizes.size()) sizes.resize(m + 1);
      ++sizes[m];
    }
    for (std::uint32_t m = 0; m < sizes.size(); ++m)
      if (sizes[m] != sizes[0])
        throw InputError(location_of(p, file),
                         fmt::format("{}: hierarchical_allreduce needs the same number of ranks in "
                                     "every node; the first node has {}, node {} has {}",
                                     who, sizes[0], m, sizes[m]));
  }
  if (*op.collective == CollectiveKind::NvlsAllreduce)
    op.reducer = find_reducer(op, platform, topology, who);
  // Every distinct route the transfers take must exist and suit its elements.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  CollectiveShape one = shape;
  one.channels = 1;
  for (const Transfer& t : expand_collective(*op.collective, one, 0))
    pairs.emplace_back(t.source, t.target);
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  for (auto [a, b] : pairs) check_needs(op, transfer_path(op, topology, a, b), platform, who);
}

// `- {name: psu2_fails, event: supply_failure, target: shelf, start: 20 ms, supplies: 1}`
SupplyEvent read_supply_event(const YAML::Node& o, const std::string& file,
                              const PlatformDesc& platform) {
  check_keys(o, file, {"name", "event", "target", "start", "supplies"}, "supply event");
  SupplyEvent e;
  e.where = location_of(o, file);
  e.name = o["name"] ? scalar_text(o["name"], file, "name") : "event";
  e.kind = scalar_text(o["event"], file, "event");
  const std::vector<std::string> kinds = {"supply_failure", "supply_restore", "ac_loss"};
  if (std::find(kinds.begin(), kinds.end(), e.kind) == kinds.end()) {
    std::string hint = nearest_name(e.kind, kinds);
    throw InputError(
        location_of(o["event"], file),
        fmt::format("unknown event '{}'{}; accepted: {}", e.kind,
                    hint.empty() ? "" : " (did you mean '" + hint + "'?)", join_names(kinds)));
  }
  if (!o["target"]) throw InputError(e.where, "a supply event needs 'target:' (a power shelf)");
  e.target = scalar_text(o["target"], file, "target");
  require_element(platform, e.target, location_of(o["target"], file));
  const ElementInstance& target = *platform.find(e.target);
  if (!Registry::instance().find(target.type)->schema->is_power_supply())
    throw InputError(
        location_of(o["target"], file),
        fmt::format("event target '{}' is a {}, not a power shelf", e.target, target.type));
  if (o["start"]) e.at_ps = workload_time(o["start"], file, "event start");
  if (const YAML::Node n = o["supplies"]) {
    std::string text = scalar_text(n, file, "supplies");
    if (text.empty() || text.size() > 3 ||
        text.find_first_not_of("0123456789") != std::string::npos || std::stoul(text) == 0)
      throw InputError(location_of(n, file),
                       fmt::format("supplies must be a whole number >= 1, got '{}'", text));
    e.supplies = static_cast<std::uint32_t>(std::stoul(text));
  }
  return e;
}

// `- {name: cut, event: element_down, target: nvlink3, start: 2 ms}`, its
// `element_up`, or `element_flap` with down_for, period and count.
ElementEvent read_element_event(const YAML::Node& o, const std::string& file,
                                const PlatformDesc& platform) {
  ElementEvent e;
  e.where = location_of(o, file);
  e.kind = scalar_text(o["event"], file, "event");
  const std::vector<std::string> kinds = {"element_down", "element_up", "element_flap",
                                          "element_degrade"};
  if (std::find(kinds.begin(), kinds.end(), e.kind) == kinds.end()) {
    const std::string hint = nearest_name(e.kind, kinds);
    throw InputError(
        location_of(o["event"], file),
        fmt::format("unknown event '{}'{}; accepted: {}", e.kind.substr(0, 60),
                    hint.empty() ? "" : " (did you mean '" + hint + "'?)", join_names(kinds)));
  }
  const bool flap = e.kind == "element_flap", degrade = e.kind == "element_degrade";
  std::vector<std::string> keys = {"name", "event", "target", "start"};
  if (!degrade) keys.push_back("port");
  if (flap) keys.insert(keys.end(), {"down_for", "period", "count"});
  if (degrade) keys.insert(keys.end(), {"duration", "rate"});
  check_keys(o, file, keys, e.kind + " event");
  e.name = o["name"] ? scalar_text(o["name"], file, "name") : e.kind;
  if (!o["target"]) throw InputError(e.where, e.kind + " needs 'target:' (an element)");
  e.target = scalar_text(o["target"], file, "target");
  require_element(platform, e.target, location_of(o["target"], file));
  if (o["port"]) {
    // The target's port that faces this element (a switch port's failure).
    e.port = scalar_text(o["port"], file, "port");
    require_element(platform, e.port, location_of(o["port"], file));
  }
  if (o["start"]) e.at_ps = workload_time(o["start"], file, e.kind + " start");
  if (degrade) {
    for (const char* key : {"duration", "rate"})
      if (!o[key]) throw InputError(e.where, fmt::format("element_degrade needs '{}:'", key));
    e.duration_ps = workload_time(o["duration"], file, "element_degrade duration");
    if (e.duration_ps == 0)
      throw InputError(location_of(o["duration"], file),
                       "element_degrade: duration must be above zero");
    const std::string text = scalar_text(o["rate"], file, "rate");
    Rational rate;
    try {
      rate = parse_quantity(text, Dimension::Count).value;
    } catch (const UnitError& err) {
      throw InputError(location_of(o["rate"], file), "element_degrade rate: " + err.message);
    }
    if (rate.is_zero() || !(rate < Rational(1)) || rate.den() > (u128{1} << 40))
      throw InputError(location_of(o["rate"], file),
                       fmt::format("element_degrade rate '{}' must be above 0 % and below 100 % "
                                   "(element_down stops an element)",
                                   text.substr(0, 40)));
    e.rate_num = static_cast<std::uint64_t>(rate.num());
    e.rate_den = static_cast<std::uint64_t>(rate.den());
    if (static_cast<u128>(e.at_ps) + e.duration_ps > kMaxWorkloadTimePs)
      throw InputError(e.where,
                       "element_degrade: it ends past the longest run accepted (1000000 s)");
    return e;
  }
  if (!flap) return e;
  for (const char* key : {"down_for", "period", "count"})
    if (!o[key]) throw InputError(e.where, fmt::format("element_flap needs '{}:'", key));
  e.down_for_ps = workload_time(o["down_for"], file, "element_flap down_for");
  e.period_ps = workload_time(o["period"], file, "element_flap period");
  if (e.down_for_ps == 0 || e.down_for_ps >= e.period_ps)
    throw InputError(location_of(o["down_for"], file),
                     "element_flap: down_for must be above zero and below period");
  const std::string count = scalar_text(o["count"], file, "count");
  if (count.empty() || count.size() > 6 ||
      count.find_first_not_of("0123456789") != std::string::npos || std::stoul(count) == 0)
    throw InputError(location_of(o["count"], file),
                     fmt::format("element_flap count must be a whole number from 1 to 999999, "
                                 "got '{}'",
                                 count.substr(0, 40)));
  e.count = static_cast<std::uint32_t>(std::stoul(count));
  if (static_cast<u128>(e.at_ps) + static_cast<u128>(e.count) * e.period_ps > kMaxWorkloadTimePs)
    throw InputError(e.where,
                     "element_flap: its last outage ends past the longest run accepted "
                     "(1000000 s)");
  return e;
}

OperationDesc read_operation(const YAML::Node& o, const std::string& file,
                             const PlatformDesc& platform, Topology& topology) {
  require_map(o, file, "an operation");
  check_keys(o, file,
             {"name", "path", "from", "to", "dims", "mode", "start", "repeat", "interval", "after",
              "command", "request", "collective", "participants", "channels", "nics"},
             "operation");
  OperationDesc op;
  op.where = location_of(o, file);
  if (!o["name"]) throw InputError(op.where, "operation has no 'name:'");
  op.name = scalar_text(o["name"], file, "name");
  if (!is_identifier(op.name))
    throw InputError(
        location_of(o["name"], file),
        fmt::format("operation name '{}' must be an identifier (letters, digits, _ and -)",
                    op.name));
  const std::string who = "operation '" + op.name + "'";
  if (const YAML::Node dims = o["dims"]) {
    require_map(dims, file, "dims");
    check_keys(dims, file, work_dim_names(), "dims of " + who);
    for (auto it = dims.begin(); it != dims.end(); ++it) {
      WorkDim d = *work_dim_by_name(it->first.Scalar());
      try {
        op.dims.set(d, parse_work_value(d, scalar_text(it->second, file, it->first.Scalar())));
      } catch (const UnitError& e) {
        throw InputError(location_of(it->second, file),
                         fmt::format("{}: {}: {}", who, it->first.Scalar(), e.message));
      } catch (const OverflowError&) {
        throw InputError(location_of(it->second, file),
                         fmt::format("{}: {} is beyond 2^64 - 1", who, it->first.Scalar()));
      }
    }
  }
  if (const YAML::Node m = o["mode"]) {
    std::string mode = scalar_text(m, file, "mode");
    if (mode == "serial")
      op.mode = StageMode::Serial;
    else if (mode == "overlap")
      op.mode = StageMode::Overlap;
    else
      throw InputError(location_of(m, file),
                       fmt::format("{}: mode '{}' is not serial or overlap", who, mode));
  }
  if (const YAML::Node c = o["command"]) {
    std::string command = scalar_text(c, file, "command");
    if (command != "read" && command != "write")
      throw InputError(location_of(c, file),
                       fmt::format("{}: command '{}' is not read or write", who, command));
    op.read = command == "read";
  }
  if (const YAML::Node r = o["request"]) op.request = scalar_text(r, file, "request");
  if (o["collective"]) {
    read_collective(o, file, platform, topology, op, who);
  } else {
    for (const char* key : {"participants", "channels", "nics"})
      if (o[key])
        throw InputError(op.where, fmt::format("{}: '{}:' belongs to a collective", who, key));
    read_path(o, file, platform, topology, op, who);
    check_needs(op, op.path, platform, who);
  }
  if (const YAML::Node s = o["start"]) op.start_ps = workload_time(s, file, who + " start");
  if (const YAML::Node r = o["repeat"]) {
    std::string text = scalar_text(r, file, "repeat");
    if (text.empty() || text.size() > 9 ||
        text.find_first_not_of("0123456789") != std::string::npos || std::stoul(text) == 0)
      throw InputError(location_of(r, file),
                       fmt::format("{}: repeat must be a whole number >= 1, got '{}'", who, text));
    op.repeat = static_cast<std::uint32_t>(std::stoul(text));
  }
  if (const YAML::Node i = o["interval"]) {
    op.interval_ps = workload_time(i, file, who + " interval");
    op.periodic = true;
    const u128 last = static_cast<u128>(op.start_ps) +
                      static_cast<u128>(op.repeat - 1) * static_cast<u128>(op.interval_ps);
    if (last > kMaxWorkloadTimePs)
      throw InputError(location_of(i, file),
                       fmt::format("{}: its last repetition would start past the longest run "
                                   "accepted (1000000 s)",
                                   who));
  }
  if (const YAML::Node a = o["after"]) {
    if (a.IsScalar()) {
      op.after.push_back(a.Scalar());
    } else {
      require_sequence(a, file, "after");
      for (const auto& item : a) op.after.push_back(scalar_text(item, file, "after entry"));
    }
  }
  return op;
}

void check_dependencies(const WorkloadDesc& w) {
  std::map<std::string, const OperationDesc*> by_name;
  for (const auto& op : w.operations) {
    if (by_name.count(op.name))
      throw InputError(op.where, fmt::format("operation '{}' is declared twice (first at {})",
                                             op.name, by_name[op.name]->where.str()));
    by_name[op.name] = &op;
  }
  std::vector<std::string> names;
  for (const auto& op : w.operations) names.push_back(op.name);
  for (const auto& op : w.operations)
    for (const auto& dep : op.after)
      if (!by_name.count(dep)) {
        std::string hint = nearest_name(dep, names);
        throw InputError(
            op.where, fmt::format("operation '{}' waits for unknown operation '{}'{}", op.name, dep,
                                  hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
      }
  // Depth-first search for a cycle; report it in order.
  std::map<std::string, int> state;  // 0 new, 1 on stack, 2 done
  std::vector<std::string> stack;
  std::function<void(const OperationDesc&)> visit = [&](const OperationDesc& op) {
    state[op.name] = 1;
    stack.push_back(op.name);
    for (const auto& dep : op.after) {
      if (state[dep] == 1) {
        stack.push_back(dep);
        throw InputError(op.where,
                         "operations wait for each other in a cycle: " + join_names(stack, " -> "));
      }
      if (state[dep] == 0) visit(*by_name[dep]);
    }
    stack.pop_back();
    state[op.name] = 2;
  };
  for (const auto& op : w.operations)
    if (state[op.name] == 0) visit(op);
}

}  // namespace

WorkloadDesc load_workload(const YAML::Node& node, const std::string& file,
                           const PlatformDesc& platform, Topology& topology) {
  YamlSource src{file, node};
  if (node.IsScalar())
    src = load_yaml_file(resolve_path(file, node.Scalar()), location_of(node, file));
  WorkloadDesc w;
  w.file = src.file;
  require_map(src.root, src.file, "a workload");
  check_keys(src.root, src.file, {"workload", "operations"}, "workload");
  w.name =
      src.root["workload"] ? scalar_text(src.root["workload"], src.file, "workload") : "workload";
  const YAML::Node ops = src.root["operations"];
  if (!ops) throw InputError(location_of(src.root, src.file), "workload has no 'operations:'");
  require_sequence(ops, src.file, "operations");
  for (const auto& o : ops) {
    if (o.IsMap() && o["event"] && o["event"].IsScalar() &&
        o["event"].Scalar().rfind("element_", 0) == 0)
      w.element_events.push_back(read_element_event(o, src.file, platform));
    else if (o.IsMap() && o["event"] && o["event"].IsScalar() &&
             o["event"].Scalar() == "link_errors")
      w.link_errors.push_back(read_link_errors(o, src.file, platform));
    else if (o.IsMap() && o["event"])
      w.supply_events.push_back(read_supply_event(o, src.file, platform));
    else
      w.operations.push_back(read_operation(o, src.file, platform, topology));
  }
  if (w.operations.empty())
    throw InputError(location_of(ops, src.file), "workload has no operations");
  check_dependencies(w);
  return w;
}

std::vector<std::string> transfer_path(const OperationDesc& op, Topology& topology,
                                       std::uint32_t source, std::uint32_t target) {
  const auto name = [&](std::uint32_t rank) {
    return rank == Transfer::kSwitch ? op.reducer : op.participants[rank];
  };
  const std::string from = name(source), to = name(target);
  const auto node = [](const std::string& rank) {
    const std::size_t dot = rank.rfind('.');
    return dot == std::string::npos ? std::string() : rank.substr(0, dot);
  };
  if (op.nics.empty() || source == Transfer::kSwitch || target == Transfer::kSwitch ||
      node(from) == node(to))
    return topology.path(from, to, op.where);
  // Between nodes: out through the source's NIC, in through the target's.
  std::vector<std::string> path = topology.path(from, op.nics[source], op.where);
  for (const auto& [a, b] :
       {std::pair{op.nics[source], op.nics[target]}, std::pair{op.nics[target], to}}) {
    const auto leg = topology.path(a, b, op.where);
    path.insert(path.end(), leg.begin() + 1, leg.end());
  }
  return path;
}

std::map<OutageTarget, std::vector<Outage>> element_outages(const WorkloadDesc& workload) {
  // Per target: (time, +1 down / -1 up, event) in time order; a down and an
  // up at the same time: the up first (a span ends before the next begins).
  struct Edge {
    std::uint64_t at;
    int delta;
    const ElementEvent* event;
  };
  std::map<OutageTarget, std::vector<Edge>> edges;
  for (const ElementEvent& e : workload.element_events) {
    auto& list = edges[{e.target, e.port}];
    if (e.kind == "element_down") list.push_back({e.at_ps, +1, &e});
    if (e.kind == "element_up") list.push_back({e.at_ps, -1, &e});
    if (e.kind == "element_degrade") continue;  // element_slowdowns
    if (e.kind == "element_flap")
      for (std::uint32_t k = 0; k < e.count; ++k) {
        list.push_back({e.at_ps + k * e.period_ps, +1, &e});
        list.push_back({e.at_ps + k * e.period_ps + e.down_for_ps, -1, &e});
      }
  }
  std::map<OutageTarget, std::vector<Outage>> out;
  for (auto& [where, list] : edges) {
    const std::string target =
        where.second.empty() ? where.first : where.first + "'s port to '" + where.second;
    std::stable_sort(list.begin(), list.end(), [](const Edge& a, const Edge& b) {
      return a.at != b.at ? a.at < b.at : a.delta < b.delta;
    });
    int down = 0;  // downs in force: overlapping spans join
    std::uint64_t since = 0;
    for (const Edge& edge : list) {
      if (edge.delta < 0 && down == 0)
        throw InputError(
            edge.event->where,
            fmt::format("element_up of '{}' at {} ps: it is not down then", target, edge.at));
      if (edge.delta > 0 && down++ == 0) since = edge.at;
      if (edge.delta < 0 && --down == 0 && edge.at > since) out[where].push_back({since, edge.at});
    }
    if (down > 0)
      throw InputError(list.back().event->where,
                       fmt::format("'{}' goes down at {} ps and never comes back up: add an "
                                   "element_up (what crosses it would wait forever)",
                                   target, since));
  }
  return out;
}

std::map<std::string, std::vector<Slowdown>> element_slowdowns(const WorkloadDesc& workload) {
  std::map<std::string, std::vector<std::pair<Slowdown, const ElementEvent*>>> spans;
  for (const ElementEvent& e : workload.element_events)
    if (e.kind == "element_degrade")
      spans[e.target].push_back({{e.at_ps, e.at_ps + e.duration_ps, e.rate_num, e.rate_den}, &e});
  std::map<std::string, std::vector<Slowdown>> out;
  for (auto& [target, list] : spans) {
    std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
      return a.first.from_ps < b.first.from_ps;
    });
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (i > 0 && list[i].first.from_ps < list[i - 1].first.to_ps)
        throw InputError(list[i].second->where,
                         fmt::format("element_degrade of '{}' at {} ps overlaps the one at {} ps; "
                                     "give one rate per span",
                                     target, list[i].first.from_ps, list[i - 1].first.from_ps));
      out[target].push_back(list[i].first);
    }
  }
  return out;
}

}  // namespace cnuas
