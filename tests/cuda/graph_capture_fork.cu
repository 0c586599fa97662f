// Stream capture across streams: events fork the capture into other streams
// and join them back, so the graph has the streams' DAG; capture info and
// dependency updates; capture into an existing graph; an unjoined fork; an
// unsafe call (cudaMalloc) under the capture modes, from the capturing thread
// and from another.
#include <cstdio>
#include <thread>
#include <vector>

#include "check.h"

__global__ void set_all(float* v, float value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = value;
}

__global__ void axpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

int main() {
  const int n = 1024, threads = 256, blocks = n / threads;
  float *a, *b, *c, *d;
  CUDA_OK(cudaMalloc(&a, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&d, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&b, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&c, n * sizeof(float)));
  cudaStream_t s0, s1, s2;
  CUDA_OK(cudaStreamCreate(&s0));
  CUDA_OK(cudaStreamCreate(&s1));
  CUDA_OK(cudaStreamCreate(&s2));
  cudaEvent_t fork, join1, join2;
  CUDA_OK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CUDA_OK(cudaEventCreateWithFlags(&join1, cudaEventDisableTiming));
  CUDA_OK(cudaEventCreateWithFlags(&join2, cudaEventDisableTiming));

  // A on s0; B on s1, C on s2 and X on s0 after A; D on s0 after B, C and X:
  // a = 1; b = 2 + 3a; c = 4 - a; d = 5; a += 10 b + 100 c + 1000 d
  //   ->  a = 1 + 50 + 300 + 5000 = 5351.
  cudaGraph_t graph;
  CUDA_OK(cudaStreamBeginCapture(s0, cudaStreamCaptureModeGlobal));
  set_all<<<blocks, threads, 0, s0>>>(a, 1.0f, n);
  CUDA_OK(cudaEventRecord(fork, s0));
  CUDA_OK(cudaStreamWaitEvent(s1, fork, 0));
  CUDA_OK(cudaStreamWaitEvent(s2, fork, 0));
  cudaStreamCaptureStatus status;
  CUDA_OK(cudaStreamIsCapturing(s1, &status));  // s1 joined the capture
  CHECK(status == cudaStreamCaptureStatusActive);
  set_all<<<blocks, threads, 0, s1>>>(b, 2.0f, n);
  axpy<<<blocks, threads, 0, s1>>>(b, a, 3.0f, n);
  set_all<<<blocks, threads, 0, s2>>>(c, 4.0f, n);
  axpy<<<blocks, threads, 0, s2>>>(c, a, -1.0f, n);
  set_all<<<blocks, threads, 0, s0>>>(d, 5.0f, n);
  // s2's capture position: one node, the last axpy.
  unsigned long long id0 = 0, id2 = 1;
  const cudaGraphNode_t* deps = nullptr;
  size_t ndeps = 0;
  cudaGraph_t capturing = nullptr;
  CUDA_OK(cudaStreamGetCaptureInfo(s0, &status, &id0, &capturing, nullptr, nullptr, nullptr));
  CUDA_OK(cudaStreamGetCaptureInfo(s2, &status, &id2, nullptr, &deps, nullptr, &ndeps));
  CHECK(status == cudaStreamCaptureStatusActive && id0 == id2 && ndeps == 1);
  CHECK(capturing != nullptr);
  cudaGraphNodeType type;
  CUDA_OK(cudaGraphNodeGetType(deps[0], &type));
  CHECK(type == cudaGraphNodeTypeKernel);
  CUDA_OK(cudaEventRecord(join1, s1));
  CUDA_OK(cudaEventRecord(join2, s2));
  CHECK(cudaEventQuery(join1) == cudaErrorCapturedEvent);  // recorded inside the capture
  CUDA_OK(cudaStreamWaitEvent(s0, join1, 0));
  CUDA_OK(cudaStreamWaitEvent(s0, join2, 0));
  axpy<<<blocks, threads, 0, s0>>>(a, b, 10.0f, n);
  axpy<<<blocks, threads, 0, s0>>>(a, c, 100.0f, n);
  axpy<<<blocks, threads, 0, s0>>>(a, d, 1000.0f, n);
  CUDA_OK(cudaStreamEndCapture(s0, &graph));
  CHECK(graph == capturing);
  CUDA_OK(cudaStreamIsCapturing(s1, &status));  // the end of the capture releases s1 too
  CHECK(status == cudaStreamCaptureStatusNone);

  // Nodes: A, B1, B2, C1, C2, X, D1, D2, D3 = 9. Edges: A->B1, B1->B2,
  // A->C1, C1->C2, A->X, B2->D1, C2->D1, X->D1, D1->D2, D2->D3 = 10. One root (A).
  size_t count = 0;
  CUDA_OK(cudaGraphGetNodes(graph, nullptr, &count));
  CHECK(count == 9);
  CUDA_OK(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &count));
  CHECK(count == 10);
  CUDA_OK(cudaGraphGetRootNodes(graph, nullptr, &count));
  CHECK(count == 1);
  cudaGraphNode_t root;
  CUDA_OK(cudaGraphGetRootNodes(graph, &root, &count));
  CUDA_OK(cudaGraphNodeGetDependentNodes(root, nullptr, nullptr, &count));
  CHECK(count == 3);  // the fork
  cudaGraphExec_t exec;
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_OK(cudaGraphLaunch(exec, s0));
  CUDA_OK(cudaStreamSynchronize(s0));
  std::vector<float> h(n);
  CUDA_OK(cudaMemcpy(h.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(h[i] == 5351.0f);
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(graph));

  // cudaStreamUpdateCaptureDependencies: the second kernel is made to follow
  // nothing, so the graph has two roots and no edge.
  CUDA_OK(cudaStreamBeginCapture(s0, cudaStreamCaptureModeGlobal));
  set_all<<<blocks, threads, 0, s0>>>(a, 1.0f, n);
  CUDA_OK(cudaStreamUpdateCaptureDependencies(s0, nullptr, nullptr, 0,
                                              cudaStreamSetCaptureDependencies));
  set_all<<<blocks, threads, 0, s0>>>(b, 1.0f, n);
  CUDA_OK(cudaStreamEndCapture(s0, &graph));
  CUDA_OK(cudaGraphGetRootNodes(graph, nullptr, &count));
  CHECK(count == 2);
  CUDA_OK(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &count));
  CHECK(count == 0);

  // Capture into that graph, after its two roots: one more node, two more edges.
  cudaGraphNode_t roots[2];
  count = 2;
  CUDA_OK(cudaGraphGetRootNodes(graph, roots, &count));
  CUDA_OK(cudaStreamBeginCaptureToGraph(s0, graph, roots, nullptr, 2, cudaStreamCaptureModeGlobal));
  axpy<<<blocks, threads, 0, s0>>>(a, b, 2.0f, n);
  cudaGraph_t same;
  CUDA_OK(cudaStreamEndCapture(s0, &same));
  CHECK(same == graph);
  CUDA_OK(cudaGraphGetNodes(graph, nullptr, &count));
  CHECK(count == 3);
  CUDA_OK(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &count));
  CHECK(count == 2);
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  CUDA_OK(cudaGraphLaunch(exec, s0));
  CUDA_OK(cudaStreamSynchronize(s0));
  CUDA_OK(cudaMemcpy(h.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(h[i] == 3.0f);  // 1 + 2 * 1
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(graph));

  // A fork never joined back: ending the capture fails and gives no graph.
  CUDA_OK(cudaStreamBeginCapture(s0, cudaStreamCaptureModeGlobal));
  set_all<<<blocks, threads, 0, s0>>>(a, 1.0f, n);
  CUDA_OK(cudaEventRecord(fork, s0));
  CUDA_OK(cudaStreamWaitEvent(s1, fork, 0));
  set_all<<<blocks, threads, 0, s1>>>(b, 1.0f, n);
  graph = reinterpret_cast<cudaGraph_t>(1);
  CHECK(cudaStreamEndCapture(s0, &graph) == cudaErrorStreamCaptureUnjoined);
  CHECK(graph == nullptr);
  CUDA_OK(cudaStreamIsCapturing(s1, &status));
  CHECK(status == cudaStreamCaptureStatusNone);
  cudaGetLastError();

  // Global mode: cudaMalloc is unsafe while the capture runs; it fails and
  // invalidates the capture, which then ends without a graph.
  float* extra = nullptr;
  CUDA_OK(cudaStreamBeginCapture(s0, cudaStreamCaptureModeGlobal));
  set_all<<<blocks, threads, 0, s0>>>(a, 1.0f, n);
  CHECK(cudaMalloc(&extra, 256) == cudaErrorStreamCaptureUnsupported);
  CUDA_OK(cudaStreamIsCapturing(s0, &status));
  CHECK(status == cudaStreamCaptureStatusInvalidated);
  CHECK(cudaStreamEndCapture(s0, &graph) == cudaErrorStreamCaptureInvalidated);
  CHECK(graph == nullptr);
  cudaGetLastError();
  // The same call with the thread in relaxed mode is allowed and the capture survives.
  CUDA_OK(cudaStreamBeginCapture(s0, cudaStreamCaptureModeGlobal));
  set_all<<<blocks, threads, 0, s0>>>(a, 1.0f, n);
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  CUDA_OK(cudaThreadExchangeStreamCaptureMode(&mode));
  CHECK(mode == cudaStreamCaptureModeGlobal);
  CUDA_OK(cudaMalloc(&extra, 256));
  CUDA_OK(cudaThreadExchangeStreamCaptureMode(&mode));
  CHECK(mode == cudaStreamCaptureModeRelaxed);
  // Synchronizing a capturing stream is never allowed.
  CHECK(cudaStreamSynchronize(s0) == cudaErrorStreamCaptureUnsupported);
  CHECK(cudaStreamEndCapture(s0, &graph) == cudaErrorStreamCaptureInvalidated);
  cudaGetLastError();
  // Another thread's unsafe call: refused while a global-mode capture runs
  // (and the capture is invalidated), allowed beside a thread-local one.
  cudaError_t from_other = cudaSuccess;
  void* other_ptr = nullptr;
  auto allocate_elsewhere = [&] { from_other = cudaMalloc(&other_ptr, 256); };
  CUDA_OK(cudaStreamBeginCapture(s0, cudaStreamCaptureModeGlobal));
  set_all<<<blocks, threads, 0, s0>>>(a, 1.0f, n);
  std::thread(allocate_elsewhere).join();
  CHECK(from_other == cudaErrorStreamCaptureUnsupported);
  CHECK(cudaStreamEndCapture(s0, &graph) == cudaErrorStreamCaptureInvalidated);
  cudaGetLastError();
  CUDA_OK(cudaStreamBeginCapture(s0, cudaStreamCaptureModeThreadLocal));
  set_all<<<blocks, threads, 0, s0>>>(a, 1.0f, n);
  std::thread(allocate_elsewhere).join();
  CHECK(from_other == cudaSuccess && other_ptr != nullptr);
  CUDA_OK(cudaStreamEndCapture(s0, &graph));
  CUDA_OK(cudaGraphDestroy(graph));
  CUDA_OK(cudaFree(other_ptr));
  // A relaxed capture lets the capturing thread allocate.
  CUDA_OK(cudaStreamBeginCapture(s0, cudaStreamCaptureModeRelaxed));
  set_all<<<blocks, threads, 0, s0>>>(a, 1.0f, n);
  CUDA_OK(cudaFree(extra));
  CUDA_OK(cudaStreamEndCapture(s0, &graph));
  CUDA_OK(cudaGraphGetNodes(graph, nullptr, &count));
  CHECK(count == 1);
  CUDA_OK(cudaGraphDestroy(graph));
  std::printf("PASS\n");
  return 0;
}
