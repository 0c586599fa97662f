// Graphs built explicitly: creation, nodes of every kind, edges, queries,
// clones, DOT output, conditional handles (node parameters: graph_nodes.cpp).
#include <algorithm>

#include "cudart/entry.h"
#include "cudart/graph_params.h"

using namespace cnuas::cuda;

namespace {

// Adds a node made from `spec` once the spec was made without error.
cudaError_t add(Runtime& rt, cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* deps,
                std::size_t count, cudaError_t made, NodeSpec spec) {
  Graph* g = graph_handle(graph);
  if (!out || !g) return rt.record(cudaErrorInvalidValue);
  if (made != cudaSuccess) return rt.record(made);
  GraphNode* n = nullptr;
  if (const cudaError_t e = add_node(*g, deps, nullptr, count, std::move(spec), &n))
    return rt.record(e);
  *out = handle_of(n);
  return cudaSuccess;
}

std::vector<cudaGraphNode_t> handles(const std::vector<GraphNode*>& nodes) {
  std::vector<cudaGraphNode_t> out;
  for (GraphNode* n : nodes) out.push_back(handle_of(n));
  return out;
}

}  // namespace

extern "C" {

cudaError_t cudaGraphCreate(cudaGraph_t* graph, unsigned flags) {
  CUDART_ENTER_STICKY();
  if (!graph || flags != 0) return rt.record(cudaErrorInvalidValue);
  *graph = reinterpret_cast<cudaGraph_t>(GraphRegistry::get().create());
  return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  CUDART_ENTER();
  Graph* g = graph_handle(graph);
  // Not a child graph or body, nor a graph a capture is building.
  if (!g || !GraphRegistry::get().owns(g) || g->capturing) return rt.record(cudaErrorInvalidValue);
  GraphRegistry::get().destroy(g);
  return cudaSuccess;
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* out, cudaGraph_t graph,
                                   const cudaGraphNode_t* deps, std::size_t count,
                                   const cudaKernelNodeParams* p) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  const cudaError_t made = kernel_node_spec(rt, p, &spec);
  return add(rt, out, graph, deps, count, made, std::move(spec));
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* out, cudaGraph_t graph,
                                   const cudaGraphNode_t* deps, std::size_t count,
                                   const cudaMemcpy3DParms* p) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  const cudaError_t made = p ? copy_spec(rt, *p, &spec) : cudaErrorInvalidValue;
  return add(rt, out, graph, deps, count, made, std::move(spec));
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* out, cudaGraph_t graph,
                                     const cudaGraphNode_t* deps, std::size_t count, void* dst,
                                     const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  const cudaError_t made = copy_1d_spec(rt, dst, src, bytes, kind, &spec);
  return add(rt, out, graph, deps, count, made, std::move(spec));
}

cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t* out, cudaGraph_t graph,
                                           const cudaGraphNode_t* deps, std::size_t count,
                                           const void* symbol, const void* src, std::size_t bytes,
                                           std::size_t offset, cudaMemcpyKind kind) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  const cudaError_t made =
      symbol_copy_spec(rt, nullptr, src, symbol, bytes, offset, kind, true, &spec);
  return add(rt, out, graph, deps, count, made, std::move(spec));
}

cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t* out, cudaGraph_t graph,
                                             const cudaGraphNode_t* deps, std::size_t count,
                                             void* dst, const void* symbol, std::size_t bytes,
                                             std::size_t offset, cudaMemcpyKind kind) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  const cudaError_t made =
      symbol_copy_spec(rt, dst, nullptr, symbol, bytes, offset, kind, false, &spec);
  return add(rt, out, graph, deps, count, made, std::move(spec));
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* out, cudaGraph_t graph,
                                   const cudaGraphNode_t* deps, std::size_t count,
                                   const cudaMemsetParams* p) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  const cudaError_t made = memset_node_spec(rt, p, &spec);
  return add(rt, out, graph, deps, count, made, std::move(spec));
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* out, cudaGraph_t graph,
                                 const cudaGraphNode_t* deps, std::size_t count,
                                 const cudaHostNodeParams* p) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  const cudaError_t made = host_node_spec(p, &spec);
  return add(rt, out, graph, deps, count, made, std::move(spec));
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* out, cudaGraph_t graph,
                                  const cudaGraphNode_t* deps, std::size_t count) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  spec.type = NodeType::Empty;
  return add(rt, out, graph, deps, count, cudaSuccess, std::move(spec));
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t* out, cudaGraph_t graph,
                                        const cudaGraphNode_t* deps, std::size_t count,
                                        cudaEvent_t event) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  const cudaError_t made = event_node_spec(rt, NodeType::EventRecord, event, &spec);
  return add(rt, out, graph, deps, count, made, std::move(spec));
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t* out, cudaGraph_t graph,
                                      const cudaGraphNode_t* deps, std::size_t count,
                                      cudaEvent_t event) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  const cudaError_t made = event_node_spec(rt, NodeType::WaitEvent, event, &spec);
  return add(rt, out, graph, deps, count, made, std::move(spec));
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* out, cudaGraph_t graph,
                                       const cudaGraphNode_t* deps, std::size_t count,
                                       cudaGraph_t child) {
  CUDART_ENTER_STICKY();
  Graph* g = graph_handle(graph);
  Graph* c = graph_handle(child);
  if (!out || !g || !c) return rt.record(cudaErrorInvalidValue);
  GraphNode* n = nullptr;
  if (const cudaError_t e = add_child_graph(*g, deps, nullptr, count, *c, false, &n))
    return rt.record(e);
  *out = handle_of(n);
  return cudaSuccess;
}

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* out, cudaGraph_t graph,
                                     const cudaGraphNode_t* deps, std::size_t count,
                                     cudaMemAllocNodeParams* p) {
  CUDART_ENTER_STICKY();
  Graph* g = graph_handle(graph);
  // Pinned device memory at a device location (cudaMemLocationTypeDevice), no IPC handles.
  if (!out || !g || !p || p->poolProps.allocType != 1 || p->poolProps.location.type != 1 ||
      p->poolProps.handleTypes != 0)
    return rt.record(cudaErrorInvalidValue);
  GraphNode* n = nullptr;
  if (const cudaError_t e = add_mem_alloc(rt, *g, deps, nullptr, count, p->bytesize,
                                          p->poolProps.location.id, &n, &p->dptr))
    return rt.record(e);
  *out = handle_of(n);
  return cudaSuccess;
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* out, cudaGraph_t graph,
                                    const cudaGraphNode_t* deps, std::size_t count, void* ptr) {
  CUDART_ENTER_STICKY();
  Graph* g = graph_handle(graph);
  if (!out || !g) return rt.record(cudaErrorInvalidValue);
  GraphNode* n = nullptr;
  if (const cudaError_t e = add_mem_free(*g, deps, nullptr, count, ptr, &n)) return rt.record(e);
  *out = handle_of(n);
  return cudaSuccess;
}

cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* out, cudaGraph_t graph,
                                             unsigned default_value, unsigned flags) {
  CUDART_ENTER_STICKY();
  Graph* g = graph_handle(graph);
  std::uint64_t handle = 0;
  if (!g || !out) return rt.record(cudaErrorInvalidValue);
  if (const cudaError_t e = create_condition(*g, default_value, flags, &handle))
    return rt.record(e);
  *out = handle;
  return cudaSuccess;
}

// The generic form: every type above, and conditional nodes.
cudaError_t cudaGraphAddNode(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* deps,
                             const cudaGraphEdgeData* data, std::size_t count,
                             cudaGraphNodeParams* p) {
  CUDART_ENTER_STICKY();
  Graph* g = graph_handle(graph);
  if (!out || !g || !p) return rt.record(cudaErrorInvalidValue);
  GraphNode* n = nullptr;
  cudaError_t e = cudaSuccess;
  switch (p->type) {
    case static_cast<int>(NodeType::Graph): {
      Graph* c = graph_handle(p->graph.graph);
      e = c ? add_child_graph(*g, deps, data, count, *c, p->graph.ownership == 1, &n)
            : cudaErrorInvalidValue;
      break;
    }
    case static_cast<int>(NodeType::Empty): {
      NodeSpec spec;
      spec.type = NodeType::Empty;
      e = add_node(*g, deps, data, count, std::move(spec), &n);
      break;
    }
    case static_cast<int>(NodeType::MemAlloc): {
      cudaMemAllocNodeParams& a = p->alloc;
      e = a.poolProps.allocType != 1 || a.poolProps.location.type != 1 ||
                  a.poolProps.handleTypes != 0
              ? cudaErrorInvalidValue
              : add_mem_alloc(rt, *g, deps, data, count, a.bytesize, a.poolProps.location.id, &n,
                              &a.dptr);
      break;
    }
    case static_cast<int>(NodeType::MemFree):
      e = add_mem_free(*g, deps, data, count, p->free, &n);
      break;
    case static_cast<int>(NodeType::Conditional): {
      cudaConditionalNodeParams& c = p->conditional;
      e = add_conditional(*g, deps, data, count, c.handle, c.type, c.size, &n);
      if (e == cudaSuccess) c.phGraph_out = n->body_handles.data();  // owned by the node
      break;
    }
    default: {
      NodeSpec spec;
      e = spec_from_node_params(rt, p, &spec);
      if (e == cudaSuccess) e = add_node(*g, deps, data, count, std::move(spec), &n);
    }
  }
  if (e != cudaSuccess) return rt.record(e);
  *out = handle_of(n);
  return cudaSuccess;
}

// ---- edges ----

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                     const cudaGraphNode_t* to, const cudaGraphEdgeData* data,
                                     std::size_t count) {
  CUDART_ENTER_STICKY();
  Graph* g = graph_handle(graph);
  if (!g) return rt.record(cudaErrorInvalidValue);
  return rt.record(add_edges(*g, from, to, data, count));
}

cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                        const cudaGraphNode_t* to, const cudaGraphEdgeData*,
                                        std::size_t count) {
  CUDART_ENTER_STICKY();
  Graph* g = graph_handle(graph);
  if (!g) return rt.record(cudaErrorInvalidValue);
  return rt.record(remove_edges(*g, from, to, count));
}

cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
  CUDART_ENTER_STICKY();
  GraphNode* n = node_handle(node);
  if (!n) return rt.record(cudaErrorInvalidValue);
  n->graph->remove(n);
  return cudaSuccess;
}

// ---- queries ----

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, std::size_t* count) {
  CUDART_ENTER_STICKY();
  Graph* g = graph_handle(graph);
  if (!g || !count) return rt.record(cudaErrorInvalidValue);
  std::vector<cudaGraphNode_t> all;
  for (const auto& n : g->nodes) all.push_back(handle_of(n.get()));
  fill(all, nodes, count);
  return cudaSuccess;
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, std::size_t* count) {
  CUDART_ENTER_STICKY();
  Graph* g = graph_handle(graph);
  if (!g || !count) return rt.record(cudaErrorInvalidValue);
  std::vector<cudaGraphNode_t> roots;
  for (const auto& n : g->nodes)
    if (n->deps.empty()) roots.push_back(handle_of(n.get()));
  fill(roots, nodes, count);
  return cudaSuccess;
}

cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to,
                              cudaGraphEdgeData* data, std::size_t* count) {
  CUDART_ENTER_STICKY();
  Graph* g = graph_handle(graph);
  if (!g || !count || (!from != !to) || (data && !from)) return rt.record(cudaErrorInvalidValue);
  std::vector<cudaGraphNode_t> a, b;
  std::vector<cudaGraphEdgeData> d;
  for (const auto& n : g->nodes)
    for (std::size_t i = 0; i < n->deps.size(); ++i) {
      a.push_back(handle_of(n->deps[i]));
      b.push_back(handle_of(n.get()));
      d.push_back(n->dep_data[i]);
    }
  std::size_t requested = *count;
  fill(a, from, count);
  if (to) fill(b, to, &requested);
  if (data) {
    requested = *count;
    fill(d, data, &requested);
  }
  return cudaSuccess;
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, int* type) {
  CUDART_ENTER_STICKY();
  GraphNode* n = node_handle(node);
  if (!n || !type) return rt.record(cudaErrorInvalidValue);
  *type = static_cast<int>(n->spec.type);
  return cudaSuccess;
}

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t* deps,
                                         cudaGraphEdgeData* data, std::size_t* count) {
  CUDART_ENTER_STICKY();
  GraphNode* n = node_handle(node);
  if (!n || !count || (data && !deps)) return rt.record(cudaErrorInvalidValue);
  std::size_t requested = *count;
  fill(handles(n->deps), deps, count);
  if (data) fill(n->dep_data, data, &requested);
  return cudaSuccess;
}

cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t* nodes,
                                           cudaGraphEdgeData* data, std::size_t* count) {
  CUDART_ENTER_STICKY();
  GraphNode* n = node_handle(node);
  if (!n || !count || (data && !nodes)) return rt.record(cudaErrorInvalidValue);
  std::vector<cudaGraphEdgeData> d;
  for (const GraphNode* to : n->dependents) {
    const auto at = std::find(to->deps.begin(), to->deps.end(), n) - to->deps.begin();
    d.push_back(to->dep_data[static_cast<std::size_t>(at)]);
  }
  std::size_t requested = *count;
  fill(handles(n->dependents), nodes, count);
  if (data) fill(d, data, &requested);
  return cudaSuccess;
}

cudaError_t cudaGraphClone(cudaGraph_t* out, cudaGraph_t graph) {
  CUDART_ENTER_STICKY();
  Graph* g = graph_handle(graph);
  if (!out || !g) return rt.record(cudaErrorInvalidValue);
  Graph* c = GraphRegistry::get().create();
  clone_into(*g, *c);
  *out = reinterpret_cast<cudaGraph_t>(c);
  return cudaSuccess;
}

cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t* out, cudaGraphNode_t original,
                                     cudaGraph_t clone) {
  CUDART_ENTER_STICKY();
  Graph* c = graph_handle(clone);
  if (!out || !c) return rt.record(cudaErrorInvalidValue);
  auto f = c->cloned_from.find(reinterpret_cast<const GraphNode*>(original));
  if (f == c->cloned_from.end()) return rt.record(cudaErrorInvalidValue);
  *out = handle_of(f->second);
  return cudaSuccess;
}

cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char* path, unsigned flags) {
  CUDART_ENTER_STICKY();
  Graph* g = graph_handle(graph);
  if (!g || !path) return rt.record(cudaErrorInvalidValue);
  return write_dot(*g, path, flags) ? cudaSuccess : rt.record(cudaErrorOperatingSystem);
}

}  // extern "C"
