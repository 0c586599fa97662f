// The parameters of a graph's nodes, kernel node launch attributes, and the
// device's graph memory attributes.
#include <cstring>

#include "cudart/entry.h"
#include "cudart/graph_params.h"
#include "engine/access_policies.h"
#include "engine/graph_memory.h"

using namespace cnuas::cuda;

extern "C" {

// ---- node parameters ----

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams* p) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::Kernel);
  if (!n || !p) return rt.record(cudaErrorInvalidValue);
  kernel_params_of(rt, *n, p);
  return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const cudaKernelNodeParams* p) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::Kernel);
  NodeSpec spec;
  if (!n) return cudaErrorInvalidValue;
  if (const cudaError_t e = kernel_node_spec(rt, p, &spec)) return rt.record(e);
  return rt.record(set_spec(*n, std::move(spec)));
}

// Launch attributes of a kernel node (cudaLaunchAttributeValue, 64 bytes):
// cooperative, cluster dimensions and the L2 access policy window take
// effect; a priority (8) is accepted and reads back as zero, as the simulated
// platform does not schedule kernels by priority.
cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t node, int attr, void* value) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::Kernel);
  if (!n || !value) return rt.record(cudaErrorInvalidValue);
  unsigned char raw[64] = {};
  const LaunchRequest& l = n->spec.launch;
  if (attr == abi::kAttributeAccessPolicyWindow) {
    if (l.access_policy) {
      const cnuas::gpu::L2AccessPolicy& p = *l.access_policy;
      // cudaAccessProperty numbers Normal, Streaming, Persisting as Retention does.
      const abi::AccessPolicyWindow w{reinterpret_cast<void*>(p.base), p.bytes,
                                      static_cast<float>(p.hit_ratio), static_cast<int>(p.hit),
                                      static_cast<int>(p.miss)};
      std::memcpy(raw, &w, sizeof w);
    }
  } else if (attr == 2) {
    const unsigned cooperative = l.cooperative ? 1 : 0;
    std::memcpy(raw, &cooperative, sizeof cooperative);
  } else if (attr == 4) {
    const unsigned dims[3] = {l.cluster.x, l.cluster.y, l.cluster.z};
    std::memcpy(raw, dims, sizeof dims);
  } else if (attr != 8) {
    return rt.unsupported("cudaGraphKernelNodeGetAttribute with this attribute");
  }
  std::memcpy(value, raw, sizeof raw);
  return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t node, int attr, const void* value) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::Kernel);
  if (!n || !value) return rt.record(cudaErrorInvalidValue);
  LaunchRequest l = n->spec.launch;
  if (attr == abi::kAttributeAccessPolicyWindow) {
    abi::AccessPolicyWindow w{};
    std::memcpy(&w, value, sizeof w);
    if (const cudaError_t e = rt.access_policies().check(w)) return rt.record(e);
    l.access_policy = AccessPolicies::policy_of(w);
  } else if (attr == 2 || attr == 4) {
    unsigned v[3];
    std::memcpy(v, value, sizeof v);
    if (attr == 2) {
      l.cooperative = v[0] != 0;
    } else {
      l.cluster = {v[0], v[1], v[2]};
      if (!v[0] || !v[1] || !v[2] || l.grid.x % v[0] || l.grid.y % v[1] || l.grid.z % v[2] ||
          v[0] * v[1] * v[2] > 16)
        return rt.record(cudaErrorInvalidClusterSize);
    }
  } else if (attr != 8) {
    return rt.unsupported("cudaGraphKernelNodeSetAttribute with this attribute");
  }
  std::vector<std::uint8_t> params = n->spec.params;
  if (const cudaError_t e = rt.check_launch(*n->spec.kernel, l, params, n->spec.device)) return e;
  n->spec.launch = l;
  return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t dst, cudaGraphNode_t src) {
  CUDART_ENTER_STICKY();
  GraphNode* to = typed_node(rt, dst, NodeType::Kernel);
  GraphNode* from = typed_node(rt, src, NodeType::Kernel);
  if (!to || !from) return cudaErrorInvalidValue;
  to->spec.launch.cooperative = from->spec.launch.cooperative;
  to->spec.launch.cluster = from->spec.launch.cluster;
  to->spec.launch.access_policy = from->spec.launch.access_policy;
  return cudaSuccess;
}

cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, cudaMemcpy3DParms* p) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::Memcpy);
  if (!n || !p) return rt.record(cudaErrorInvalidValue);
  *p = copy_params_of(n->spec);
  return cudaSuccess;
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const cudaMemcpy3DParms* p) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::Memcpy);
  NodeSpec spec;
  if (!n || !p) return rt.record(cudaErrorInvalidValue);
  if (const cudaError_t e = copy_spec(rt, *p, &spec)) return rt.record(e);
  return rt.record(set_spec(*n, std::move(spec)));
}

cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void* dst, const void* src,
                                           std::size_t bytes, cudaMemcpyKind kind) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::Memcpy);
  NodeSpec spec;
  if (!n) return cudaErrorInvalidValue;
  if (const cudaError_t e = copy_1d_spec(rt, dst, src, bytes, kind, &spec)) return rt.record(e);
  return rt.record(set_spec(*n, std::move(spec)));
}

cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node, const void* symbol,
                                                 const void* src, std::size_t bytes,
                                                 std::size_t offset, cudaMemcpyKind kind) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::Memcpy);
  NodeSpec spec;
  if (!n) return cudaErrorInvalidValue;
  if (const cudaError_t e =
          symbol_copy_spec(rt, nullptr, src, symbol, bytes, offset, kind, true, &spec))
    return rt.record(e);
  return rt.record(set_spec(*n, std::move(spec)));
}

cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void* dst,
                                                   const void* symbol, std::size_t bytes,
                                                   std::size_t offset, cudaMemcpyKind kind) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::Memcpy);
  NodeSpec spec;
  if (!n) return cudaErrorInvalidValue;
  if (const cudaError_t e =
          symbol_copy_spec(rt, dst, nullptr, symbol, bytes, offset, kind, false, &spec))
    return rt.record(e);
  return rt.record(set_spec(*n, std::move(spec)));
}

cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, cudaMemsetParams* p) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::Memset);
  if (!n || !p) return rt.record(cudaErrorInvalidValue);
  const MemsetSpec& m = n->spec.memset;
  *p = {m.dst, m.pitch, m.value, m.element_bytes, m.width, m.height};
  return cudaSuccess;
}

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const cudaMemsetParams* p) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::Memset);
  NodeSpec spec;
  if (!n) return cudaErrorInvalidValue;
  if (const cudaError_t e = memset_node_spec(rt, p, &spec)) return rt.record(e);
  return rt.record(set_spec(*n, std::move(spec)));
}

cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, cudaHostNodeParams* p) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::Host);
  if (!n || !p) return rt.record(cudaErrorInvalidValue);
  *p = {n->spec.fn, n->spec.user_data};
  return cudaSuccess;
}

cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const cudaHostNodeParams* p) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::Host);
  NodeSpec spec;
  if (!n) return cudaErrorInvalidValue;
  if (const cudaError_t e = host_node_spec(p, &spec)) return rt.record(e);
  return rt.record(set_spec(*n, std::move(spec)));
}

cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t* graph) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::Graph);
  if (!n || !graph) return rt.record(cudaErrorInvalidValue);
  *graph = n->body_handles.front();
  return cudaSuccess;
}

cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::EventRecord);
  if (!n || !event) return rt.record(cudaErrorInvalidValue);
  *event = reinterpret_cast<cudaEvent_t>(n->spec.event);
  return cudaSuccess;
}

cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::EventRecord);
  NodeSpec spec;
  if (!n) return cudaErrorInvalidValue;
  if (const cudaError_t e = event_node_spec(rt, NodeType::EventRecord, event, &spec))
    return rt.record(e);
  return rt.record(set_spec(*n, std::move(spec)));
}

cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t* event) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::WaitEvent);
  if (!n || !event) return rt.record(cudaErrorInvalidValue);
  *event = reinterpret_cast<cudaEvent_t>(n->spec.event);
  return cudaSuccess;
}

cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::WaitEvent);
  NodeSpec spec;
  if (!n) return cudaErrorInvalidValue;
  if (const cudaError_t e = event_node_spec(rt, NodeType::WaitEvent, event, &spec))
    return rt.record(e);
  return rt.record(set_spec(*n, std::move(spec)));
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, cudaMemAllocNodeParams* p) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::MemAlloc);
  if (!n || !p) return rt.record(cudaErrorInvalidValue);
  std::memset(p, 0, sizeof *p);
  p->poolProps.allocType = 1;
  p->poolProps.location = {1, n->spec.allocation->device};
  p->bytesize = n->spec.allocation->bytes;
  p->dptr = reinterpret_cast<void*>(n->spec.allocation->base);
  return cudaSuccess;
}

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* dptr_out) {
  CUDART_ENTER_STICKY();
  GraphNode* n = typed_node(rt, node, NodeType::MemFree);
  if (!n || !dptr_out) return rt.record(cudaErrorInvalidValue);
  *static_cast<void**>(dptr_out) = n->spec.free_ptr;
  return cudaSuccess;
}

cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, cudaGraphNodeParams* p) {
  CUDART_ENTER_STICKY();
  GraphNode* n = node_handle(node);
  NodeSpec spec;
  if (!n || !p) return rt.record(cudaErrorInvalidValue);
  if (const cudaError_t e = spec_from_node_params(rt, p, &spec)) return rt.record(e);
  return rt.record(set_spec(*n, std::move(spec)));
}

// ---- graph memory ----

cudaError_t cudaDeviceGraphMemTrim(int device) {
  CUDART_ENTER_STICKY();
  // Graph memory stays reserved only while a graph holds its node.
  return device >= 0 && device < rt.device_count() ? cudaSuccess
                                                   : rt.record(cudaErrorInvalidDevice);
}

cudaError_t cudaDeviceGetGraphMemAttribute(int device, int attr, void* value) {
  CUDART_ENTER_STICKY();
  if (device < 0 || device >= rt.device_count()) return rt.record(cudaErrorInvalidDevice);
  if (!value || !GraphMemory::get().attribute(device, attr, static_cast<std::uint64_t*>(value)))
    return rt.record(cudaErrorInvalidValue);
  return cudaSuccess;
}

cudaError_t cudaDeviceSetGraphMemAttribute(int device, int attr, void* value) {
  CUDART_ENTER_STICKY();
  if (device < 0 || device >= rt.device_count()) return rt.record(cudaErrorInvalidDevice);
  if (!value || *static_cast<std::uint64_t*>(value) != 0 ||
      !GraphMemory::get().reset_high_watermark(device, attr))
    return rt.record(cudaErrorInvalidValue);
  return cudaSuccess;
}

}  // extern "C"
