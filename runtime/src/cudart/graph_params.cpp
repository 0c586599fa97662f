#include "cudart/graph_params.h"

namespace cnuas::cuda {

GraphNode* typed_node(Runtime& rt, cudaGraphNode_t node, NodeType type) {
  GraphNode* n = node_handle(node);
  if (!n || n->spec.type != type) {
    rt.record(cudaErrorInvalidValue);
    return nullptr;
  }
  return n;
}

cudaError_t kernel_node_spec(Runtime& rt, const cudaKernelNodeParams* p, NodeSpec* out) {
  if (!p) return cudaErrorInvalidValue;
  Kernel* k = nullptr;
  if (const cudaError_t e = rt.kernel(p->func, &k)) return e;
  return kernel_spec(rt, k, p->gridDim, p->blockDim, p->sharedMemBytes, p->kernelParams, p->extra,
                     out);
}

cudaError_t memset_node_spec(Runtime& rt, const cudaMemsetParams* p, NodeSpec* out) {
  if (!p) return cudaErrorInvalidValue;
  return memset_spec(rt, {p->dst, p->pitch, p->value, p->elementSize, p->width, p->height}, out);
}

cudaError_t host_node_spec(const cudaHostNodeParams* p, NodeSpec* out) {
  if (!p || !p->fn) return cudaErrorInvalidValue;
  out->type = NodeType::Host;
  out->fn = p->fn;
  out->user_data = p->userData;
  return cudaSuccess;
}

cudaError_t event_node_spec(Runtime& rt, NodeType type, cudaEvent_t e, NodeSpec* out) {
  Event* event = rt.event(e);
  if (!event) return cudaErrorInvalidResourceHandle;
  out->type = type;
  out->event = event;
  out->device = rt.current_device();
  return cudaSuccess;
}

cudaError_t symbol_copy_spec(Runtime& rt, void* dst, const void* src, const void* symbol,
                             std::size_t count, std::size_t offset, int kind, bool to_symbol,
                             NodeSpec* out) {
  std::uint64_t base = 0;
  std::size_t size = 0;
  if (const cudaError_t e = rt.symbol(symbol, &base, &size)) return e;
  if (offset > size || count > size - offset) return cudaErrorInvalidValue;
  void* device = reinterpret_cast<void*>(base + offset);
  const bool from_host_ok = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice ||
                            kind == cudaMemcpyDefault;
  const bool to_host_ok = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice ||
                          kind == cudaMemcpyDefault;
  if (to_symbol ? !from_host_ok : !to_host_ok) return cudaErrorInvalidMemcpyDirection;
  return to_symbol ? copy_1d_spec(rt, device, src, count, cudaMemcpyDefault, out)
                   : copy_1d_spec(rt, dst, device, count, cudaMemcpyDefault, out);
}

cudaError_t spec_from_node_params(Runtime& rt, const cudaGraphNodeParams* p, NodeSpec* out) {
  if (!p) return cudaErrorInvalidValue;
  switch (p->type) {
    case static_cast<int>(NodeType::Kernel):
      return kernel_node_spec(rt, &p->kernel, out);
    case static_cast<int>(NodeType::Memcpy):
      if (p->memcpy.flags != 0) return cudaErrorInvalidValue;
      return copy_spec(rt, p->memcpy.copyParams, out);
    case static_cast<int>(NodeType::Memset):
      return memset_node_spec(rt, &p->memset, out);
    case static_cast<int>(NodeType::Host):
      return host_node_spec(&p->host, out);
    case static_cast<int>(NodeType::WaitEvent):
      return event_node_spec(rt, NodeType::WaitEvent, p->eventWait, out);
    case static_cast<int>(NodeType::EventRecord):
      return event_node_spec(rt, NodeType::EventRecord, p->eventRecord, out);
    default:
      return cudaErrorInvalidValue;
  }
}

void kernel_params_of(Runtime& rt, GraphNode& n, cudaKernelNodeParams* p) {
  const NodeSpec& s = n.spec;
  p->func = const_cast<void*>(host_function(s.kernel));
  p->gridDim = s.launch.grid;
  p->blockDim = s.launch.block;
  p->sharedMemBytes = static_cast<unsigned>(s.launch.shared);
  p->kernelParams = kernel_arg_pointers(rt, n);
  p->extra = nullptr;
}

cudaError_t set_spec(GraphNode& n, NodeSpec spec) {
  if (spec.type != n.spec.type) return cudaErrorInvalidValue;
  spec.device = n.spec.device;
  // A kernel node's launch attributes are not parameters: they stay.
  spec.launch.cooperative = n.spec.launch.cooperative;
  spec.launch.cluster = n.spec.launch.cluster;
  spec.launch.access_policy = n.spec.launch.access_policy;
  n.spec = std::move(spec);
  return cudaSuccess;
}

}  // namespace cnuas::cuda
