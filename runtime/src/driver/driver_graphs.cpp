// The driver API's graphs, on the engine's graphs (engine/graph.h) that the
// runtime API uses: building and queries (executable graphs and stream
// capture: driver_graph_exec.cpp).
#include <algorithm>
#include <cstring>

#include "driver/driver_entry.h"
#include "driver/driver_graph_handles.h"

using namespace cnuas::cuda;
using namespace cnuas::cuda::driver;

namespace cnuas::cuda::driver {

cudaError_t kernel_spec_of(Runtime& rt, const CUDA_KERNEL_NODE_PARAMS_v2* p, NodeSpec* out) {
  // A CUkernel (p->kern) is not a handle this driver gives out.
  if (!p || !p->func) return cudaErrorInvalidValue;
  return kernel_spec(rt, reinterpret_cast<Kernel*>(p->func),
                     {p->gridDimX, p->gridDimY, p->gridDimZ},
                     {p->blockDimX, p->blockDimY, p->blockDimZ}, p->sharedMemBytes, p->kernelParams,
                     p->extra, out);
}

}  // namespace cnuas::cuda::driver

namespace {

// CU_MEMORYTYPE_HOST (1) is a host pointer; DEVICE (2) and UNIFIED (4) an address.
void* side(int type, const void* host, CUdeviceptr device) {
  return type == 1 ? const_cast<void*>(host) : reinterpret_cast<void*>(device);
}

cudaError_t copy_spec_of(Runtime& rt, const CUDA_MEMCPY3D* p, NodeSpec* out) {
  if (!p || p->srcMemoryType == 3 || p->dstMemoryType == 3) return cudaErrorInvalidValue;
  if (p->srcLOD || p->dstLOD || p->WidthInBytes == 0) return cudaErrorInvalidValue;
  const std::size_t height = std::max<std::size_t>(p->Height, 1);
  const std::size_t depth = std::max<std::size_t>(p->Depth, 1);
  const std::size_t src_pitch = p->srcPitch ? p->srcPitch : p->WidthInBytes;
  const std::size_t dst_pitch = p->dstPitch ? p->dstPitch : p->WidthInBytes;
  NodeSpec s;
  s.type = NodeType::Memcpy;
  s.device = rt.current_device();
  for (std::size_t z = 0; z < depth; ++z) {
    Runtime::Copy c{};
    c.src = static_cast<const char*>(side(p->srcMemoryType, p->srcHost, p->srcDevice)) +
            p->srcXInBytes + (p->srcY + (p->srcZ + z) * p->srcHeight) * src_pitch;
    c.dst = static_cast<char*>(side(p->dstMemoryType, p->dstHost, p->dstDevice)) + p->dstXInBytes +
            (p->dstY + (p->dstZ + z) * p->dstHeight) * dst_pitch;
    c.src_pitch = src_pitch;
    c.dst_pitch = dst_pitch;
    c.width = p->WidthInBytes;
    c.height = height;
    c.kind = cudaMemcpyDefault;
    if (const cudaError_t e = rt.check_copy(c)) return e;
    s.copies.push_back(c);
  }
  *out = std::move(s);
  return cudaSuccess;
}

CUresult add(CUgraphNode* out, CUgraph graph, const CUgraphNode* deps, std::size_t count,
             cudaError_t made, NodeSpec spec) {
  Graph* g = graph_of(graph);
  if (!out || !g) return kInvalidValue;
  if (made != cudaSuccess) return driver_code(made);
  GraphNode* n = nullptr;
  if (const cudaError_t e = add_node(*g, deps_of(deps), nullptr, count, std::move(spec), &n))
    return driver_code(e);
  *out = reinterpret_cast<CUgraphNode>(n);
  return kSuccess;
}

}  // namespace

extern "C" {

CUresult cuGraphCreate(CUgraph* graph, unsigned flags) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  if (!graph || flags) return kInvalidValue;
  *graph = reinterpret_cast<CUgraph>(GraphRegistry::get().create());
  return kSuccess;
}

CUresult cuGraphDestroy(CUgraph graph) {
  DRIVER_ENTER();
  Graph* g = graph_of(graph);
  if (!g || !GraphRegistry::get().owns(g) || g->capturing) return kInvalidValue;
  GraphRegistry::get().destroy(g);
  return kSuccess;
}

CUresult cuGraphAddKernelNode_v2(CUgraphNode* out, CUgraph graph, const CUgraphNode* deps,
                                 std::size_t count, const CUDA_KERNEL_NODE_PARAMS_v2* p) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  NodeSpec spec;
  const cudaError_t made = kernel_spec_of(rt, p, &spec);
  return add(out, graph, deps, count, made, std::move(spec));
}

CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode node, CUDA_KERNEL_NODE_PARAMS_v2* p) {
  DRIVER_ENTER();
  GraphNode* n = node_of(node);
  if (!n || !p || n->spec.type != NodeType::Kernel) return kInvalidValue;
  const NodeSpec& s = n->spec;
  std::memset(p, 0, sizeof *p);
  p->func = reinterpret_cast<CUfunction>(s.kernel);
  p->gridDimX = s.launch.grid.x;
  p->gridDimY = s.launch.grid.y;
  p->gridDimZ = s.launch.grid.z;
  p->blockDimX = s.launch.block.x;
  p->blockDimY = s.launch.block.y;
  p->blockDimZ = s.launch.block.z;
  p->sharedMemBytes = static_cast<unsigned>(s.launch.shared);
  p->kernelParams = kernel_arg_pointers(rt, *n);
  return kSuccess;
}

CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode node, const CUDA_KERNEL_NODE_PARAMS_v2* p) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  GraphNode* n = node_of(node);
  NodeSpec spec;
  if (!n || n->spec.type != NodeType::Kernel) return kInvalidValue;
  if (const cudaError_t e = kernel_spec_of(rt, p, &spec)) return driver_code(e);
  spec.launch.cooperative = n->spec.launch.cooperative;
  spec.launch.cluster = n->spec.launch.cluster;
  spec.launch.access_policy = n->spec.launch.access_policy;
  n->spec = std::move(spec);
  return kSuccess;
}

CUresult cuGraphAddMemcpyNode(CUgraphNode* out, CUgraph graph, const CUgraphNode* deps,
                              std::size_t count, const CUDA_MEMCPY3D* p, CUcontext) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  NodeSpec spec;
  const cudaError_t made = copy_spec_of(rt, p, &spec);
  return add(out, graph, deps, count, made, std::move(spec));
}

CUresult cuGraphAddMemsetNode(CUgraphNode* out, CUgraph graph, const CUgraphNode* deps,
                              std::size_t count, const CUDA_MEMSET_NODE_PARAMS* p, CUcontext) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  NodeSpec spec;
  const cudaError_t made = p ? memset_spec(rt,
                                           {reinterpret_cast<void*>(p->dst), p->pitch, p->value,
                                            p->elementSize, p->width, p->height},
                                           &spec)
                             : cudaErrorInvalidValue;
  return add(out, graph, deps, count, made, std::move(spec));
}

CUresult cuGraphAddHostNode(CUgraphNode* out, CUgraph graph, const CUgraphNode* deps,
                            std::size_t count, const CUDA_HOST_NODE_PARAMS* p) {
  DRIVER_ENTER();
  if (!p || !p->fn) return kInvalidValue;
  NodeSpec spec;
  spec.type = NodeType::Host;
  spec.fn = p->fn;
  spec.user_data = p->userData;
  return add(out, graph, deps, count, cudaSuccess, std::move(spec));
}

CUresult cuGraphAddEmptyNode(CUgraphNode* out, CUgraph graph, const CUgraphNode* deps,
                             std::size_t count) {
  DRIVER_ENTER();
  NodeSpec spec;
  spec.type = NodeType::Empty;
  return add(out, graph, deps, count, cudaSuccess, std::move(spec));
}

CUresult cuGraphAddEventRecordNode(CUgraphNode* out, CUgraph graph, const CUgraphNode* deps,
                                   std::size_t count, CUevent event) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  NodeSpec spec;
  spec.type = NodeType::EventRecord;
  spec.event = rt.event(reinterpret_cast<cudaEvent_t>(event));
  spec.device = rt.current_device();
  if (!spec.event) return kInvalidHandle;
  return add(out, graph, deps, count, cudaSuccess, std::move(spec));
}

CUresult cuGraphAddEventWaitNode(CUgraphNode* out, CUgraph graph, const CUgraphNode* deps,
                                 std::size_t count, CUevent event) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  NodeSpec spec;
  spec.type = NodeType::WaitEvent;
  spec.event = rt.event(reinterpret_cast<cudaEvent_t>(event));
  spec.device = rt.current_device();
  if (!spec.event) return kInvalidHandle;
  return add(out, graph, deps, count, cudaSuccess, std::move(spec));
}

