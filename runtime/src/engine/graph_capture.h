// Stream capture: between cudaStreamBeginCapture and cudaStreamEndCapture a
// stream's work becomes nodes of a graph instead of running. Each capturing
// stream keeps the set of nodes its next work follows. An event recorded in a
// capturing stream remembers that set; a stream that waits for it joins the
// capture with it (a fork) or merges it into its own (a join), so the graph
// has the DAG of the streams' work. The capture ends on its origin stream,
// once every stream that joined has been joined back into it.
//
// Capture modes restrict "unsafe" calls (allocation, synchronous copies,
// device synchronization) made while a capture is under way: a thread whose
// interaction mode (cudaThreadExchangeStreamCaptureMode, global by default)
// forbids one gets cudaErrorStreamCaptureUnsupported and the captures that
// forbid it are invalidated.
#pragma once

#include <memory>
#include <thread>
#include <vector>

#include "engine/graph.h"

namespace cnuas::cuda {

struct CaptureSession {
  Graph* graph = nullptr;  // a registered top-level graph
  bool own_graph = true;   // false for cudaStreamBeginCaptureToGraph
  Stream* origin = nullptr;
  int mode = cudaStreamCaptureModeGlobal;
  std::thread::id thread;
  unsigned long long id = 0;
  bool invalidated = false;
  std::vector<Stream*> streams;               // every stream taking part
  std::vector<cudaGraphEdgeData> edge_zeros;  // what capture info returns as edge data
};

// Timeline::submit on a capturing stream: the command becomes a node.
void capture_command(Stream& s, CommandPtr cmd);
// cudaEventRecord on a capturing stream.
void capture_event_record(Event& e, Stream& s);

cudaError_t begin_capture(Stream& s, int mode, Graph* to_graph, const cudaGraphNode_t* deps,
                          const cudaGraphEdgeData* data, std::size_t count);
cudaError_t end_capture(Stream& s, Graph** out);
// cudaStreamWaitEvent: joins or merges a capture when the event was recorded
// in one; adds an event wait node for cudaEventWaitExternal. Sets `handled`
// when the wait was a capture's business (else the stream waits as usual).
cudaError_t capture_wait_event(Stream& s, Event& e, unsigned flags, bool* handled);
// A node for an external event record (cudaEventRecordExternal) in a capturing stream.
cudaError_t capture_external_record(Stream& s, Event& e);
// cudaMallocAsync on a capturing stream: an allocation node.
cudaError_t capture_malloc(Runtime& rt, Stream& s, void** ptr, std::size_t bytes);
// cudaGraphLaunch on a capturing stream: a child graph node.
cudaError_t capture_graph_launch(Stream& s, const Graph& g);
// cudaStreamGetCaptureInfo. Pointers may be null.
cudaError_t capture_info(Stream& s, cudaStreamCaptureStatus* status, unsigned long long* id,
                         cudaGraph_t* graph, const cudaGraphNode_t** deps,
                         const cudaGraphEdgeData** data, std::size_t* count);
cudaError_t update_capture_dependencies(Stream& s, const cudaGraphNode_t* nodes, std::size_t count,
                                        unsigned flags);
cudaStreamCaptureStatus capture_status(const Stream& s);

// Whether the calling thread may make an unsafe call now; when not,
// invalidates the captures that forbid it and returns
// cudaErrorStreamCaptureUnsupported.
cudaError_t check_capture_unsafe();
// A call that waits for a stream (cudaStreamSynchronize, cudaStreamQuery)
// while it captures: invalidates the capture.
cudaError_t check_capture_sync(Stream& s);
// Whether an event was last recorded in a capture still under way.
bool recorded_in_capture(const Event& e);
// cudaThreadExchangeStreamCaptureMode.
int exchange_thread_capture_mode(int mode);
void invalidate(CaptureSession& c);

}  // namespace cnuas::cuda
