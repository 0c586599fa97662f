// Streams, events and host callbacks (stream capture: cudart/capture.cpp).
#include <vector>

#include "cudart/entry.h"
#include "engine/graph.h"
#include "engine/graph_capture.h"
#include "engine/memory_pools.h"

using namespace cnuas::cuda;

namespace {

// `spec` says what capture records: a host node (cudaLaunchHostFunc), or null
// for work capture refuses.
cudaError_t add_host_work(Runtime& rt, cudaStream_t stream, std::function<void()> work,
                          std::shared_ptr<const NodeSpec> spec) {
  Stream* s = rt.stream(stream);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  if (s->capturing() && !spec) {
    invalidate(*s->capture);
    return rt.record(cudaErrorStreamCaptureUnsupported);
  }
  auto cmd = std::make_shared<Command>();
  cmd->name = "host function";
  cmd->spec = std::move(spec);
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
  if (const cudaError_t e = check_capture_sync(*s)) return rt.record(e);
  rt.timeline().wait(s->last);
  rt.memory_pools().synchronized();
  return rt.sticky();
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  if (const cudaError_t e = check_capture_sync(*s)) return rt.record(e);
  return rt.poll(s->last) ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  Event* e = rt.event(event);
  if (!s || !e) return rt.record(cudaErrorInvalidResourceHandle);
  if (flags > 1) return rt.record(cudaErrorInvalidValue);
  bool captured = false;  // a fork or join of a capture, or a wait node
  if (const cudaError_t err = capture_wait_event(*s, *e, flags, &captured)) return rt.record(err);
  if (!captured && e->marker) s->pending_waits.push_back(e->marker);
  return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* data) {
  CUDART_ENTER_STICKY();
  if (!fn) return rt.record(cudaErrorInvalidValue);
  auto spec = std::make_shared<NodeSpec>();
  spec->type = NodeType::Host;
  spec->fn = fn;
  spec->user_data = data;
  return add_host_work(
      rt, stream, [fn, data] { fn(data); }, std::move(spec));
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t cb, void* data,
                                  unsigned flags) {
  CUDART_ENTER_STICKY();
  if (!cb || flags != 0) return rt.record(cudaErrorInvalidValue);
  return add_host_work(
      rt, stream, [stream, cb, data] { cb(stream, cudaSuccess, data); }, nullptr);
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

// In a capturing stream a record marks the capture's position (for other
// streams to fork or join), or with cudaEventRecordExternal becomes a node.
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned flags) {
  CUDART_ENTER_STICKY();
  Event* e = rt.event(event);
  Stream* s = rt.stream(stream);
  if (!e || !s) return rt.record(cudaErrorInvalidResourceHandle);
  if (flags > 1) return rt.record(cudaErrorInvalidValue);
  if ((flags & 1) && s->capturing()) return rt.record(capture_external_record(*s, *e));
  rt.record_event(*e, *s);
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return cudaEventRecordWithFlags(event, stream, 0);
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  CUDART_ENTER_STICKY();
  Event* e = rt.event(event);
  if (!e) return rt.record(cudaErrorInvalidResourceHandle);
  if (recorded_in_capture(*e)) return rt.record(cudaErrorCapturedEvent);
  return rt.poll(e->marker) ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  CUDART_ENTER_STICKY();
  Event* e = rt.event(event);
  if (!e) return rt.record(cudaErrorInvalidResourceHandle);
  if (recorded_in_capture(*e)) return rt.record(cudaErrorCapturedEvent);
  rt.timeline().wait(e->marker);
  rt.memory_pools().synchronized();
  return rt.sticky();
}

// Simulated milliseconds between the two events' completions.
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  CUDART_ENTER_STICKY();
  for (cudaEvent_t handle : {start, end})
    if (const Event* e = rt.event(handle); e && recorded_in_capture(*e))
      return rt.record(cudaErrorCapturedEvent);
  return rt.elapsed_ms(rt.event(start), rt.event(end), ms);
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
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamGetFlags, (cudaStream_t s, unsigned* f), (s, f))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamGetPriority, (cudaStream_t s, int* p), (s, p))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamGetDevice, (cudaStream_t s, int* d), (s, d))
