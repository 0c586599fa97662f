// The driver API's executable graphs, stream capture, user objects and graph
// memory attributes, on the engine the runtime API uses.
#include "driver/driver_entry.h"
#include "driver/driver_graph_handles.h"
#include "engine/graph_capture.h"
#include "engine/graph_memory.h"
#include "engine/graph_user_objects.h"

using namespace cnuas::cuda;
using namespace cnuas::cuda::driver;

extern "C" {

// ---- executable graphs ----

CUresult cuGraphInstantiateWithFlags(CUgraphExec* exec, CUgraph graph, unsigned long long flags) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Graph* g = graph_of(graph);
  if (!exec || !g) return kInvalidValue;
  GraphExec* e = nullptr;
  GraphNode* at = nullptr;
  int result = 0;
  if (const cudaError_t err = instantiate(rt, *g, flags, &e, &at, &result)) return driver_code(err);
  *exec = reinterpret_cast<CUgraphExec>(e);
  return kSuccess;
}

CUresult cuGraphInstantiateWithParams(CUgraphExec* exec, CUgraph graph,
                                      cudaGraphInstantiateParams* p) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Graph* g = graph_of(graph);
  if (!exec || !g || !p) return kInvalidValue;
  GraphExec* e = nullptr;
  GraphNode* at = nullptr;
  const cudaError_t err = instantiate(rt, *g, p->flags, &e, &at, &p->result_out);
  p->errNode_out = reinterpret_cast<cudaGraphNode_t>(at);
  if (err != cudaSuccess) return driver_code(err);
  *exec = reinterpret_cast<CUgraphExec>(e);
  return kSuccess;
}

CUresult cuGraphExecDestroy(CUgraphExec exec) {
  DRIVER_ENTER();
  GraphExec* e = exec_of(exec);
  if (!e) return kInvalidValue;
  GraphExecs::get().destroy(e);
  return kSuccess;
}

CUresult cuGraphExecGetFlags(CUgraphExec exec, unsigned long long* flags) {
  DRIVER_ENTER();
  GraphExec* e = exec_of(exec);
  if (!e || !flags) return kInvalidValue;
  *flags = e->flags;
  return kSuccess;
}

CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  GraphExec* e = exec_of(exec);
  if (!e) return kInvalidValue;
  Stream* s = stream_of(rt, stream);
  if (!s) return kInvalidHandle;
  if (s->capturing()) return driver_code(capture_graph_launch(*s, *e->graph));
  return driver_code(launch_graph(rt, *e, *s));
}

CUresult cuGraphUpload(CUgraphExec exec, CUstream stream) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  if (!exec_of(exec)) return kInvalidValue;
  return stream_of(rt, stream) ? kSuccess : kInvalidHandle;
}

CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec exec, CUgraphNode node,
                                           const CUDA_KERNEL_NODE_PARAMS_v2* p) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  GraphExec* e = exec_of(exec);
  const auto* source = reinterpret_cast<const GraphNode*>(node);
  GraphNode* n = e ? e->node(source) : nullptr;
  NodeSpec spec;
  if (!n || n->spec.type != NodeType::Kernel) return kInvalidValue;
  if (const cudaError_t err = kernel_spec_of(rt, p, &spec)) return driver_code(err);
  e->writable();
  n = e->node(source);
  spec.launch.cooperative = n->spec.launch.cooperative;
  spec.launch.cluster = n->spec.launch.cluster;
  spec.launch.access_policy = n->spec.launch.access_policy;
  n->spec = std::move(spec);
  return kSuccess;
}

CUresult cuGraphExecUpdate_v2(CUgraphExec exec, CUgraph graph,
                              cudaGraphExecUpdateResultInfo* info) {
  DRIVER_ENTER();
  GraphExec* e = exec_of(exec);
  Graph* g = graph_of(graph);
  if (!e || !g) return kInvalidValue;
  return driver_code(update_exec(*e, *g, info));
}

