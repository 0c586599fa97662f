// CUDA graphs as the engine keeps them: a graph is a DAG of nodes, each a
// kernel, copy, memset, host function, event record or wait, memory
// allocation or free, child graph, or conditional (whose bodies are graphs).
// Graphs are built by the explicit API or by stream capture
// (engine/graph_capture.h), instantiated and launched by engine/graph_exec.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/runtime.h"
#include "graph_abi.h"

namespace cnuas::cuda {

// Node types, numbered as cudaGraphNodeType / CUgraphNodeType.
enum class NodeType : int {
  Kernel = 0,
  Memcpy = 1,
  Memset = 2,
  Host = 3,
  Graph = 4,
  Empty = 5,
  WaitEvent = 6,
  EventRecord = 7,
  MemAlloc = 10,
  MemFree = 11,
  Conditional = 13,
};
const char* node_type_name(NodeType t);

struct Graph;
struct GraphAllocation;  // engine/graph_memory.h
struct UserObject;       // engine/graph_user_objects.h

// A condition variable of conditional nodes (cudaGraphConditionalHandle): a
// 32-bit word in device memory whose address is the handle, so that kernels
// set it with cudaGraphSetConditional (a store the PTX engine makes) and the
// runtime reads it when the node runs.
struct ConditionHandle {
  std::uint64_t address = 0;
  unsigned default_value = 0;
  bool assign_default = false;  // cudaGraphCondAssignDefault: reset on each launch
  Graph* graph = nullptr;       // the graph it was created for
  ~ConditionHandle();
  unsigned read() const;
  void write(unsigned value) const;
};

struct MemsetSpec {
  void* dst = nullptr;
  std::size_t pitch = 0;
  unsigned value = 0, element_bytes = 1;
  std::size_t width = 0, height = 0;
};

enum class ConditionalType : int { If = 0, While = 1, Switch = 2 };

// What a node does. The runtime's stream commands carry one too
// (Command::spec), which is how stream capture makes nodes of them.
struct NodeSpec {
  NodeType type = NodeType::Empty;
  // Kernel: the launch and its parameters packed as the kernel's .param space.
  Kernel* kernel = nullptr;
  LaunchRequest launch;
  std::vector<std::uint8_t> params;
  // Memcpy: one row copy per slice; the 3D form the program gave, if any.
  std::vector<Runtime::Copy> copies;
  cudaMemcpy3DParms copy3d{};
  bool has_copy3d = false;
  MemsetSpec memset;
  // Host function.
  cudaHostFn_t fn = nullptr;
  void* user_data = nullptr;
  // Event record / wait.
  Event* event = nullptr;
  // Memory allocation (shared by the node's clones) and free.
  std::shared_ptr<GraphAllocation> allocation;
  void* free_ptr = nullptr;
  // Conditional.
  std::shared_ptr<ConditionHandle> condition;
  ConditionalType conditional = ConditionalType::If;
  int device = 0;  // where the node's work runs
};

struct GraphNode {
  GraphNode();
  ~GraphNode();
  GraphNode(const GraphNode&) = delete;
  GraphNode& operator=(const GraphNode&) = delete;

  Graph* graph = nullptr;  // the graph that owns the node
  std::uint64_t id = 0;    // creation order within its graph
  NodeSpec spec;
  bool enabled = true;  // cudaGraphNodeSetEnabled, in an executable graph
  // A child graph node's graph, or a conditional node's bodies.
  std::vector<std::unique_ptr<Graph>> children;
  std::vector<cudaGraph_t> body_handles;  // cudaConditionalNodeParams::phGraph_out
  // Edges, in the order they were added; edge data per dependency.
  std::vector<GraphNode*> deps;
  std::vector<cudaGraphEdgeData> dep_data;
  std::vector<GraphNode*> dependents;
  // Kernel parameters as cudaKernelNodeParams::kernelParams points to them.
  std::vector<void*> arg_pointers;
  std::vector<std::uint8_t> arg_copy;
};

struct Graph {
  Graph();
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  std::vector<std::unique_ptr<GraphNode>> nodes;  // in creation order
  std::uint64_t next_id = 0;
  GraphNode* parent = nullptr;  // the node that owns a child graph or body
  // For cudaGraphNodeFindInClone: the node of this graph cloned from each original.
  std::map<const GraphNode*, GraphNode*> cloned_from;
  // Condition handles created for this graph; user object references it owns.
  std::vector<std::shared_ptr<ConditionHandle>> handles;
  std::map<UserObject*, unsigned> user_objects;
  // Capture (cudaStreamBeginCaptureToGraph or a graph being captured) forbids destruction.
  bool capturing = false;

