// Streams, events, host callbacks, stream capture and straight-line graphs.
#include <vector>

#include "cudart/entry.h"
#include "engine/memory_pools.h"

using namespace cnuas::cuda;

namespace {

struct Graph {
  std::vector<CommandPtr> nodes;  // in stream order
};

std::vector<Graph*>& graphs() {
  static std::vector<Graph*> g;
  return g;
}

bool is_graph(const void* p) {
  for (Graph* g : graphs())
    if (g == p) return true;
  return false;
}

CommandPtr clone(const Command& c) {
  auto copy = std::make_shared<Command>();
  copy->name = c.name;
  copy->route = c.route;
  copy->dims = c.dims;
  copy->read = c.read;
  copy->start = c.start;
  copy->host_work = c.host_work;
  return copy;
}

cudaError_t add_host_work(Runtime& rt, cudaStream_t stream, std::function<void()> work) {
  Stream* s = rt.stream(stream);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  auto cmd = std::make_shared<Command>();
  cmd->name = "host function";
  cmd->host_work = true;
  cmd->start = [work](Command&) { work(); };
  rt.submit(*s, cmd);
  return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
  CUDART_ENTER_STICKY();
  if (!stream) return rt.record(cudaErrorInvalidValue);
  *stream = reinterpret_cast<cudaStream_t>(rt.create_stream(0, 0));
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags) {
  CUDART_ENTER_STICKY();
  if (!stream || flags > cudaStreamNonBlocking) return rt.record(cudaErrorInvalidValue);
  *stream = reinterpret_cast<cudaStream_t>(rt.create_stream(flags, 0));
  return cudaSuccess;
}

// Priorities are kept and reported; the analytic platform serves streams in
// the order their work becomes ready, whatever their priority.
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned flags, int priority) {
  CUDART_ENTER_STICKY();
  if (!stream || flags > cudaStreamNonBlocking) return rt.record(cudaErrorInvalidValue);
  priority = std::min(0, std::max(-5, priority));
  *stream = reinterpret_cast<cudaStream_t>(rt.create_stream(flags, priority));
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  return rt.destroy_stream(stream);
}

cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned* flags) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  if (!s || !flags) return rt.record(s ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle);
  *flags = s->flags;
  return cudaSuccess;
}

cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  if (!s || !priority) return rt.record(s ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle);
  *priority = s->priority;
  return cudaSuccess;
}

cudaError_t cudaStreamGetDevice(cudaStream_t stream, int* device) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  if (!s || !device) return rt.record(s ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle);
  *device = s->device;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  if (s->capturing) return rt.record(cudaErrorStreamCaptureUnsupported);
  rt.timeline().wait(s->last);
  rt.memory_pools().synchronized();
  return rt.sticky();
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  return rt.poll(s->last) ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  Event* e = rt.event(event);
  if (!s || !e) return rt.record(cudaErrorInvalidResourceHandle);
  if (s->capturing && e->marker && !e->marker->done)
    return rt.record(cudaErrorStreamCaptureUnsupported);  // cross-stream capture: not straight-line
  if (e->marker) s->pending_waits.push_back(e->marker);
  return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* data) {
  CUDART_ENTER_STICKY();
  if (!fn) return rt.record(cudaErrorInvalidValue);
  return add_host_work(rt, stream, [fn, data] { fn(data); });
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t cb, void* data,
                                  unsigned flags) {
  CUDART_ENTER_STICKY();
  if (!cb || flags != 0) return rt.record(cudaErrorInvalidValue);
  return add_host_work(rt, stream, [stream, cb, data] { cb(stream, cudaSuccess, data); });
}

cudaError_t cudaEventCreate(cudaEvent_t* event) {
  CUDART_ENTER_STICKY();
  if (!event) return rt.record(cudaErrorInvalidValue);
  *event = reinterpret_cast<cudaEvent_t>(rt.create_event(0));
  return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags) {
  CUDART_ENTER_STICKY();
  if (!event || flags > 0x7) return rt.record(cudaErrorInvalidValue);
  *event = reinterpret_cast<cudaEvent_t>(rt.create_event(flags));
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  CUDART_ENTER_STICKY();
  return rt.destroy_event(event);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  Event* e = rt.event(event);
  Stream* s = rt.stream(stream);
  if (!e || !s) return rt.record(cudaErrorInvalidResourceHandle);
  rt.record_event(*e, *s);
  return cudaSuccess;
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned flags) {
  if (flags > 1) return cudaErrorInvalidValue;
  return cudaEventRecord(event, stream);
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  CUDART_ENTER_STICKY();
  Event* e = rt.event(event);
  if (!e) return rt.record(cudaErrorInvalidResourceHandle);
  return rt.poll(e->marker) ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  CUDART_ENTER_STICKY();
  Event* e = rt.event(event);
  if (!e) return rt.record(cudaErrorInvalidResourceHandle);
  rt.timeline().wait(e->marker);
  rt.memory_pools().synchronized();
  return rt.sticky();
}