CUresult cuGraphNodeSetEnabled(CUgraphExec exec, CUgraphNode node, unsigned enabled) {
  DRIVER_ENTER();
  GraphExec* e = exec_of(exec);
  const auto* source = reinterpret_cast<const GraphNode*>(node);
  GraphNode* n = e ? e->node(source) : nullptr;
  if (!n || static_cast<int>(n->spec.type) > static_cast<int>(NodeType::Memset))
    return kInvalidValue;
  e->writable();
  e->node(source)->enabled = enabled != 0;
  return kSuccess;
}

CUresult cuGraphNodeGetEnabled(CUgraphExec exec, CUgraphNode node, unsigned* enabled) {
  DRIVER_ENTER();
  GraphExec* e = exec_of(exec);
  GraphNode* n = e ? e->node(reinterpret_cast<const GraphNode*>(node)) : nullptr;
  if (!n || !enabled || static_cast<int>(n->spec.type) > static_cast<int>(NodeType::Memset))
    return kInvalidValue;
  *enabled = n->enabled ? 1 : 0;
  return kSuccess;
}

// ---- stream capture ----

CUresult cuStreamBeginCapture_v2(CUstream stream, int mode) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Stream* s = stream_of(rt, stream);
  if (!s) return kInvalidHandle;
  return driver_code(begin_capture(*s, mode, nullptr, nullptr, nullptr, 0));
}

// The CUDA 10.0 form: global mode.
CUresult cuStreamBeginCapture(CUstream stream) {
  return cuStreamBeginCapture_v2(stream, cudaStreamCaptureModeGlobal);
}

CUresult cuStreamBeginCaptureToGraph(CUstream stream, CUgraph graph, const CUgraphNode* deps,
                                     const cudaGraphEdgeData* data, std::size_t count, int mode) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Stream* s = stream_of(rt, stream);
  Graph* g = graph_of(graph);
  if (!s) return kInvalidHandle;
  if (!g || g->capturing) return kInvalidValue;
  return driver_code(begin_capture(*s, mode, g, deps_of(deps), data, count));
}

CUresult cuStreamEndCapture(CUstream stream, CUgraph* graph) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Stream* s = stream_of(rt, stream);
  if (!s) return kInvalidHandle;
  if (!graph) return kInvalidValue;
  Graph* g = nullptr;
  const cudaError_t e = end_capture(*s, &g);
  if (e == cudaSuccess || e == cudaErrorStreamCaptureInvalidated ||
      e == cudaErrorStreamCaptureUnjoined)
    *graph = reinterpret_cast<CUgraph>(g);
  return driver_code(e);
}

CUresult cuStreamIsCapturing(CUstream stream, cudaStreamCaptureStatus* status) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Stream* s = stream_of(rt, stream);
  if (!s) return kInvalidHandle;
  if (!status) return kInvalidValue;
  *status = capture_status(*s);
  return kSuccess;
}

CUresult cuStreamGetCaptureInfo_v3(CUstream stream, cudaStreamCaptureStatus* status,
                                   unsigned long long* id, CUgraph* graph, const CUgraphNode** deps,
                                   const cudaGraphEdgeData** data, std::size_t* count) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Stream* s = stream_of(rt, stream);
  if (!s) return kInvalidHandle;
  return driver_code(capture_info(*s, status, id, reinterpret_cast<cudaGraph_t*>(graph),
                                  reinterpret_cast<const cudaGraphNode_t**>(deps), data, count));
}

CUresult cuStreamGetCaptureInfo_v2(CUstream stream, cudaStreamCaptureStatus* status,
                                   unsigned long long* id, CUgraph* graph, const CUgraphNode** deps,
                                   std::size_t* count) {
  return cuStreamGetCaptureInfo_v3(stream, status, id, graph, deps, nullptr, count);
}