  GraphNode* add(NodeSpec spec);
  void remove(GraphNode* node);
  GraphNode* find(const GraphNode* node) const;  // null when not a node of this graph
  // Nodes in an order where each follows its dependencies; false on a cycle.
  bool topological(std::vector<GraphNode*>* order) const;
};

// Every live graph and node, so that handles can be checked.
class GraphRegistry {
 public:
  static GraphRegistry& get();
  bool is_graph(const void* g) const { return graphs_.count(static_cast<const Graph*>(g)) != 0; }
  bool is_node(const void* n) const { return nodes_.count(static_cast<const GraphNode*>(n)) != 0; }
  // Top-level graphs the program holds (cudaGraphCreate, capture, clone).
  Graph* create();
  bool owns(const Graph* g) const { return owned_.count(g) != 0; }
  void destroy(Graph* g);
  // Hands a top-level graph over (to a child graph node); null when not one.
  std::unique_ptr<Graph> release(Graph* g);

 private:
  friend struct Graph;
  friend struct GraphNode;
  std::set<const Graph*> graphs_;
  std::set<const GraphNode*> nodes_;
  std::map<const Graph*, std::unique_ptr<Graph>> owned_;
};

// ---- building ----
// Adds a node after `deps` (all nodes of `g`); edge data may be null.
cudaError_t add_node(Graph& g, const cudaGraphNode_t* deps, const cudaGraphEdgeData* data,
                     std::size_t count, NodeSpec spec, GraphNode** out);
cudaError_t add_edges(Graph& g, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                      const cudaGraphEdgeData* data, std::size_t count);
cudaError_t remove_edges(Graph& g, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                         std::size_t count);
// A child graph node: a copy of `child`, or `child` itself when moved
// (cudaGraphChildGraphOwnershipMove: the program's handle then belongs to the node).
cudaError_t add_child_graph(Graph& g, const cudaGraphNode_t* deps, const cudaGraphEdgeData* data,
                            std::size_t count, Graph& child, bool move, GraphNode** out);
// A conditional node with `size` empty bodies for the program to fill.
cudaError_t add_conditional(Graph& g, const cudaGraphNode_t* deps, const cudaGraphEdgeData* data,
                            std::size_t count, std::uint64_t handle, int type, unsigned size,
                            GraphNode** out);
// A memory allocation node of `bytes` on `device`; its address in `*address`.
cudaError_t add_mem_alloc(Runtime& rt, Graph& g, const cudaGraphNode_t* deps,
                          const cudaGraphEdgeData* data, std::size_t count, std::size_t bytes,
                          int device, GraphNode** out, void** address);
// A memory free node for graph memory.
cudaError_t add_mem_free(Graph& g, const cudaGraphNode_t* deps, const cudaGraphEdgeData* data,
                         std::size_t count, void* ptr, GraphNode** out);
// cudaGraphConditionalHandleCreate.
cudaError_t create_condition(Graph& g, unsigned default_value, unsigned flags,
                             std::uint64_t* handle);
// The host function nvcc registered for a kernel (cudaKernelNodeParams::func),
// or the kernel's own handle for one loaded through the driver.
const void* host_function(const Kernel* k);
// A deep copy: nodes, edges, child graphs and bodies; the clone records which
// node came from which. Condition handles and allocations are shared.
std::unique_ptr<Graph> clone_graph(const Graph& g);
void clone_into(const Graph& from, Graph& to);
// Whether a graph (or a graph nested in it) holds a node of `type`.
bool contains(const Graph& g, NodeType type);

// Node specs from the program's parameters, checked as the runtime checks them.
cudaError_t kernel_spec(Runtime& rt, Kernel* k, dim3 grid, dim3 block, unsigned shared, void** args,
                        void** extra, NodeSpec* out);
cudaError_t copy_spec(Runtime& rt, const cudaMemcpy3DParms& p, NodeSpec* out);
cudaError_t copy_1d_spec(Runtime& rt, void* dst, const void* src, std::size_t bytes, int kind,
                         NodeSpec* out);
cudaError_t memset_spec(Runtime& rt, const MemsetSpec& m, NodeSpec* out);
// The pointers cudaKernelNodeParams::kernelParams returns, into the node's copy.
void** kernel_arg_pointers(Runtime& rt, GraphNode& node);
// cudaMemcpy3DParms of a copy node (the form given, or that of its one row).
cudaMemcpy3DParms copy_params_of(const NodeSpec& s);

// Fills a node list the way CUDA's queries do: up to *count entries, the rest
// of the caller's array NULL, and *count the number written (or available,
// without an array).
template <typename T>
void fill(const std::vector<T>& all, T* out, std::size_t* count) {
  if (!out) {
    *count = all.size();
    return;
  }
  const std::size_t n = std::min(*count, all.size());
  for (std::size_t i = 0; i < *count; ++i) out[i] = i < n ? all[i] : T{};
  *count = n;
}

// Writes the graph in Graphviz DOT; false when the file cannot be written.
bool write_dot(const Graph& g, const std::string& path, unsigned flags);

}  // namespace cnuas::cuda
