// Executable graphs: instantiation, update, and launch onto the timeline.
//
// A launch issues every node as a command that waits for the commands of the
// node's dependencies only, so independent branches cross the platform at the
// same time; the graph as a whole starts after the stream's earlier work and
// the stream's later work starts after all of it. Conditional nodes read their
// condition word when they become ready and issue a body then (again after
// each pass, for WHILE).
#pragma once

#include <map>
#include <memory>
#include <set>

#include "engine/graph.h"

namespace cnuas::cuda {

struct GraphExec {
  // A copy of the source graph, shared with the launches still running.
  // Their commands took their parameters when issued, except the bodies of
  // conditional nodes, issued as they run: with conditional nodes, a change
  // made while a launch runs copies the graph first.
  std::shared_ptr<Graph> graph;
  bool conditional = false;
  // The executable graph's node for each node of the source graph (and of
  // graphs it was updated from), at any depth.
  std::map<const GraphNode*, GraphNode*> node_of;
  unsigned long long flags = 0;

  GraphNode* node(const GraphNode* source) const;
  // The graph, unshared, for a change of parameters.
  Graph& writable();
};

class GraphExecs {
 public:
  static GraphExecs& get();
  bool exists(const void* e) const { return execs_.count(static_cast<const GraphExec*>(e)) != 0; }
  GraphExec* add(std::unique_ptr<GraphExec> e);
  void destroy(GraphExec* e);

 private:
  std::map<const GraphExec*, std::unique_ptr<GraphExec>> execs_;
};

// cudaGraphInstantiateResult in `result`; `error_node` names the node at fault.
cudaError_t instantiate(Runtime& rt, Graph& g, unsigned long long flags, GraphExec** out,
                        GraphNode** error_node, int* result);
cudaError_t launch_graph(Runtime& rt, GraphExec& exec, Stream& s);
// cudaGraphExecUpdate: the graph must have the executable graph's topology;
// its node parameters replace the executable graph's.
cudaError_t update_exec(GraphExec& exec, Graph& g, cudaGraphExecUpdateResultInfo* info);

}  // namespace cnuas::cuda
