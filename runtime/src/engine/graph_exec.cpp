// Instantiation and update of executable graphs.
#include "engine/graph_exec.h"

#include <algorithm>

namespace cnuas::cuda {

GraphNode* GraphExec::node(const GraphNode* source) const {
  auto f = node_of.find(source);
  return f == node_of.end() ? nullptr : f->second;
}

Graph& GraphExec::writable() {
  if (conditional && graph.use_count() > 1) {
    std::shared_ptr<Graph> copy = clone_graph(*graph);
    for (auto& [source, node] : node_of) node = copy->cloned_from.at(node);
    copy->cloned_from.clear();
    graph = std::move(copy);
  }
  return *graph;
}

// Never destroyed: programs destroy graphs from static destructors.
GraphExecs& GraphExecs::get() {
  static GraphExecs* execs = new GraphExecs();
  return *execs;
}

GraphExec* GraphExecs::add(std::unique_ptr<GraphExec> e) {
  GraphExec* raw = e.get();
  execs_[raw] = std::move(e);
  return raw;
}

void GraphExecs::destroy(GraphExec* e) {
  execs_.erase(e);
}

namespace {

constexpr int kInstantiateError = 1, kInvalidStructure = 2, kConditionalHandleUnused = 5;

// The first node of a cycle, at any depth; null when every graph is acyclic.
bool acyclic(const Graph& g, GraphNode** at) {
  std::vector<GraphNode*> order;
  if (!g.topological(&order)) {
    for (const auto& n : g.nodes)
      if (std::find(order.begin(), order.end(), n.get()) == order.end()) {
        *at = n.get();
        break;
      }
    return false;
  }
  for (const auto& n : g.nodes)
    for (const auto& child : n->children)
      if (!acyclic(*child, at)) return false;
  return true;
}

void collect_handles(const Graph& g, std::vector<const ConditionHandle*>* created,
                     std::vector<const ConditionHandle*>* used) {
  for (const auto& h : g.handles) created->push_back(h.get());
  for (const auto& n : g.nodes) {
    if (n->spec.type == NodeType::Conditional) used->push_back(n->spec.condition.get());
    for (const auto& child : n->children) collect_handles(*child, created, used);
  }
}

}  // namespace

cudaError_t instantiate(Runtime&, Graph& g, unsigned long long flags, GraphExec** out,
                        GraphNode** error_node, int* result) {
  *error_node = nullptr;
  if (flags & ~0xfull) {
    *result = kInstantiateError;
    return cudaErrorInvalidValue;
  }
  if (!acyclic(g, error_node)) {
    *result = kInvalidStructure;
    return cudaErrorInvalidValue;
  }
  std::vector<const ConditionHandle*> created, used;
  collect_handles(g, &created, &used);
  for (const ConditionHandle* h : created)
    if (std::find(used.begin(), used.end(), h) == used.end()) {
      *result = kConditionalHandleUnused;
      return cudaErrorInvalidValue;
    }
  auto exec = std::make_unique<GraphExec>();
  exec->graph = clone_graph(g);
  exec->node_of = std::move(exec->graph->cloned_from);
  exec->graph->cloned_from.clear();
  exec->flags = flags;
  exec->conditional = contains(g, NodeType::Conditional);
  *out = GraphExecs::get().add(std::move(exec));
  *result = 0;
  return cudaSuccess;
}

// ---- update ----

namespace {

constexpr int kUpdateTopologyChanged = 2, kUpdateNodeTypeChanged = 3, kUpdateParametersChanged = 5,
              kUpdateNotSupported = 6;

struct Mismatch {
  int result = 0;
  const GraphNode* node = nullptr;
  const GraphNode* from = nullptr;
};

std::size_t index_of(const Graph& g, const GraphNode* n) {
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].get() == n) return i;
  return g.nodes.size();
}

// Pairs the nodes of the executable graph and of the new graph in creation
// order; fails on the first difference an update cannot make.
bool pair_nodes(const Graph& old_graph, const Graph& new_graph,
                std::vector<std::pair<GraphNode*, const GraphNode*>>* pairs, Mismatch* m) {
  if (old_graph.nodes.size() != new_graph.nodes.size()) {
    m->result = kUpdateTopologyChanged;
    return false;
  }
  for (std::size_t i = 0; i < new_graph.nodes.size(); ++i) {
    GraphNode* a = old_graph.nodes[i].get();
    const GraphNode* b = new_graph.nodes[i].get();
    if (a->spec.type != b->spec.type) {
      *m = {kUpdateNodeTypeChanged, b, nullptr};
      return false;
    }
    std::vector<std::size_t> da, db;
    for (const GraphNode* d : a->deps) da.push_back(index_of(old_graph, d));
    for (const GraphNode* d : b->deps) db.push_back(index_of(new_graph, d));
    std::sort(da.begin(), da.end());
    std::sort(db.begin(), db.end());
    if (da != db) {
      *m = {kUpdateTopologyChanged, b, b->deps.empty() ? nullptr : b->deps.front()};
      return false;
    }
    const NodeSpec &sa = a->spec, &sb = b->spec;
    if ((sa.type == NodeType::MemAlloc && sa.allocation != sb.allocation) ||
        (sa.type == NodeType::MemFree && sa.free_ptr != sb.free_ptr)) {
      *m = {kUpdateNotSupported, b, nullptr};
      return false;
    }
    if (sa.device != sb.device ||
        (sa.type == NodeType::Memcpy && sa.copies.size() != sb.copies.size()) ||
        (sa.type == NodeType::Conditional &&
         (sa.conditional != sb.conditional || a->children.size() != b->children.size()))) {
      *m = {kUpdateParametersChanged, b, nullptr};
      return false;
    }
    pairs->push_back({a, b});
    for (std::size_t c = 0; c < a->children.size(); ++c)
      if (!pair_nodes(*a->children[c], *b->children[c], pairs, m)) return false;
  }
  return true;
}

}  // namespace

cudaError_t update_exec(GraphExec& exec, Graph& g, cudaGraphExecUpdateResultInfo* info) {
  std::vector<std::pair<GraphNode*, const GraphNode*>> pairs;
  Mismatch m;
  if (!pair_nodes(*exec.graph, g, &pairs, &m)) {
    if (info) {
      info->result = m.result;
      info->errorNode = reinterpret_cast<cudaGraphNode_t>(const_cast<GraphNode*>(m.node));
      info->errorFromNode = reinterpret_cast<cudaGraphNode_t>(const_cast<GraphNode*>(m.from));
    }
    return cudaErrorGraphExecUpdateFailure;
  }
  // Pair again on the copy, if one was made, whose nodes the parameters go to.
  const Graph* before = exec.graph.get();
  exec.writable();
  if (exec.graph.get() != before) {
    pairs.clear();
    pair_nodes(*exec.graph, g, &pairs, &m);
  }
  for (auto& [node, from] : pairs) {
    node->spec = from->spec;
    exec.node_of[from] = node;
  }
  if (info) *info = {0, nullptr, nullptr};
  return cudaSuccess;
}

}  // namespace cnuas::cuda