CUresult cuStreamGetCaptureInfo(CUstream stream, cudaStreamCaptureStatus* status,
                                unsigned long long* id) {
  return cuStreamGetCaptureInfo_v3(stream, status, id, nullptr, nullptr, nullptr, nullptr);
}

CUresult cuStreamUpdateCaptureDependencies_v2(CUstream stream, CUgraphNode* nodes,
                                              const cudaGraphEdgeData*, std::size_t count,
                                              unsigned flags) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Stream* s = stream_of(rt, stream);
  if (!s) return kInvalidHandle;
  return driver_code(update_capture_dependencies(*s, deps_of(nodes), count, flags));
}

CUresult cuStreamUpdateCaptureDependencies(CUstream stream, CUgraphNode* nodes, std::size_t count,
                                           unsigned flags) {
  return cuStreamUpdateCaptureDependencies_v2(stream, nodes, nullptr, count, flags);
}

CUresult cuThreadExchangeStreamCaptureMode(int* mode) {
  DRIVER_ENTER();
  if (!mode || *mode < cudaStreamCaptureModeGlobal || *mode > cudaStreamCaptureModeRelaxed)
    return kInvalidValue;
  *mode = exchange_thread_capture_mode(*mode);
  return kSuccess;
}

// ---- user objects and graph memory ----

CUresult cuUserObjectCreate(cudaUserObject_t* out, void* ptr, cudaHostFn_t destroy, unsigned refs,
                            unsigned flags) {
  DRIVER_ENTER();
  if (!out || !destroy || refs == 0 || flags != 1) return kInvalidValue;
  *out = reinterpret_cast<cudaUserObject_t>(UserObjects::get().create(ptr, destroy, refs));
  return kSuccess;
}

CUresult cuUserObjectRetain(cudaUserObject_t object, unsigned count) {
  DRIVER_ENTER();
  if (!UserObjects::get().exists(object) || count == 0) return kInvalidValue;
  UserObjects::get().retain(reinterpret_cast<UserObject*>(object), count);
  return kSuccess;
}

CUresult cuUserObjectRelease(cudaUserObject_t object, unsigned count) {
  DRIVER_ENTER();
  if (!UserObjects::get().exists(object) || count == 0 ||
      !UserObjects::get().release(reinterpret_cast<UserObject*>(object), count))
    return kInvalidValue;
  return kSuccess;
}

CUresult cuGraphRetainUserObject(CUgraph graph, cudaUserObject_t object, unsigned count,
                                 unsigned flags) {
  DRIVER_ENTER();
  Graph* g = graph_of(graph);
  if (!g || !UserObjects::get().exists(object) || count == 0 || flags > 1) return kInvalidValue;
  auto* o = reinterpret_cast<UserObject*>(object);
  if (!(flags & 1)) UserObjects::get().retain(o, count);
  g->user_objects[o] += count;
  return kSuccess;
}

CUresult cuGraphReleaseUserObject(CUgraph graph, cudaUserObject_t object, unsigned count) {
  DRIVER_ENTER();
  Graph* g = graph_of(graph);
  if (!g || !UserObjects::get().exists(object) || count == 0) return kInvalidValue;
  auto* o = reinterpret_cast<UserObject*>(object);
  auto f = g->user_objects.find(o);
  if (f == g->user_objects.end() || f->second < count) return kInvalidValue;
  if ((f->second -= count) == 0) g->user_objects.erase(f);
  UserObjects::get().release(o, count);
  return kSuccess;
}

CUresult cuDeviceGraphMemTrim(CUdevice device) {
  DRIVER_ENTER();
  return device >= 0 && device < rt.device_count() ? kSuccess : kInvalidDevice;
}

CUresult cuDeviceGetGraphMemAttribute(CUdevice device, int attr, void* value) {
  DRIVER_ENTER();
  if (device < 0 || device >= rt.device_count()) return kInvalidDevice;
  if (!value || !GraphMemory::get().attribute(device, attr, static_cast<std::uint64_t*>(value)))
    return kInvalidValue;
  return kSuccess;
}

