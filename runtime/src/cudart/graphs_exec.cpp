// Executable graphs: instantiation, launch, update, per-launch node
// parameters; user objects.
#include "cudart/entry.h"
#include "cudart/graph_params.h"
#include "engine/graph_capture.h"
#include "engine/graph_user_objects.h"

using namespace cnuas::cuda;

namespace {

// The executable graph's copy of a node of its source graph, of the given
// type, in a graph no running launch shares.
GraphNode* exec_node(Runtime& rt, cudaGraphExec_t exec, cudaGraphNode_t node, NodeType type) {
  GraphExec* e = exec_handle(exec);
  const auto* source = reinterpret_cast<const GraphNode*>(node);
  GraphNode* n = e ? e->node(source) : nullptr;
  if (!n || n->spec.type != type) {
    rt.record(cudaErrorInvalidValue);
    return nullptr;
  }
  e->writable();
  return e->node(source);
}

cudaError_t set_exec_spec(Runtime& rt, cudaGraphExec_t exec, cudaGraphNode_t node, NodeType type,
                          cudaError_t made, NodeSpec spec) {
  if (!exec_handle(exec) || !node_handle(node)) return rt.record(cudaErrorInvalidValue);
  if (made != cudaSuccess) return rt.record(made);
  GraphNode* n = exec_node(rt, exec, node, type);
  if (!n) return cudaErrorInvalidValue;
  return rt.record(set_spec(*n, std::move(spec)));
}

cudaError_t instantiate_with(Runtime& rt, cudaGraphExec_t* out, cudaGraph_t graph,
                             unsigned long long flags, cudaGraphNode_t* error_node, int* result) {
  Graph* g = graph_handle(graph);
  if (!out || !g) return rt.record(cudaErrorInvalidValue);
  GraphExec* e = nullptr;
  GraphNode* at = nullptr;
  int r = 0;
  const cudaError_t status = instantiate(rt, *g, flags, &e, &at, &r);
  if (error_node) *error_node = handle_of(at);
  if (result) *result = r;
  if (status != cudaSuccess) return rt.record(status);
  *out = reinterpret_cast<cudaGraphExec_t>(e);
  return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph,
                                 unsigned long long flags) {
  CUDART_ENTER_STICKY();
  return instantiate_with(rt, exec, graph, flags, nullptr, nullptr);
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph,
                                          unsigned long long flags) {
  return cudaGraphInstantiate(exec, graph, flags);
}

cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t* exec, cudaGraph_t graph,
                                           cudaGraphInstantiateParams* p) {
  CUDART_ENTER_STICKY();
  if (!p) return rt.record(cudaErrorInvalidValue);
  if ((p->flags & 2) && !rt.stream(p->uploadStream))
    return rt.record(cudaErrorInvalidResourceHandle);
  return instantiate_with(rt, exec, graph, p->flags, &p->errNode_out, &p->result_out);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  CUDART_ENTER();
  GraphExec* e = exec_handle(exec);
  if (!e) return rt.record(cudaErrorInvalidValue);
  GraphExecs::get().destroy(e);
  return cudaSuccess;
}

cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t exec, unsigned long long* flags) {
  CUDART_ENTER_STICKY();
  GraphExec* e = exec_handle(exec);
  if (!e || !flags) return rt.record(cudaErrorInvalidValue);
  *flags = e->flags;
  return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  GraphExec* e = exec_handle(exec);
  if (!e) return rt.record(cudaErrorInvalidValue);
  Stream* s = rt.stream(stream);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  if (s->capturing()) return rt.record(capture_graph_launch(*s, *e->graph));
  return rt.record(launch_graph(rt, *e, *s));
}

// Uploading prepares the device for the launches; the simulated device needs nothing.
cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  if (!exec_handle(exec)) return rt.record(cudaErrorInvalidValue);
  return rt.stream(stream) ? cudaSuccess : rt.record(cudaErrorInvalidResourceHandle);
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph,
                                cudaGraphExecUpdateResultInfo* info) {
  CUDART_ENTER_STICKY();
  GraphExec* e = exec_handle(exec);
  Graph* g = graph_handle(graph);
  if (!e || !g) return rt.record(cudaErrorInvalidValue);
  return rt.record(update_exec(*e, *g, info));
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaKernelNodeParams* p) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  const cudaError_t made = kernel_node_spec(rt, p, &spec);
  return set_exec_spec(rt, exec, node, NodeType::Kernel, made, std::move(spec));
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaMemcpy3DParms* p) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  const cudaError_t made = p ? copy_spec(rt, *p, &spec) : cudaErrorInvalidValue;
  return set_exec_spec(rt, exec, node, NodeType::Memcpy, made, std::move(spec));
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t exec, cudaGraphNode_t node,
                                               void* dst, const void* src, std::size_t bytes,
                                               cudaMemcpyKind kind) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  const cudaError_t made = copy_1d_spec(rt, dst, src, bytes, kind, &spec);
  return set_exec_spec(rt, exec, node, NodeType::Memcpy, made, std::move(spec));
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                     const void* symbol, const void* src,
                                                     std::size_t bytes, std::size_t offset,
                                                     cudaMemcpyKind kind) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  const cudaError_t made =
      symbol_copy_spec(rt, nullptr, src, symbol, bytes, offset, kind, true, &spec);
  return set_exec_spec(rt, exec, node, NodeType::Memcpy, made, std::move(spec));
}

cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                       void* dst, const void* symbol,
                                                       std::size_t bytes, std::size_t offset,
                                                       cudaMemcpyKind kind) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  const cudaError_t made =
      symbol_copy_spec(rt, dst, nullptr, symbol, bytes, offset, kind, false, &spec);
  return set_exec_spec(rt, exec, node, NodeType::Memcpy, made, std::move(spec));
}

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                             const cudaMemsetParams* p) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  const cudaError_t made = memset_node_spec(rt, p, &spec);
  return set_exec_spec(rt, exec, node, NodeType::Memset, made, std::move(spec));
}

cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                           const cudaHostNodeParams* p) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  const cudaError_t made = host_node_spec(p, &spec);
  return set_exec_spec(rt, exec, node, NodeType::Host, made, std::move(spec));
}

cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                 cudaEvent_t event) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  const cudaError_t made = event_node_spec(rt, NodeType::EventRecord, event, &spec);
  return set_exec_spec(rt, exec, node, NodeType::EventRecord, made, std::move(spec));
}

cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t exec, cudaGraphNode_t node,
                                               cudaEvent_t event) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  const cudaError_t made = event_node_spec(rt, NodeType::WaitEvent, event, &spec);
  return set_exec_spec(rt, exec, node, NodeType::WaitEvent, made, std::move(spec));
}

cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                       cudaGraphNodeParams* p) {
  CUDART_ENTER_STICKY();
  NodeSpec spec;
  const cudaError_t made = spec_from_node_params(rt, p, &spec);
  return set_exec_spec(rt, exec, node, spec.type, made, std::move(spec));
}

// The child graph must have the topology the node's graph had; its parameters replace them.
cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                 cudaGraph_t child) {
  CUDART_ENTER_STICKY();
  Graph* c = graph_handle(child);
  if (!c || !exec_handle(exec)) return rt.record(cudaErrorInvalidValue);
  GraphNode* n = exec_node(rt, exec, node, NodeType::Graph);
  if (!n) return cudaErrorInvalidValue;
  GraphExec scratch;
  scratch.graph = std::shared_ptr<Graph>(n->children.front().get(), [](Graph*) {});
  if (update_exec(scratch, *c, nullptr) != cudaSuccess) return rt.record(cudaErrorInvalidValue);
  return cudaSuccess;
}

cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node, unsigned enabled) {
  CUDART_ENTER_STICKY();
  GraphExec* e = exec_handle(exec);
  GraphNode* n = e ? e->node(reinterpret_cast<const GraphNode*>(node)) : nullptr;
  // Kernel, memcpy and memset nodes only.
  if (!n || static_cast<int>(n->spec.type) > static_cast<int>(NodeType::Memset))
    return rt.record(cudaErrorInvalidValue);
  e->writable();
  e->node(reinterpret_cast<const GraphNode*>(node))->enabled = enabled != 0;
  return cudaSuccess;
}

cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t exec, cudaGraphNode_t node, unsigned* enabled) {
  CUDART_ENTER_STICKY();
  GraphExec* e = exec_handle(exec);
  GraphNode* n = e ? e->node(reinterpret_cast<const GraphNode*>(node)) : nullptr;
  if (!n || !enabled || static_cast<int>(n->spec.type) > static_cast<int>(NodeType::Memset))
    return rt.record(cudaErrorInvalidValue);
  *enabled = n->enabled ? 1 : 0;
  return cudaSuccess;
}

// ---- user objects ----

cudaError_t cudaUserObjectCreate(cudaUserObject_t* out, void* ptr, cudaHostFn_t destroy,
                                 unsigned refs, unsigned flags) {
  CUDART_ENTER_STICKY();
  // cudaUserObjectNoDestructorSync is required.
  if (!out || !destroy || refs == 0 || flags != 1) return rt.record(cudaErrorInvalidValue);
  *out = reinterpret_cast<cudaUserObject_t>(UserObjects::get().create(ptr, destroy, refs));
  return cudaSuccess;
}

cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned count) {
  CUDART_ENTER_STICKY();
  if (!UserObjects::get().exists(object) || count == 0) return rt.record(cudaErrorInvalidValue);
  UserObjects::get().retain(reinterpret_cast<UserObject*>(object), count);
  return cudaSuccess;
}

cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned count) {
  CUDART_ENTER_STICKY();
  if (!UserObjects::get().exists(object) || count == 0 ||
      !UserObjects::get().release(reinterpret_cast<UserObject*>(object), count))
    return rt.record(cudaErrorInvalidValue);
  return cudaSuccess;
}

cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object, unsigned count,
                                      unsigned flags) {
  CUDART_ENTER_STICKY();
  Graph* g = graph_handle(graph);
  if (!g || !UserObjects::get().exists(object) || count == 0 || flags > 1)
    return rt.record(cudaErrorInvalidValue);
  auto* o = reinterpret_cast<UserObject*>(object);
  // cudaGraphUserObjectMove hands over the caller's references instead of adding some.
  if (!(flags & 1)) UserObjects::get().retain(o, count);
  g->user_objects[o] += count;
  return cudaSuccess;
}

cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph, cudaUserObject_t object, unsigned count) {
  CUDART_ENTER_STICKY();
  Graph* g = graph_handle(graph);
  if (!g || !UserObjects::get().exists(object) || count == 0)
    return rt.record(cudaErrorInvalidValue);
  auto* o = reinterpret_cast<UserObject*>(object);
  auto f = g->user_objects.find(o);
  if (f == g->user_objects.end() || f->second < count) return rt.record(cudaErrorInvalidValue);
  if ((f->second -= count) == 0) g->user_objects.erase(f);
  UserObjects::get().release(o, count);
  return cudaSuccess;
}

}  // extern "C"

CUDART_PER_THREAD(_ptsz, cudaError_t, cudaGraphLaunch, (cudaGraphExec_t g, cudaStream_t s), (g, s))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaGraphUpload, (cudaGraphExec_t g, cudaStream_t s), (g, s))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaGraphInstantiateWithParams,
                  (cudaGraphExec_t * e, cudaGraph_t g, cudaGraphInstantiateParams* p), (e, g, p))
