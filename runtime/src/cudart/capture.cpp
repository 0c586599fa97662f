// Stream capture (engine/graph_capture.h): begin, end, status, the capture's
// dependencies, the thread's capture interaction mode.
#include "cudart/entry.h"
#include "cudart/graph_params.h"
#include "engine/graph_capture.h"

using namespace cnuas::cuda;

extern "C" {

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, int mode) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  return rt.record(begin_capture(*s, mode, nullptr, nullptr, nullptr, 0));
}

// Captures into an existing graph, after the given nodes of it.
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                          const cudaGraphNode_t* deps,
                                          const cudaGraphEdgeData* data, std::size_t count,
                                          int mode) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  Graph* g = graph_handle(graph);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  if (!g || g->capturing) return rt.record(cudaErrorInvalidValue);
  return rt.record(begin_capture(*s, mode, g, deps, data, count));
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  if (!graph) return rt.record(cudaErrorInvalidValue);
  Graph* g = nullptr;
  const cudaError_t e = end_capture(*s, &g);
  if (e == cudaSuccess || e == cudaErrorStreamCaptureInvalidated ||
      e == cudaErrorStreamCaptureUnjoined)
    *graph = reinterpret_cast<cudaGraph_t>(g);
  return rt.record(e);
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  if (!status) return rt.record(cudaErrorInvalidValue);
  *status = capture_status(*s);
  return cudaSuccess;
}

// CUDA 13's form, with the edge data of the dependencies.
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                     unsigned long long* id, cudaGraph_t* graph,
                                     const cudaGraphNode_t** deps, const cudaGraphEdgeData** data,
                                     std::size_t* count) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  return rt.record(capture_info(*s, status, id, graph, deps, data, count));
}

cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* nodes,
                                                const cudaGraphEdgeData*, std::size_t count,
                                                unsigned flags) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  return rt.record(update_capture_dependencies(*s, nodes, count, flags));
}

cudaError_t cudaThreadExchangeStreamCaptureMode(int* mode) {
  CUDART_ENTER();
  if (!mode || *mode < cudaStreamCaptureModeGlobal || *mode > cudaStreamCaptureModeRelaxed)
    return rt.record(cudaErrorInvalidValue);
  *mode = exchange_thread_capture_mode(*mode);
  return cudaSuccess;
}

}  // extern "C"

CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamBeginCapture, (cudaStream_t s, int mode), (s, mode))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamBeginCaptureToGraph,
                  (cudaStream_t s, cudaGraph_t g, const cudaGraphNode_t* d,
                   const cudaGraphEdgeData* e, std::size_t n, int mode),
                  (s, g, d, e, n, mode))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamEndCapture, (cudaStream_t s, cudaGraph_t* g),
                  (s, g))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamIsCapturing,
                  (cudaStream_t s, cudaStreamCaptureStatus* st), (s, st))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamGetCaptureInfo,
                  (cudaStream_t s, cudaStreamCaptureStatus* st, unsigned long long* id,
                   cudaGraph_t* g, const cudaGraphNode_t** d, const cudaGraphEdgeData** e,
                   std::size_t* n),
                  (s, st, id, g, d, e, n))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaStreamUpdateCaptureDependencies,
                  (cudaStream_t s, cudaGraphNode_t* d, const cudaGraphEdgeData* e, std::size_t n,
                   unsigned f),
                  (s, d, e, n, f))
