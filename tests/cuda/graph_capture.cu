// Stream capture of a straight-line sequence and repeated graph launches.
#include <vector>

#include "check.h"

__global__ void axpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

int main() {
  const int n = 4096;
  std::vector<float> x(n), y(n, 1.0f);
  for (int i = 0; i < n; ++i) x[i] = 0.5f * (i % 10);
  float *dx = nullptr, *dy = nullptr, *host_y = nullptr;
  CUDA_OK(cudaMalloc(&dx, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&dy, n * sizeof(float)));
  CUDA_OK(cudaMallocHost(&host_y, n * sizeof(float)));
  CUDA_OK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  cudaStream_t s;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus status;
  CUDA_OK(cudaStreamIsCapturing(s, &status));
  CHECK(status == cudaStreamCaptureStatusActive);
  CUDA_OK(cudaMemcpyAsync(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice, s));
  axpy<<<n / 256, 256, 0, s>>>(dy, dx, 2.0f, n);
  CUDA_OK(cudaMemcpyAsync(host_y, dy, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  cudaGraph_t graph;
  CUDA_OK(cudaStreamEndCapture(s, &graph));
  CUDA_OK(cudaStreamIsCapturing(s, &status));
  CHECK(status == cudaStreamCaptureStatusNone);
  // Nothing ran while capturing.
  CUDA_OK(cudaStreamSynchronize(s));
  CHECK(host_y[0] == 0.0f);

  size_t nodes = 0;
  CUDA_OK(cudaGraphGetNodes(graph, nullptr, &nodes));
  CHECK(nodes == 3);
  cudaGraphExec_t exec;
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  cudaEvent_t t0, t1;
  CUDA_OK(cudaEventCreate(&t0));
  CUDA_OK(cudaEventCreate(&t1));
  CUDA_OK(cudaEventRecord(t0, s));
  for (int r = 0; r < 3; ++r) CUDA_OK(cudaGraphLaunch(exec, s));
  CUDA_OK(cudaEventRecord(t1, s));
  CUDA_OK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) CHECK(host_y[i] == 1.0f + 3 * 2.0f * x[i]);
  float ms = 0;
  CUDA_OK(cudaEventElapsedTime(&ms, t0, t1));
  CHECK(ms >= 3 * 0.004f);  // three kernels, each at least the 4 us launch overhead
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(graph));
  std::printf("PASS\n");
  return 0;
}