// Simulated milliseconds between the two events' completions.
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  CUDART_ENTER_STICKY();
  return rt.elapsed_ms(rt.event(start), rt.event(end), ms);
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, int mode) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  if (s->legacy) return rt.record(cudaErrorStreamCaptureUnsupported);
  if (s->capturing || mode < 0 || mode > 2) return rt.record(cudaErrorIllegalState);
  s->capturing = true;
  s->captured.clear();
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  if (!s->capturing) return rt.record(cudaErrorStreamCaptureUnmatched);
  if (!graph) return rt.record(cudaErrorInvalidValue);
  auto* g = new Graph();
  g->nodes = std::move(s->captured);
  s->captured.clear();
  s->capturing = false;
  graphs().push_back(g);
  *graph = reinterpret_cast<cudaGraph_t>(g);
  return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  if (!status) return rt.record(cudaErrorInvalidValue);
  *status = s->capturing ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}

// A graph from capture is a straight line of commands; instantiating copies it.
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long) {
  CUDART_ENTER_STICKY();
  if (!exec || !is_graph(graph)) return rt.record(cudaErrorInvalidValue);
  auto* copy = new Graph(*reinterpret_cast<Graph*>(graph));
  graphs().push_back(copy);
  *exec = reinterpret_cast<cudaGraphExec_t>(copy);
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph,
                                          unsigned long long flags) {
  return cudaGraphInstantiate(exec, graph, flags);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  if (!is_graph(exec)) return rt.record(cudaErrorInvalidValue);
  Stream* s = rt.stream(stream);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  for (const CommandPtr& node : reinterpret_cast<Graph*>(exec)->nodes) rt.submit(*s, clone(*node));
  return cudaSuccess;
}

static cudaError_t destroy_graph(void* g) {
  auto& all = graphs();
  for (auto it = all.begin(); it != all.end(); ++it) {
    if (*it != g) continue;
    delete *it;
    all.erase(it);
    return cudaSuccess;
  }
  return cudaErrorInvalidValue;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  CUDART_ENTER();
  return rt.record(destroy_graph(graph));
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  CUDART_ENTER();
  return rt.record(destroy_graph(exec));
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, void** nodes, std::size_t* count) {
  CUDART_ENTER();
  if (!is_graph(graph) || !count) return rt.record(cudaErrorInvalidValue);
  const auto& list = reinterpret_cast<Graph*>(graph)->nodes;
  if (nodes)
    for (std::size_t i = 0; i < std::min(*count, list.size()); ++i) nodes[i] = list[i].get();
  *count = list.size();
  return cudaSuccess;
}

}  // extern "C"

CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamSynchronize, (cudaStream_t s), (s))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamQuery, (cudaStream_t s), (s))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamWaitEvent,
                  (cudaStream_t s, cudaEvent_t e, unsigned f), (s, e, f))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaLaunchHostFunc,
                  (cudaStream_t s, cudaHostFn_t fn, void* data), (s, fn, data))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamAddCallback,
                  (cudaStream_t s, cudaStreamCallback_t cb, void* data, unsigned f),
                  (s, cb, data, f))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaEventRecord, (cudaEvent_t e, cudaStream_t s), (e, s))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaEventRecordWithFlags,
                  (cudaEvent_t e, cudaStream_t s, unsigned f), (e, s, f))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamBeginCapture, (cudaStream_t s, int mode), (s, mode))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamEndCapture, (cudaStream_t s, cudaGraph_t* g),
                  (s, g))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamIsCapturing,
                  (cudaStream_t s, cudaStreamCaptureStatus* st), (s, st))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaGraphLaunch, (cudaGraphExec_t g, cudaStream_t s), (g, s))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamGetFlags, (cudaStream_t s, unsigned* f), (s, f))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamGetPriority, (cudaStream_t s, int* p), (s, p))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamGetDevice, (cudaStream_t s, int* d), (s, d))