CUresult cuGraphAddChildGraphNode(CUgraphNode* out, CUgraph graph, const CUgraphNode* deps,
                                  std::size_t count, CUgraph child) {
  DRIVER_ENTER();
  Graph* g = graph_of(graph);
  Graph* c = graph_of(child);
  if (!out || !g || !c) return kInvalidValue;
  GraphNode* n = nullptr;
  if (const cudaError_t e = add_child_graph(*g, deps_of(deps), nullptr, count, *c, false, &n))
    return driver_code(e);
  *out = reinterpret_cast<CUgraphNode>(n);
  return kSuccess;
}

CUresult cuGraphAddMemAllocNode(CUgraphNode* out, CUgraph graph, const CUgraphNode* deps,
                                std::size_t count, cudaMemAllocNodeParams* p) {
  DRIVER_ENTER();
  Graph* g = graph_of(graph);
  if (!out || !g || !p || p->poolProps.allocType != 1 || p->poolProps.location.type != 1 ||
      p->poolProps.handleTypes != 0)
    return kInvalidValue;
  GraphNode* n = nullptr;
  if (const cudaError_t e = add_mem_alloc(rt, *g, deps_of(deps), nullptr, count, p->bytesize,
                                          p->poolProps.location.id, &n, &p->dptr))
    return driver_code(e);
  *out = reinterpret_cast<CUgraphNode>(n);
  return kSuccess;
}

CUresult cuGraphAddMemFreeNode(CUgraphNode* out, CUgraph graph, const CUgraphNode* deps,
                               std::size_t count, CUdeviceptr ptr) {
  DRIVER_ENTER();
  Graph* g = graph_of(graph);
  if (!out || !g) return kInvalidValue;
  GraphNode* n = nullptr;
  if (const cudaError_t e =
          add_mem_free(*g, deps_of(deps), nullptr, count, reinterpret_cast<void*>(ptr), &n))
    return driver_code(e);
  *out = reinterpret_cast<CUgraphNode>(n);
  return kSuccess;
}

CUresult cuGraphConditionalHandleCreate(unsigned long long* out, CUgraph graph, CUcontext,
                                        unsigned default_value, unsigned flags) {
  DRIVER_ENTER();
  Graph* g = graph_of(graph);
  std::uint64_t handle = 0;
  if (!g || !out) return kInvalidValue;
  if (const cudaError_t e = create_condition(*g, default_value, flags, &handle))
    return driver_code(e);
  *out = handle;
  return kSuccess;
}

CUresult cuGraphAddDependencies_v2(CUgraph graph, const CUgraphNode* from, const CUgraphNode* to,
                                   const cudaGraphEdgeData* data, std::size_t count) {
  DRIVER_ENTER();
  Graph* g = graph_of(graph);
  if (!g) return kInvalidValue;
  return driver_code(add_edges(*g, deps_of(from), deps_of(to), data, count));
}

CUresult cuGraphAddDependencies(CUgraph graph, const CUgraphNode* from, const CUgraphNode* to,
                                std::size_t count) {
  return cuGraphAddDependencies_v2(graph, from, to, nullptr, count);
}

CUresult cuGraphRemoveDependencies_v2(CUgraph graph, const CUgraphNode* from, const CUgraphNode* to,
                                      const cudaGraphEdgeData*, std::size_t count) {
  DRIVER_ENTER();
  Graph* g = graph_of(graph);
  if (!g) return kInvalidValue;
  return driver_code(remove_edges(*g, deps_of(from), deps_of(to), count));
}

CUresult cuGraphRemoveDependencies(CUgraph graph, const CUgraphNode* from, const CUgraphNode* to,
                                   std::size_t count) {
  return cuGraphRemoveDependencies_v2(graph, from, to, nullptr, count);
}

CUresult cuGraphDestroyNode(CUgraphNode node) {
  DRIVER_ENTER();
  GraphNode* n = node_of(node);
  if (!n) return kInvalidValue;
  n->graph->remove(n);
  return kSuccess;
}

CUresult cuGraphGetNodes(CUgraph graph, CUgraphNode* nodes, std::size_t* count) {
  DRIVER_ENTER();
  Graph* g = graph_of(graph);
  if (!g || !count) return kInvalidValue;
  std::vector<CUgraphNode> all;
  for (const auto& n : g->nodes) all.push_back(reinterpret_cast<CUgraphNode>(n.get()));
  fill(all, nodes, count);
  return kSuccess;
}

