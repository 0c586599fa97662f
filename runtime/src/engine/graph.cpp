#include "engine/graph.h"

#include <algorithm>
#include <cstring>

#include "engine/graph_memory.h"
#include "engine/graph_user_objects.h"

namespace cnuas::cuda {

const char* node_type_name(NodeType t) {
  switch (t) {
    case NodeType::Kernel:
      return "kernel";
    case NodeType::Memcpy:
      return "memcpy";
    case NodeType::Memset:
      return "memset";
    case NodeType::Host:
      return "host";
    case NodeType::Graph:
      return "graph";
    case NodeType::Empty:
      return "empty";
    case NodeType::WaitEvent:
      return "wait event";
    case NodeType::EventRecord:
      return "event record";
    case NodeType::MemAlloc:
      return "mem alloc";
    case NodeType::MemFree:
      return "mem free";
    case NodeType::Conditional:
      return "conditional";
  }
  return "node";
}

// ---- condition handles ----

ConditionHandle::~ConditionHandle() {
  if (address) Runtime::get().memory().free(address);
}

unsigned ConditionHandle::read() const {
  unsigned v = 0;
  std::memcpy(&v, Runtime::get().memory().find(address, 4), 4);
  return v;
}

void ConditionHandle::write(unsigned value) const {
  std::memcpy(Runtime::get().memory().find(address, 4), &value, 4);
}

// ---- nodes, graphs and their registry ----

// Never destroyed: programs destroy graphs from static destructors.
GraphRegistry& GraphRegistry::get() {
  static GraphRegistry* registry = new GraphRegistry();
  return *registry;
}

Graph* GraphRegistry::create() {
  auto g = std::make_unique<Graph>();
  Graph* raw = g.get();
  owned_[raw] = std::move(g);
  return raw;
}

void GraphRegistry::destroy(Graph* g) {
  owned_.erase(g);
}

std::unique_ptr<Graph> GraphRegistry::release(Graph* g) {
  auto f = owned_.find(g);
  if (f == owned_.end()) return nullptr;
  std::unique_ptr<Graph> out = std::move(f->second);
  owned_.erase(f);
  return out;
}

GraphNode::GraphNode() {
  GraphRegistry::get().nodes_.insert(this);
}

GraphNode::~GraphNode() {
  GraphRegistry::get().nodes_.erase(this);
}

Graph::Graph() {
  GraphRegistry::get().graphs_.insert(this);
}

Graph::~Graph() {
  nodes.clear();
  GraphRegistry::get().graphs_.erase(this);
  for (auto& [object, count] : user_objects) UserObjects::get().release(object, count);
}

GraphNode* Graph::add(NodeSpec spec) {
  auto n = std::make_unique<GraphNode>();
  n->graph = this;
  n->id = next_id++;
  n->spec = std::move(spec);
  GraphNode* raw = n.get();
  nodes.push_back(std::move(n));
  return raw;
}

void Graph::remove(GraphNode* node) {
  for (GraphNode* d : node->deps)
    d->dependents.erase(std::remove(d->dependents.begin(), d->dependents.end(), node),
                        d->dependents.end());
  for (GraphNode* d : node->dependents) {
    auto at = std::find(d->deps.begin(), d->deps.end(), node);
    d->dep_data.erase(d->dep_data.begin() + (at - d->deps.begin()));
    d->deps.erase(at);
  }
  for (auto it = cloned_from.begin(); it != cloned_from.end();)
    it = it->second == node ? cloned_from.erase(it) : std::next(it);
  nodes.erase(std::find_if(nodes.begin(), nodes.end(), [node](const std::unique_ptr<GraphNode>& n) {
    return n.get() == node;
  }));
}

GraphNode* Graph::find(const GraphNode* node) const {
  if (!GraphRegistry::get().is_node(node) || node->graph != this) return nullptr;
  return const_cast<GraphNode*>(node);
}

// Kahn's algorithm taking ready nodes in creation order, so that a graph is
// always issued in the same order (and its trace is reproducible).
bool Graph::topological(std::vector<GraphNode*>* order) const {
  std::map<const GraphNode*, std::size_t> waiting;
  std::map<std::uint64_t, GraphNode*> ready;
  for (const auto& n : nodes) {
    waiting[n.get()] = n->deps.size();
    if (n->deps.empty()) ready[n->id] = n.get();
  }
  order->clear();
  while (!ready.empty()) {
    GraphNode* n = ready.begin()->second;
    ready.erase(ready.begin());
    order->push_back(n);
    for (GraphNode* d : n->dependents)
      if (--waiting[d] == 0) ready[d->id] = d;
  }
  return order->size() == nodes.size();
}

// ---- building ----

namespace {

constexpr cudaGraphEdgeData kPlainEdge{};

bool valid_edge_data(const cudaGraphEdgeData* data, std::size_t i) {
  if (!data) return true;
  const cudaGraphEdgeData& e = data[i];
  // Ports other than "the whole upstream node" are a kernel's programmatic ports.
  return e.to_port == 0 && e.from_port <= 2 && e.type <= 1;
}

void link(GraphNode* from, GraphNode* to, const cudaGraphEdgeData& data) {
  to->deps.push_back(from);
  to->dep_data.push_back(data);
  from->dependents.push_back(to);
}

}  // namespace

cudaError_t add_node(Graph& g, const cudaGraphNode_t* deps, const cudaGraphEdgeData* data,
                     std::size_t count, NodeSpec spec, GraphNode** out) {
  if (count && !deps) return cudaErrorInvalidValue;
  std::vector<GraphNode*> from;
  for (std::size_t i = 0; i < count; ++i) {
    GraphNode* d = g.find(reinterpret_cast<const GraphNode*>(deps[i]));
    if (!d || std::count(from.begin(), from.end(), d) || !valid_edge_data(data, i))
      return cudaErrorInvalidValue;
    from.push_back(d);
  }
  GraphNode* n = g.add(std::move(spec));
  for (std::size_t i = 0; i < from.size(); ++i) link(from[i], n, data ? data[i] : kPlainEdge);
  if (out) *out = n;
  return cudaSuccess;
}

cudaError_t add_edges(Graph& g, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                      const cudaGraphEdgeData* data, std::size_t count) {
  if (count && (!from || !to)) return cudaErrorInvalidValue;
  for (std::size_t i = 0; i < count; ++i) {
    GraphNode* a = g.find(reinterpret_cast<const GraphNode*>(from[i]));
    GraphNode* b = g.find(reinterpret_cast<const GraphNode*>(to[i]));
    if (!a || !b || a == b || std::count(b->deps.begin(), b->deps.end(), a) ||
        !valid_edge_data(data, i))
      return cudaErrorInvalidValue;
  }
  for (std::size_t i = 0; i < count; ++i)
    link(g.find(reinterpret_cast<const GraphNode*>(from[i])),
         g.find(reinterpret_cast<const GraphNode*>(to[i])), data ? data[i] : kPlainEdge);
  return cudaSuccess;
}

cudaError_t remove_edges(Graph& g, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                         std::size_t count) {
  if (count && (!from || !to)) return cudaErrorInvalidValue;
  for (std::size_t i = 0; i < count; ++i) {
    GraphNode* a = g.find(reinterpret_cast<const GraphNode*>(from[i]));
    GraphNode* b = g.find(reinterpret_cast<const GraphNode*>(to[i]));
    if (!a || !b || !std::count(b->deps.begin(), b->deps.end(), a)) return cudaErrorInvalidValue;
  }
  for (std::size_t i = 0; i < count; ++i) {
    GraphNode* a = g.find(reinterpret_cast<const GraphNode*>(from[i]));
    GraphNode* b = g.find(reinterpret_cast<const GraphNode*>(to[i]));
    auto at = std::find(b->deps.begin(), b->deps.end(), a);
    b->dep_data.erase(b->dep_data.begin() + (at - b->deps.begin()));
    b->deps.erase(at);
    a->dependents.erase(std::find(a->dependents.begin(), a->dependents.end(), b));
  }
  return cudaSuccess;
}

namespace {

void clone_nodes(const Graph& from, Graph& to, Graph& top) {
  std::map<const GraphNode*, GraphNode*> copy;
  for (const auto& n : from.nodes) {
    GraphNode* c = to.add(n->spec);
    c->enabled = n->enabled;
    for (const auto& child : n->children) {
      auto g = std::make_unique<Graph>();
      g->parent = c;
      clone_nodes(*child, *g, top);
      c->body_handles.push_back(reinterpret_cast<cudaGraph_t>(g.get()));
      c->children.push_back(std::move(g));
    }
    copy[n.get()] = c;
    top.cloned_from[n.get()] = c;
  }
  for (const auto& n : from.nodes)
    for (std::size_t i = 0; i < n->deps.size(); ++i) {
      GraphNode* c = copy[n.get()];
      c->deps.push_back(copy[n->deps[i]]);
      c->dep_data.push_back(n->dep_data[i]);
    }
  // Dependents in the original's order.
  for (const auto& n : from.nodes)
    for (const GraphNode* d : n->dependents) copy[n.get()]->dependents.push_back(copy[d]);
  to.next_id = from.next_id;
  to.handles = from.handles;
  for (const auto& [object, count] : from.user_objects) {
    UserObjects::get().retain(object, count);
    to.user_objects[object] += count;
  }
}

}  // namespace

void clone_into(const Graph& from, Graph& to) {
  clone_nodes(from, to, to);
}

std::unique_ptr<Graph> clone_graph(const Graph& g) {
  auto c = std::make_unique<Graph>();
  clone_nodes(g, *c, *c);
  return c;
}

bool contains(const Graph& g, NodeType type) {
  for (const auto& n : g.nodes) {
    if (n->spec.type == type) return true;
    for (const auto& child : n->children)
      if (contains(*child, type)) return true;
  }
  return false;
}

cudaError_t add_child_graph(Graph& g, const cudaGraphNode_t* deps, const cudaGraphEdgeData* data,
                            std::size_t count, Graph& child, bool move, GraphNode** out) {
  // A child graph may not hold conditional nodes, nor (unless moved) memory nodes.
  if (&child == &g || contains(child, NodeType::Conditional) || child.parent || child.capturing)
    return cudaErrorInvalidValue;
  if (!move && (contains(child, NodeType::MemAlloc) || contains(child, NodeType::MemFree)))
    return cudaErrorNotSupported;
  NodeSpec spec;
  spec.type = NodeType::Graph;
  GraphNode* n = nullptr;
  if (const cudaError_t e = add_node(g, deps, data, count, std::move(spec), &n)) return e;
  std::unique_ptr<Graph> owned;
  if (move) {
    owned = GraphRegistry::get().release(&child);
    if (!owned) {
      g.remove(n);
      return cudaErrorInvalidValue;
    }
  } else {
    owned = clone_graph(child);
    owned->cloned_from.clear();
  }
  owned->parent = n;
  n->body_handles.push_back(reinterpret_cast<cudaGraph_t>(owned.get()));
  n->children.push_back(std::move(owned));
  if (out) *out = n;
  return cudaSuccess;
}

namespace {

// The handle, created for `g` or a graph that contains it; null when none.
std::shared_ptr<ConditionHandle> find_condition(const Graph& g, std::uint64_t handle) {
  for (const Graph* at = &g; at; at = at->parent ? at->parent->graph : nullptr)
    for (const auto& h : at->handles)
      if (h->address == handle) return h;
  return nullptr;
}

}  // namespace

cudaError_t add_conditional(Graph& g, const cudaGraphNode_t* deps, const cudaGraphEdgeData* data,
                            std::size_t count, std::uint64_t handle, int type, unsigned size,
                            GraphNode** out) {
  NodeSpec spec;
  spec.type = NodeType::Conditional;
  spec.condition = find_condition(g, handle);
  if (!spec.condition) return cudaErrorInvalidValue;
  const bool sized = (type == 0 && (size == 1 || size == 2)) || (type == 1 && size == 1) ||
                     (type == 2 && size >= 1);
  if (!sized) return cudaErrorInvalidValue;
  spec.conditional = static_cast<ConditionalType>(type);
  GraphNode* n = nullptr;
  if (const cudaError_t e = add_node(g, deps, data, count, std::move(spec), &n)) return e;
  for (unsigned b = 0; b < size; ++b) {
    auto body = std::make_unique<Graph>();
    body->parent = n;
    n->body_handles.push_back(reinterpret_cast<cudaGraph_t>(body.get()));
    n->children.push_back(std::move(body));
  }
  if (out) *out = n;
  return cudaSuccess;
}

cudaError_t add_mem_alloc(Runtime& rt, Graph& g, const cudaGraphNode_t* deps,
                          const cudaGraphEdgeData* data, std::size_t count, std::size_t bytes,
                          int device, GraphNode** out, void** address) {
  if (bytes == 0 || device < 0 || device >= rt.device_count() || !address)
    return cudaErrorInvalidValue;
  NodeSpec spec;
  spec.type = NodeType::MemAlloc;
  spec.device = device;
  for (std::size_t i = 0; i < count; ++i)
    if (!deps || !g.find(reinterpret_cast<const GraphNode*>(deps[i]))) return cudaErrorInvalidValue;
  if (const cudaError_t e = GraphMemory::get().reserve(rt, bytes, device, &spec.allocation))
    return e;
  const std::uint64_t base = spec.allocation->base;
  if (const cudaError_t e = add_node(g, deps, data, count, std::move(spec), out)) return e;
  *address = reinterpret_cast<void*>(base);
  return cudaSuccess;
}

cudaError_t add_mem_free(Graph& g, const cudaGraphNode_t* deps, const cudaGraphEdgeData* data,
                         std::size_t count, void* ptr, GraphNode** out) {
  if (!GraphMemory::get().is_graph_memory(reinterpret_cast<std::uint64_t>(ptr)))
    return cudaErrorInvalidValue;
  NodeSpec spec;
  spec.type = NodeType::MemFree;
  spec.free_ptr = ptr;
  return add_node(g, deps, data, count, std::move(spec), out);
}

cudaError_t create_condition(Graph& g, unsigned default_value, unsigned flags,
                             std::uint64_t* handle) {
  if (!handle || flags > 1) return cudaErrorInvalidValue;
  auto h = std::make_shared<ConditionHandle>();
  h->address = Runtime::get().memory().allocate(4, 4);
  h->default_value = default_value;
  h->assign_default = flags & 1;
  h->graph = &g;
  h->write(default_value);
  g.handles.push_back(h);
  *handle = h->address;
  return cudaSuccess;
}

}  // namespace cnuas::cuda
