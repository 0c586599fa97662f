// The runtime API's graph structures to and from the engine's node specs,
// and checks of the handles the graph calls take.
#pragma once

#include "engine/graph.h"
#include "engine/graph_exec.h"

namespace cnuas::cuda {

inline Graph* graph_handle(cudaGraph_t g) {
  return GraphRegistry::get().is_graph(g) ? reinterpret_cast<Graph*>(g) : nullptr;
}
inline GraphNode* node_handle(cudaGraphNode_t n) {
  return GraphRegistry::get().is_node(n) ? reinterpret_cast<GraphNode*>(n) : nullptr;
}
inline cudaGraphNode_t handle_of(GraphNode* n) {
  return reinterpret_cast<cudaGraphNode_t>(n);
}
inline GraphExec* exec_handle(cudaGraphExec_t e) {
  return GraphExecs::get().exists(e) ? reinterpret_cast<GraphExec*>(e) : nullptr;
}

// A node of the given type, or null (with cudaErrorInvalidValue recorded).
GraphNode* typed_node(Runtime& rt, cudaGraphNode_t node, NodeType type);

cudaError_t kernel_node_spec(Runtime& rt, const cudaKernelNodeParams* p, NodeSpec* out);
cudaError_t memset_node_spec(Runtime& rt, const cudaMemsetParams* p, NodeSpec* out);
cudaError_t host_node_spec(const cudaHostNodeParams* p, NodeSpec* out);
cudaError_t event_node_spec(Runtime& rt, NodeType type, cudaEvent_t e, NodeSpec* out);
cudaError_t symbol_copy_spec(Runtime& rt, void* dst, const void* src, const void* symbol,
                             std::size_t count, std::size_t offset, int kind, bool to_symbol,
                             NodeSpec* out);
// The spec of a kernel, memcpy, memset, host or event node from the generic
// form (cudaGraphNodeSetParams); other types are not changed this way.
cudaError_t spec_from_node_params(Runtime& rt, const cudaGraphNodeParams* p, NodeSpec* out);
void kernel_params_of(Runtime& rt, GraphNode& n, cudaKernelNodeParams* p);
// Replaces a node's parameters with a spec of the same type; keeps its
// device and launch attributes.
cudaError_t set_spec(GraphNode& n, NodeSpec spec);

}  // namespace cnuas::cuda
