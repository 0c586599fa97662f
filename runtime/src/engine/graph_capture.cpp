#include "engine/graph_capture.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <set>

#include "engine/graph_memory.h"

namespace cnuas::cuda {
namespace {

thread_local int t_capture_mode = cudaStreamCaptureModeGlobal;

// Captures under way, by the session each of their streams points to.
std::map<const CaptureSession*, std::shared_ptr<CaptureSession>>& active() {
  static auto* sessions = new std::map<const CaptureSession*, std::shared_ptr<CaptureSession>>();
  return *sessions;
}

unsigned long long next_capture_id = 1;

GraphNode* add_captured(Stream& s, NodeSpec spec) {
  CaptureSession& c = *s.capture;
  spec.device = s.device;
  std::vector<cudaGraphNode_t> deps;
  for (GraphNode* d : s.capture_deps) deps.push_back(reinterpret_cast<cudaGraphNode_t>(d));
  GraphNode* n = nullptr;
  if (add_node(*c.graph, deps.data(), nullptr, deps.size(), std::move(spec), &n) != cudaSuccess) {
    // A node the stream follows was destroyed behind the capture's back.
    invalidate(c);
    return nullptr;
  }
  s.capture_deps = {n};
  return n;
}

void merge(std::vector<GraphNode*>* into, const std::vector<GraphNode*>& nodes) {
  for (GraphNode* n : nodes)
    if (std::find(into->begin(), into->end(), n) == into->end()) into->push_back(n);
}

// Every stream that forked from the origin has been joined back into it: its
// last nodes are among the origin's last nodes or their ancestors.
bool joined(const CaptureSession& c) {
  std::set<const GraphNode*> reach;
  std::vector<const GraphNode*> stack(c.origin->capture_deps.begin(), c.origin->capture_deps.end());
  while (!stack.empty()) {
    const GraphNode* n = stack.back();
    stack.pop_back();
    // A node the program destroyed during the capture joins nothing.
    if (!GraphRegistry::get().is_node(n) || !reach.insert(n).second) continue;
    stack.insert(stack.end(), n->deps.begin(), n->deps.end());
  }
  for (const Stream* s : c.streams)
    for (const GraphNode* n : s->capture_deps)
      if (!reach.count(n)) return false;
  return true;
}

}  // namespace

void invalidate(CaptureSession& c) {
  c.invalidated = true;
}

void capture_command(Stream& s, CommandPtr cmd) {
  CaptureSession& c = *s.capture;
  if (c.invalidated) return;
  if (!cmd->spec) {
    std::cerr << "cnuas: '" << cmd->name
              << "' cannot be captured into a graph; the stream capture is invalidated\n";
    invalidate(c);
    return;
  }
  add_captured(s, *cmd->spec);
}

void capture_event_record(Event& e, Stream& s) {
  e.captured_in = s.capture;
  e.captured_after = s.capture_deps;
  e.device = s.device;
}

cudaError_t begin_capture(Stream& s, int mode, Graph* to_graph, const cudaGraphNode_t* deps,
                          const cudaGraphEdgeData*, std::size_t count) {
  if (s.legacy) return cudaErrorStreamCaptureUnsupported;
  if (s.capturing()) return cudaErrorIllegalState;
  if (mode < cudaStreamCaptureModeGlobal || mode > cudaStreamCaptureModeRelaxed)
    return cudaErrorInvalidValue;
  std::vector<GraphNode*> after;
  if (count && (!to_graph || !deps)) return cudaErrorInvalidValue;
  for (std::size_t i = 0; i < count; ++i) {
    GraphNode* n = to_graph->find(reinterpret_cast<const GraphNode*>(deps[i]));
    if (!n) return cudaErrorInvalidValue;
    after.push_back(n);
  }
  auto c = std::make_shared<CaptureSession>();
  c->graph = to_graph ? to_graph : GraphRegistry::get().create();
  c->own_graph = !to_graph;
  c->origin = &s;
  c->mode = mode;
  c->thread = std::this_thread::get_id();
  c->id = next_capture_id++;
  c->streams = {&s};
  c->graph->capturing = true;
  s.capture = c;
  s.capture_deps = std::move(after);
  active()[c.get()] = c;
  return cudaSuccess;
}

cudaError_t end_capture(Stream& s, Graph** out) {
  if (!s.capturing()) return cudaErrorIllegalState;
  std::shared_ptr<CaptureSession> c = s.capture;
  if (c->origin != &s) {
    invalidate(*c);
    return cudaErrorStreamCaptureUnmatched;
  }
  if (c->mode != cudaStreamCaptureModeRelaxed && c->thread != std::this_thread::get_id())
    return cudaErrorStreamCaptureWrongThread;
  const bool all_joined = joined(*c);
  for (Stream* t : c->streams) {
    t->capture.reset();
    t->capture_deps.clear();
  }
  active().erase(c.get());
  c->graph->capturing = false;
  if (c->invalidated || !all_joined) {
    if (c->own_graph) GraphRegistry::get().destroy(c->graph);
    *out = nullptr;
    return c->invalidated ? cudaError_t{cudaErrorStreamCaptureInvalidated}
                          : cudaError_t{cudaErrorStreamCaptureUnjoined};
  }
  *out = c->graph;
  return cudaSuccess;
}

cudaError_t capture_wait_event(Stream& s, Event& e, unsigned flags, bool* handled) {
  *handled = false;
  std::shared_ptr<CaptureSession> c = e.captured_in.lock();
  if (c && active().count(c.get())) {
    *handled = true;
    if (s.capture == c) {
      merge(&s.capture_deps, e.captured_after);
    } else if (!s.capturing()) {
      if (s.legacy) {  // the legacy stream cannot take part in a capture
        invalidate(*c);
        return cudaErrorStreamCaptureImplicit;
      }
      s.capture = c;
      s.capture_deps = e.captured_after;
      c->streams.push_back(&s);
    } else {
      invalidate(*s.capture);
      return cudaErrorStreamCaptureIsolation;
    }
    return cudaSuccess;
  }
  if (!s.capturing()) return cudaSuccess;
  *handled = true;
  if (s.capture->invalidated) return cudaErrorStreamCaptureInvalidated;
  if (flags & 1u) {  // cudaEventWaitExternal
    NodeSpec spec;
    spec.type = NodeType::WaitEvent;
    spec.event = &e;
    add_captured(s, std::move(spec));
    return cudaSuccess;
  }
  // Work recorded outside the capture: nothing to order against once it is done.
  if (!e.marker || e.marker->done) return cudaSuccess;
  invalidate(*s.capture);
  return cudaErrorStreamCaptureIsolation;
}

cudaError_t capture_external_record(Stream& s, Event& e) {
  if (s.capture->invalidated) return cudaErrorStreamCaptureInvalidated;
  NodeSpec spec;
  spec.type = NodeType::EventRecord;
  spec.event = &e;
  add_captured(s, std::move(spec));
  return cudaSuccess;
}

cudaError_t capture_malloc(Runtime& rt, Stream& s, void** ptr, std::size_t bytes) {
  if (!ptr || bytes == 0) return cudaErrorInvalidValue;
  if (s.capture->invalidated) return cudaErrorStreamCaptureInvalidated;
  NodeSpec spec;
  spec.type = NodeType::MemAlloc;
  if (const cudaError_t e = GraphMemory::get().reserve(rt, bytes, s.device, &spec.allocation))
    return e;
  *ptr = reinterpret_cast<void*>(spec.allocation->base);
  add_captured(s, std::move(spec));
  return cudaSuccess;
}

cudaError_t capture_graph_launch(Stream& s, const Graph& g) {
  if (s.capture->invalidated) return cudaErrorStreamCaptureInvalidated;
  NodeSpec spec;
  spec.type = NodeType::Graph;
  GraphNode* n = add_captured(s, std::move(spec));
  if (!n) return cudaErrorStreamCaptureInvalidated;
  std::unique_ptr<Graph> child = clone_graph(g);
  child->cloned_from.clear();
  child->parent = n;
  n->body_handles.push_back(reinterpret_cast<cudaGraph_t>(child.get()));
  n->children.push_back(std::move(child));
  return cudaSuccess;
}

cudaStreamCaptureStatus capture_status(const Stream& s) {
  if (!s.capturing()) return cudaStreamCaptureStatusNone;
  return s.capture->invalidated ? cudaStreamCaptureStatusInvalidated
                                : cudaStreamCaptureStatusActive;
}

cudaError_t capture_info(Stream& s, cudaStreamCaptureStatus* status, unsigned long long* id,
                         cudaGraph_t* graph, const cudaGraphNode_t** deps,
                         const cudaGraphEdgeData** data, std::size_t* count) {
  if (!status) return cudaErrorInvalidValue;
  *status = capture_status(s);
  if (*status == cudaStreamCaptureStatusNone) return cudaSuccess;
  CaptureSession& c = *s.capture;
  if (id) *id = c.id;
  if (graph) *graph = reinterpret_cast<cudaGraph_t>(c.graph);
  // Valid until the stream's capture next changes, as CUDA documents.
  if (deps) *deps = reinterpret_cast<const cudaGraphNode_t*>(s.capture_deps.data());
  if (data) {
    c.edge_zeros.assign(std::max<std::size_t>(s.capture_deps.size(), 1), cudaGraphEdgeData{});
    *data = c.edge_zeros.data();
  }
  if (count) *count = s.capture_deps.size();
  return cudaSuccess;
}

cudaError_t update_capture_dependencies(Stream& s, const cudaGraphNode_t* nodes, std::size_t count,
                                        unsigned flags) {
  if (!s.capturing()) return cudaErrorIllegalState;
  if (flags > 1 || (count && !nodes)) return cudaErrorInvalidValue;
  std::vector<GraphNode*> list;
  for (std::size_t i = 0; i < count; ++i) {
    GraphNode* n = s.capture->graph->find(reinterpret_cast<const GraphNode*>(nodes[i]));
    if (!n) return cudaErrorInvalidValue;
    list.push_back(n);
  }
  if (flags == 1) s.capture_deps.clear();  // cudaStreamSetCaptureDependencies
  merge(&s.capture_deps, list);
  return cudaSuccess;
}

cudaError_t check_capture_unsafe() {
  const std::thread::id me = std::this_thread::get_id();
  std::vector<CaptureSession*> forbidding;
  for (auto& [key, c] : active()) {
    if (c->invalidated) continue;
    const bool mine = c->thread == me;
    const bool strict_here = mine && c->mode != cudaStreamCaptureModeRelaxed;
    if ((t_capture_mode == cudaStreamCaptureModeGlobal &&
         (strict_here || (!mine && c->mode == cudaStreamCaptureModeGlobal))) ||
        (t_capture_mode == cudaStreamCaptureModeThreadLocal && strict_here))
      forbidding.push_back(c.get());
  }
  for (CaptureSession* c : forbidding) invalidate(*c);
  return forbidding.empty() ? cudaSuccess : cudaErrorStreamCaptureUnsupported;
}

cudaError_t check_capture_sync(Stream& s) {
  if (!s.capturing()) return cudaSuccess;
  invalidate(*s.capture);
  return cudaErrorStreamCaptureUnsupported;
}

bool recorded_in_capture(const Event& e) {
  std::shared_ptr<CaptureSession> c = e.captured_in.lock();
  return c && active().count(c.get());
}

int exchange_thread_capture_mode(int mode) {
  const int old = t_capture_mode;
  t_capture_mode = mode;
  return old;
}

// A stream destroyed while it captures leaves the capture, which is invalidated.
Stream::~Stream() {
  if (!capture) return;
  invalidate(*capture);
  auto& list = capture->streams;
  list.erase(std::remove(list.begin(), list.end(), this), list.end());
  if (capture->origin == this) {
    for (Stream* t : list) {
      t->capture.reset();
      t->capture_deps.clear();
    }
    active().erase(capture.get());
    capture->graph->capturing = false;
    if (capture->own_graph) GraphRegistry::get().destroy(capture->graph);
  }
}

}  // namespace cnuas::cuda