CUresult cuGraphGetRootNodes(CUgraph graph, CUgraphNode* nodes, std::size_t* count) {
  DRIVER_ENTER();
  Graph* g = graph_of(graph);
  if (!g || !count) return kInvalidValue;
  std::vector<CUgraphNode> roots;
  for (const auto& n : g->nodes)
    if (n->deps.empty()) roots.push_back(reinterpret_cast<CUgraphNode>(n.get()));
  fill(roots, nodes, count);
  return kSuccess;
}

CUresult cuGraphGetEdges_v2(CUgraph graph, CUgraphNode* from, CUgraphNode* to,
                            cudaGraphEdgeData* data, std::size_t* count) {
  DRIVER_ENTER();
  Graph* g = graph_of(graph);
  if (!g || !count || (!from != !to) || (data && !from)) return kInvalidValue;
  std::vector<CUgraphNode> a, b;
  std::vector<cudaGraphEdgeData> d;
  for (const auto& n : g->nodes)
    for (std::size_t i = 0; i < n->deps.size(); ++i) {
      a.push_back(reinterpret_cast<CUgraphNode>(n->deps[i]));
      b.push_back(reinterpret_cast<CUgraphNode>(n.get()));
      d.push_back(n->dep_data[i]);
    }
  std::size_t requested = *count;
  fill(a, from, count);
  if (to) fill(b, to, &requested);
  if (data) {
    requested = *count;
    fill(d, data, &requested);
  }
  return kSuccess;
}

CUresult cuGraphGetEdges(CUgraph graph, CUgraphNode* from, CUgraphNode* to, std::size_t* count) {
  return cuGraphGetEdges_v2(graph, from, to, nullptr, count);
}

CUresult cuGraphNodeGetType(CUgraphNode node, int* type) {
  DRIVER_ENTER();
  GraphNode* n = node_of(node);
  if (!n || !type) return kInvalidValue;
  *type = static_cast<int>(n->spec.type);
  return kSuccess;
}

CUresult cuGraphNodeGetDependencies_v2(CUgraphNode node, CUgraphNode* deps, cudaGraphEdgeData* data,
                                       std::size_t* count) {
  DRIVER_ENTER();
  GraphNode* n = node_of(node);
  if (!n || !count || (data && !deps)) return kInvalidValue;
  std::vector<CUgraphNode> all;
  for (GraphNode* d : n->deps) all.push_back(reinterpret_cast<CUgraphNode>(d));
  std::size_t requested = *count;
  fill(all, deps, count);
  if (data) fill(n->dep_data, data, &requested);
  return kSuccess;
}

CUresult cuGraphNodeGetDependentNodes_v2(CUgraphNode node, CUgraphNode* nodes,
                                         cudaGraphEdgeData* data, std::size_t* count) {
  DRIVER_ENTER();
  GraphNode* n = node_of(node);
  if (!n || !count || (data && !nodes)) return kInvalidValue;
  std::vector<CUgraphNode> all;
  std::vector<cudaGraphEdgeData> d;
  for (GraphNode* to : n->dependents) {
    all.push_back(reinterpret_cast<CUgraphNode>(to));
    d.push_back(to->dep_data[static_cast<std::size_t>(
        std::find(to->deps.begin(), to->deps.end(), n) - to->deps.begin())]);
  }
  std::size_t requested = *count;
  fill(all, nodes, count);
  if (data) fill(d, data, &requested);
  return kSuccess;
}

CUresult cuGraphClone(CUgraph* out, CUgraph graph) {
  DRIVER_ENTER();
  Graph* g = graph_of(graph);
  if (!out || !g) return kInvalidValue;
  Graph* c = GraphRegistry::get().create();
  clone_into(*g, *c);
  *out = reinterpret_cast<CUgraph>(c);
  return kSuccess;
}

CUresult cuGraphNodeFindInClone(CUgraphNode* out, CUgraphNode original, CUgraph clone) {
  DRIVER_ENTER();
  Graph* c = graph_of(clone);
  if (!out || !c) return kInvalidValue;
  auto f = c->cloned_from.find(reinterpret_cast<const GraphNode*>(original));
  if (f == c->cloned_from.end()) return kInvalidValue;
  *out = reinterpret_cast<CUgraphNode>(f->second);
  return kSuccess;
}

CUresult cuGraphDebugDotPrint(CUgraph graph, const char* path, unsigned flags) {
  DRIVER_ENTER();
  Graph* g = graph_of(graph);
  if (!g || !path) return kInvalidValue;
  return write_dot(*g, path, flags) ? kSuccess : cudaErrorOperatingSystem;
}

}  // extern "C"
