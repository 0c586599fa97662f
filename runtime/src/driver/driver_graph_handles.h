// Handles and helpers the driver API's graph entry points share
// (driver_graphs.cpp, driver_graph_exec.cpp).
#pragma once

#include <vector>

#include "engine/graph.h"
#include "engine/graph_exec.h"

namespace cnuas::cuda::driver {

inline Graph* graph_of(CUgraph g) {
  return GraphRegistry::get().is_graph(g) ? reinterpret_cast<Graph*>(g) : nullptr;
}

inline GraphNode* node_of(CUgraphNode n) {
  return GraphRegistry::get().is_node(n) ? reinterpret_cast<GraphNode*>(n) : nullptr;
}

inline GraphExec* exec_of(CUgraphExec e) {
  return GraphExecs::get().exists(e) ? reinterpret_cast<GraphExec*>(e) : nullptr;
}

inline const cudaGraphNode_t* deps_of(const CUgraphNode* deps) {
  return reinterpret_cast<const cudaGraphNode_t*>(deps);
}

inline Stream* stream_of(Runtime& rt, CUstream s) {
  return rt.stream(reinterpret_cast<cudaStream_t>(s));
}

// A kernel node's spec from CUDA_KERNEL_NODE_PARAMS (a function from cuModuleGetFunction).
cudaError_t kernel_spec_of(Runtime& rt, const CUDA_KERNEL_NODE_PARAMS_v2* p, NodeSpec* out);

}  // namespace cnuas::cuda::driver
