// Streams and events: cross-stream order through cudaStreamWaitEvent, legacy
// default stream barriers, host functions, and elapsed times in simulated time.
#include <vector>

#include "check.h"

__global__ void fill(int* out, int n, int value) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = value + i;
}

__global__ void add_from(int* out, const int* in, int n, int rounds) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int v = in[i];
    for (int r = 0; r < rounds; ++r) v = v * 3 + 1;  // work, so the kernel takes time
    out[i] = v;
  }
}

static int host_value(int i, int rounds) {
  int v = 7 + i;
  for (int r = 0; r < rounds; ++r) v = v * 3 + 1;
  return v;
}

static void CUDART_CB mark(void* flag) {
  *static_cast<int*>(flag) = 1;
}

int main() {
  const int n = 1 << 16, rounds = 20;
  int *a = nullptr, *b = nullptr;
  CUDA_OK(cudaMalloc(&a, n * sizeof(int)));
  CUDA_OK(cudaMalloc(&b, n * sizeof(int)));
  cudaStream_t s1, s2;
  CUDA_OK(cudaStreamCreate(&s1));
  CUDA_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t start, filled, done;
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&filled));
  CUDA_OK(cudaEventCreate(&done));

  // s2 consumes what s1 produces, ordered only by the event.
  CUDA_OK(cudaEventRecord(start, s1));
  fill<<<64, 256, 0, s1>>>(a, n, 7);
  CUDA_OK(cudaEventRecord(filled, s1));
  CUDA_OK(cudaStreamWaitEvent(s2, filled, 0));
  add_from<<<64, 256, 0, s2>>>(b, a, n, rounds);
  int flag = 0;
  CUDA_OK(cudaLaunchHostFunc(s2, mark, &flag));
  CUDA_OK(cudaEventRecord(done, s2));
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaEventSynchronize(done));
  CHECK(flag == 1);
  CHECK(cudaEventQuery(done) == cudaSuccess);

  std::vector<int> host(n);
  CUDA_OK(cudaMemcpy(host.data(), b, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (host[i] != host_value(i, rounds)) {
      std::fprintf(stderr, "b[%d] = %d, expected %d\n", i, host[i], host_value(i, rounds));
      return 1;
    }

  // Elapsed times are simulated. The default platform charges each launch 4 us
  // plus issue time, and the two kernels run one after the other.
  float fill_ms = 0, total_ms = 0;
  CUDA_OK(cudaEventElapsedTime(&fill_ms, start, filled));
  CUDA_OK(cudaEventElapsedTime(&total_ms, start, done));
  std::printf("fill %.6f ms, fill + add %.6f ms\n", fill_ms, total_ms);
  CHECK(fill_ms >= 0.004f && fill_ms < 0.005f);
  CHECK(total_ms >= fill_ms + 0.004f);
  CHECK(total_ms < 0.010f);

  // The legacy default stream waits for blocking s1: the copy sees the kernel's data.
  fill<<<64, 256, 0, s1>>>(a, n, 100);
  CUDA_OK(cudaMemcpy(host.data(), a, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i += 97) CHECK(host[i] == 100 + i);

  // An event with timing disabled cannot be timed.
  cudaEvent_t untimed;
  CUDA_OK(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
  CUDA_OK(cudaEventRecord(untimed, s1));
  CUDA_OK(cudaEventSynchronize(untimed));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, untimed) == cudaErrorInvalidResourceHandle);

  int least = 0, greatest = 0;
  CUDA_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t urgent;
  CUDA_OK(cudaStreamCreateWithPriority(&urgent, cudaStreamNonBlocking, greatest));
  int priority = 0;
  unsigned flags = 0;
  CUDA_OK(cudaStreamGetPriority(urgent, &priority));
  CUDA_OK(cudaStreamGetFlags(urgent, &flags));
  CHECK(priority == greatest && flags == cudaStreamNonBlocking);

  // Polling makes progress: a spinning host sees the stream finish.
  add_from<<<64, 256, 0, urgent>>>(b, a, n, rounds);
  int polls = 0;
  while (cudaStreamQuery(urgent) == cudaErrorNotReady) ++polls;
  CHECK(polls > 0);
  for (cudaStream_t s : {s1, s2, urgent}) CUDA_OK(cudaStreamDestroy(s));
  for (cudaEvent_t e : {start, filled, done, untimed}) CUDA_OK(cudaEventDestroy(e));
  CUDA_OK(cudaFree(a));
  CUDA_OK(cudaFree(b));
  std::printf("PASS\n");
  return 0;
}