CUresult cuDeviceSetGraphMemAttribute(CUdevice device, int attr, void* value) {
  DRIVER_ENTER();
  if (device < 0 || device >= rt.device_count()) return kInvalidDevice;
  if (!value || *static_cast<std::uint64_t*>(value) != 0 ||
      !GraphMemory::get().reset_high_watermark(device, attr))
    return kInvalidValue;
  return kSuccess;
}

}  // extern "C"

// The per-thread default stream forms (a NULL stream is the per-thread one).
DRIVER_PER_THREAD(cuGraphInstantiateWithParams_ptsz, cuGraphInstantiateWithParams,
                  (CUgraphExec * exec, CUgraph graph, cudaGraphInstantiateParams* p),
                  (exec, graph, p))
DRIVER_PER_THREAD(cuGraphLaunch_ptsz, cuGraphLaunch, (CUgraphExec exec, CUstream stream),
                  (exec, stream))
DRIVER_PER_THREAD(cuGraphUpload_ptsz, cuGraphUpload, (CUgraphExec exec, CUstream stream),
                  (exec, stream))
DRIVER_PER_THREAD(cuStreamBeginCapture_ptsz, cuStreamBeginCapture, (CUstream stream), (stream))
DRIVER_PER_THREAD(cuStreamBeginCapture_v2_ptsz, cuStreamBeginCapture_v2,
                  (CUstream stream, int mode), (stream, mode))
DRIVER_PER_THREAD(cuStreamBeginCaptureToGraph_ptsz, cuStreamBeginCaptureToGraph,
                  (CUstream stream, CUgraph graph, const CUgraphNode* deps,
                   const cudaGraphEdgeData* data, std::size_t count, int mode),
                  (stream, graph, deps, data, count, mode))
DRIVER_PER_THREAD(cuStreamEndCapture_ptsz, cuStreamEndCapture, (CUstream stream, CUgraph* graph),
                  (stream, graph))
DRIVER_PER_THREAD(cuStreamIsCapturing_ptsz, cuStreamIsCapturing,
                  (CUstream stream, cudaStreamCaptureStatus* status), (stream, status))
DRIVER_PER_THREAD(cuStreamGetCaptureInfo_ptsz, cuStreamGetCaptureInfo,
                  (CUstream stream, cudaStreamCaptureStatus* status, unsigned long long* id),
                  (stream, status, id))
DRIVER_PER_THREAD(cuStreamGetCaptureInfo_v2_ptsz, cuStreamGetCaptureInfo_v2,
                  (CUstream stream, cudaStreamCaptureStatus* status, unsigned long long* id,
                   CUgraph* graph, const CUgraphNode** deps, std::size_t* count),
                  (stream, status, id, graph, deps, count))
DRIVER_PER_THREAD(cuStreamGetCaptureInfo_v3_ptsz, cuStreamGetCaptureInfo_v3,
                  (CUstream stream, cudaStreamCaptureStatus* status, unsigned long long* id,
                   CUgraph* graph, const CUgraphNode** deps, const cudaGraphEdgeData** data,
                   std::size_t* count),
                  (stream, status, id, graph, deps, data, count))
DRIVER_PER_THREAD(cuStreamUpdateCaptureDependencies_ptsz, cuStreamUpdateCaptureDependencies,
                  (CUstream stream, CUgraphNode* nodes, std::size_t count, unsigned flags),
                  (stream, nodes, count, flags))
DRIVER_PER_THREAD(cuStreamUpdateCaptureDependencies_v2_ptsz, cuStreamUpdateCaptureDependencies_v2,
                  (CUstream stream, CUgraphNode* nodes, const cudaGraphEdgeData* data,
                   std::size_t count, unsigned flags),
                  (stream, nodes, data, count, flags))
