// cudaGraphLaunch: an executable graph's nodes issued onto the timeline as
// commands ordered by the graph's edges only.
#include <algorithm>
#include <iostream>

#include "engine/graph_exec.h"
#include "engine/graph_memory.h"

namespace cnuas::cuda {
namespace {

// What the commands of one launch share: the graph they were issued from,
// kept until the launch's last command has run.
struct Launch {
  Runtime* rt = nullptr;
  std::shared_ptr<Graph> graph;
};
using LaunchPtr = std::shared_ptr<Launch>;

CommandPtr marker(const char* name) {
  auto c = std::make_shared<Command>();
  c->name = name;
  return c;
}

std::vector<CommandPtr> issue_graph(const LaunchPtr& l, const Graph& g,
                                    const std::vector<CommandPtr>& after, std::uint64_t at);

// Reads a conditional node's condition and issues the body it selects after
// itself; `end` (the node's completion) waits for that body too. A WHILE node
// evaluates again after each pass.
CommandPtr evaluation(const LaunchPtr& l, const GraphNode& n, const CommandPtr& end) {
  auto eval = marker("conditional");
  const GraphNode* node = &n;
  eval->start = [l, node, end](Command& self) {
    const NodeSpec& s = node->spec;
    const unsigned v = s.condition->read();
    const Graph* body = nullptr;
    const std::size_t bodies = node->children.size();
    switch (s.conditional) {
      case ConditionalType::If:
        body = v ? node->children[0].get() : bodies > 1 ? node->children[1].get() : nullptr;
        break;
      case ConditionalType::While:
        body = v ? node->children[0].get() : nullptr;
        break;
      case ConditionalType::Switch:
        body = v < bodies ? node->children[v].get() : nullptr;
        break;
    }
    if (!body) return;
    Timeline& tl = l->rt->timeline();
    const CommandPtr me = self.shared_from_this();
    if (s.conditional == ConditionalType::While && body->nodes.empty()) {
      // On a GPU this spins forever; the simulator stops it.
      std::cerr << "cnuas: a WHILE conditional node with an empty body and a non-zero condition "
                   "never ends; it is stopped\n";
      return;
    }
    const std::vector<CommandPtr> sinks = issue_graph(l, *body, {me}, self.ready_ps);
    if (s.conditional == ConditionalType::While) {
      CommandPtr next = evaluation(l, *node, end);
      tl.add_dependency(end, next);
      tl.submit_after(next, sinks, self.ready_ps);
    } else {
      for (const CommandPtr& sink : sinks) tl.add_dependency(end, sink);
    }
  };
  return eval;
}

// Issues a node after `deps`; returns the command whose completion ends it.
CommandPtr issue_node(const LaunchPtr& l, const GraphNode& n, const std::vector<CommandPtr>& deps,
                      std::uint64_t at) {
  Runtime& rt = *l->rt;
  Timeline& tl = rt.timeline();
  auto issue = [&](CommandPtr c, const std::vector<CommandPtr>& after) {
    tl.submit_after(c, after, at);
    return c;
  };
  const NodeSpec& s = n.spec;
  if (!n.enabled) return issue(marker("disabled node"), deps);
  switch (s.type) {
    case NodeType::Kernel:
      return issue(rt.kernel_command(*s.kernel, s.launch, s.params, s.device), deps);
    case NodeType::Memcpy: {
      CommandPtr last;
      std::vector<CommandPtr> after = deps;
      for (const Runtime::Copy& c : s.copies) {
        last = issue(rt.copy_command(c), after);
        after = {last};
      }
      return last;
    }
    case NodeType::Memset: {
      const MemsetSpec& m = s.memset;
      return issue(rt.memset_command(m.dst, m.pitch, static_cast<int>(m.value), m.width, m.height,
                                     m.element_bytes),
                   deps);
    }
    case NodeType::Host: {
      auto c = marker("host function");
      c->host_work = true;
      const cudaHostFn_t fn = s.fn;
      void* data = s.user_data;
      c->start = [fn, data](Command&) { fn(data); };
      return issue(c, deps);
    }
    case NodeType::WaitEvent: {
      std::vector<CommandPtr> after = deps;
      if (s.event->marker) after.push_back(s.event->marker);
      return issue(marker("event wait"), after);
    }
    case NodeType::EventRecord: {
      auto c = marker("event");
      s.event->marker = c;
      s.event->device = s.device;
      return issue(c, deps);
    }
    case NodeType::MemAlloc: {
      auto c = marker("graph memory allocation");
      const std::uint64_t base = s.allocation->base;
      c->start = [base](Command&) { GraphMemory::get().allocated(base); };
      return issue(c, deps);
    }
    case NodeType::MemFree: {
      auto c = marker("graph memory free");
      const auto base = reinterpret_cast<std::uint64_t>(s.free_ptr);
      c->start = [base](Command&) { GraphMemory::get().freed(base); };
      return issue(c, deps);
    }
    case NodeType::Graph:
      return issue(marker("child graph end"), issue_graph(l, *n.children[0], deps, at));
    case NodeType::Conditional: {
      auto end = marker("conditional end");
      CommandPtr eval = evaluation(l, n, end);
      tl.submit_after(end, {eval}, at);
      tl.submit_after(eval, deps, at);
      return end;
    }
    case NodeType::Empty:
      break;
  }
  return issue(marker("empty node"), deps);
}

// Issues a graph's nodes, its roots after `after`; returns the commands
// whose completion ends the graph.
std::vector<CommandPtr> issue_graph(const LaunchPtr& l, const Graph& g,
                                    const std::vector<CommandPtr>& after, std::uint64_t at) {
  std::vector<GraphNode*> order;
  g.topological(&order);
  std::map<const GraphNode*, CommandPtr> end_of;
  std::vector<CommandPtr> sinks;
  for (const GraphNode* n : order) {
    std::vector<CommandPtr> deps;
    for (const GraphNode* d : n->deps) deps.push_back(end_of.at(d));
    const CommandPtr end = issue_node(l, *n, n->deps.empty() ? after : deps, at);
    end_of[n] = end;
    if (n->dependents.empty()) sinks.push_back(end);
  }
  return order.empty() ? after : sinks;
}

// The conditions to reset (those of the conditional nodes: an update may
// have given a node another graph's handle) and the graph's allocations.
void collect(const Graph& g, std::vector<std::shared_ptr<ConditionHandle>>* defaults,
             std::vector<std::uint64_t>* allocations) {
  for (const auto& n : g.nodes) {
    const std::shared_ptr<ConditionHandle>& h = n->spec.condition;
    if (n->spec.type == NodeType::Conditional && h->assign_default &&
        std::find(defaults->begin(), defaults->end(), h) == defaults->end())
      defaults->push_back(h);
    if (n->spec.type == NodeType::MemAlloc) allocations->push_back(n->spec.allocation->base);
    for (const auto& child : n->children) collect(*child, defaults, allocations);
  }
}

}  // namespace

cudaError_t launch_graph(Runtime& rt, GraphExec& exec, Stream& s) {
  Timeline& tl = rt.timeline();
  auto l = std::make_shared<Launch>();
  l->rt = &rt;
  l->graph = exec.graph;
  // When the launch starts: conditions take their default values, and with
  // cudaGraphInstantiateFlagAutoFreeOnLaunch the last launch's allocations go.
  std::vector<std::shared_ptr<ConditionHandle>> defaults;
  std::vector<std::uint64_t> allocations;
  collect(*exec.graph, &defaults, &allocations);
  if (!(exec.flags & 1)) allocations.clear();
  auto entry = marker("graph");
  entry->start = [defaults, allocations](Command&) {
    for (const auto& h : defaults) h->write(h->default_value);
    for (std::uint64_t base : allocations) GraphMemory::get().freed(base);
  };
  rt.submit(s, entry);
  const std::vector<CommandPtr> sinks = issue_graph(l, *exec.graph, {entry}, tl.host_ps());
  // The end, after every sink, is the stream's last command.
  auto exit = marker("graph end");
  exit->start = [l](Command&) { l->graph.reset(); };
  s.pending_waits = sinks;
  rt.submit(s, exit);
  return cudaSuccess;
}

}  // namespace cnuas::cuda
