// Async copies from pinned memory: results, PCIe bandwidth in simulated time,
// and copy/compute overlap across streams.
#include <vector>

#include "check.h"

__global__ void scale(float* x, int n, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * k + 1.0f;
}

int main() {
  const int n = 1 << 22;  // 16 MiB of floats
  const size_t bytes = n * sizeof(float);
  float *host = nullptr, *back = nullptr, *dev = nullptr;
  CUDA_OK(cudaMallocHost(&host, bytes));
  CUDA_OK(cudaHostAlloc(&back, bytes, cudaHostAllocDefault));
  CUDA_OK(cudaMalloc(&dev, bytes));
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i % 1000);
  cudaPointerAttributes attr;
  CUDA_OK(cudaPointerGetAttributes(&attr, host));
  CHECK(attr.type == cudaMemoryTypeHost);
  CUDA_OK(cudaPointerGetAttributes(&attr, dev));
  CHECK(attr.type == cudaMemoryTypeDevice && attr.device == 0);

  // One stream: copy in, compute, copy out, timed by events.
  cudaStream_t s;
  CUDA_OK(cudaStreamCreate(&s));
  cudaEvent_t t0, t1, t2;
  for (cudaEvent_t* e : {&t0, &t1, &t2}) CUDA_OK(cudaEventCreate(e));
  CUDA_OK(cudaEventRecord(t0, s));
  CUDA_OK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s));
  CUDA_OK(cudaEventRecord(t1, s));
  scale<<<(n + 255) / 256, 256, 0, s>>>(dev, n, 2.0f);
  CUDA_OK(cudaMemcpyAsync(back, dev, bytes, cudaMemcpyDeviceToHost, s));
  CUDA_OK(cudaEventRecord(t2, s));
  CUDA_OK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i)
    if (back[i] != static_cast<float>(i % 1000) * 2.0f + 1.0f) {
      std::fprintf(stderr, "back[%d] = %g\n", i, back[i]);
      return 1;
    }
  float copy_ms = 0, serial_ms = 0;
  CUDA_OK(cudaEventElapsedTime(&copy_ms, t0, t1));
  CUDA_OK(cudaEventElapsedTime(&serial_ms, t0, t2));
  // The copy cannot beat the Gen4 x16 line rate, and TLP headers and read
  // round trips cost at most a few tens of percent.
  const double gbps = bytes / (copy_ms * 1e-3) / 1e9;
  std::printf("H2D %.3f ms (%.2f GB/s), in-compute-out %.3f ms\n", copy_ms, gbps, serial_ms);
  CHECK(gbps < kGen4x16BytesPerSecond / 1e9);
  CHECK(gbps > 0.7 * kGen4x16BytesPerSecond / 1e9);
  CHECK(serial_ms > 2 * copy_ms);

  // Four chunks on two streams: H2D of one chunk overlaps D2H of another, so
  // the pipeline finishes sooner than the serial version.
  cudaStream_t st[2];
  for (auto& x : st) CUDA_OK(cudaStreamCreate(&x));
  const int chunks = 4, cn = n / chunks;
  CUDA_OK(cudaEventRecord(t0, st[0]));
  CUDA_OK(cudaStreamWaitEvent(st[1], t0, 0));
  for (int c = 0; c < chunks; ++c) {
    cudaStream_t x = st[c % 2];
    CUDA_OK(cudaMemcpyAsync(dev + c * cn, host + c * cn, cn * sizeof(float),
                            cudaMemcpyHostToDevice, x));
    scale<<<(cn + 255) / 256, 256, 0, x>>>(dev + c * cn, cn, 3.0f);
    CUDA_OK(cudaMemcpyAsync(back + c * cn, dev + c * cn, cn * sizeof(float),
                            cudaMemcpyDeviceToHost, x));
  }
  CUDA_OK(cudaEventRecord(t1, st[1]));
  CUDA_OK(cudaEventRecord(t2, st[0]));
  CUDA_OK(cudaDeviceSynchronize());
  float a_ms = 0, b_ms = 0;
  CUDA_OK(cudaEventElapsedTime(&a_ms, t0, t1));
  CUDA_OK(cudaEventElapsedTime(&b_ms, t0, t2));
  const float pipelined_ms = a_ms > b_ms ? a_ms : b_ms;
  std::printf("pipelined %.3f ms\n", pipelined_ms);
  CHECK(pipelined_ms < 0.9f * serial_ms);
  for (int i = 0; i < n; i += 13) CHECK(back[i] == static_cast<float>(i % 1000) * 3.0f + 1.0f);

  CUDA_OK(cudaFreeHost(host));
  CUDA_OK(cudaFreeHost(back));
  CUDA_OK(cudaFree(dev));
  std::printf("PASS\n");
  return 0;
}
