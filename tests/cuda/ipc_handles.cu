// IPC handles within one process on two GPUs (two-gpu-nvlink): memory a
// device exports, opened on the other device, is the same memory at another
// address; an event handle opened on the other device orders its work.
#include <cuda.h>

#include <vector>

#include "cu_check.h"

__global__ void fill(int* p, int n, int value) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = value + i;
}

__global__ void scale(int* p, int n, int factor) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] *= factor;
}

int main() {
  int count = 0;
  CUDA_OK(cudaGetDeviceCount(&count));
  CHECK(count == 2);
  int ipc_events = 0;
  CUDA_OK(cudaDeviceGetAttribute(&ipc_events, cudaDevAttrIpcEventSupport, 0));
  CHECK(ipc_events == 1);

  const int n = 1 << 16;
  int* d0;
  CUDA_OK(cudaSetDevice(0));
  CUDA_OK(cudaMalloc(&d0, n * sizeof(int)));
  fill<<<n / 256, 256>>>(d0, n, 1000);
  cudaIpcMemHandle_t h;
  CUDA_OK(cudaIpcGetMemHandle(&h, d0));
  cudaIpcMemHandle_t bad;
  CHECK(cudaIpcGetMemHandle(&bad, d0 + 1) == cudaErrorInvalidValue);  // not an allocation's start
  void* pooled;
  CUDA_OK(cudaMallocAsync(&pooled, 1024, 0));
  CHECK(cudaIpcGetMemHandle(&bad, pooled) == cudaErrorInvalidValue);  // not cudaMalloc memory
  CUDA_OK(cudaFreeAsync(pooled, 0));

  // The exporting device's own context cannot open its handle, as on the driver.
  void* same = nullptr;
  CHECK(cudaIpcOpenMemHandle(&same, h, cudaIpcMemLazyEnablePeerAccess) ==
        cudaErrorDeviceUninitialized);
  CHECK(cudaGetLastError() == cudaErrorDeviceUninitialized);

  // Device 1 opens it: the same bytes at another address.
  CUDA_OK(cudaSetDevice(1));
  int* d1 = nullptr;
  CUDA_OK(cudaIpcOpenMemHandle(reinterpret_cast<void**>(&d1), h, cudaIpcMemLazyEnablePeerAccess));
  CHECK(d1 != nullptr && d1 != d0);
  int* again = nullptr;
  CUDA_OK(cudaIpcOpenMemHandle(reinterpret_cast<void**>(&again), h, 0));
  CHECK(again == d1);  // opened twice by one device: one mapping, counted
  cudaPointerAttributes a;
  CUDA_OK(cudaPointerGetAttributes(&a, d1));
  CHECK(a.type == cudaMemoryTypeDevice && a.device == 0);  // device 0's memory
  scale<<<n / 256, 256>>>(d1, n, 3);                       // device 1 writes through d1
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<int> host(n);
  CUDA_OK(cudaMemcpy(host.data(), d0, n * sizeof(int), cudaMemcpyDeviceToHost));  // read via d0
  for (int i = 0; i < n; ++i) CHECK(host[i] == 3 * (1000 + i));
  CHECK(cudaFree(d1) == cudaErrorInvalidValue);  // closed, not freed
  CUDA_OK(cudaIpcCloseMemHandle(d1));
  CUDA_OK(cudaIpcCloseMemHandle(d1));
  CHECK(cudaIpcCloseMemHandle(d1) == cudaErrorInvalidValue);  // both references gone

  // Events: device 0 records behind a long copy, device 1 waits on the opened handle.
  CUDA_OK(cudaSetDevice(0));
  cudaEvent_t plain, shared, start, copied;
  CUDA_OK(cudaEventCreate(&plain));
  cudaIpcEventHandle_t eh;
  CHECK(cudaIpcGetEventHandle(&eh, plain) == cudaErrorInvalidValue);  // not interprocess
  CUDA_OK(cudaEventCreateWithFlags(&shared, cudaEventInterprocess | cudaEventDisableTiming));
  CUDA_OK(cudaIpcGetEventHandle(&eh, shared));
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&copied));
  const size_t bytes = 64 << 20;
  char *src, *dst;
  CUDA_OK(cudaMallocHost(&src, bytes));
  CUDA_OK(cudaMalloc(&dst, bytes));
  cudaStream_t s0;
  CUDA_OK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
  CUDA_OK(cudaEventRecord(start, s0));
  CUDA_OK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, s0));
  CUDA_OK(cudaEventRecord(copied, s0));
  CUDA_OK(cudaEventRecord(shared, s0));

  CUDA_OK(cudaSetDevice(1));
  cudaEvent_t opened, done;
  CUDA_OK(cudaIpcOpenEventHandle(&opened, eh));
  CUDA_OK(cudaEventCreate(&done));
  cudaStream_t s1;
  CUDA_OK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  int* d1b;
  CUDA_OK(cudaMalloc(&d1b, n * sizeof(int)));
  CUDA_OK(cudaStreamWaitEvent(s1, opened, 0));
  fill<<<n / 256, 256, 0, s1>>>(d1b, n, 0);
  CUDA_OK(cudaEventRecord(done, s1));
  CHECK(cudaEventQuery(opened) == cudaErrorNotReady);  // the copy still runs
  // Each query costs the host 1 us of simulated time: device 1's small
  // kernel would be done within a few were it not waiting for the copy.
  int polls = 1;
  while (cudaEventQuery(done) == cudaErrorNotReady) ++polls;
  CUDA_OK(cudaEventQuery(copied));  // by then the copy has finished
  CUDA_OK(cudaEventQuery(opened));
  float copy_ms = 0;
  CUDA_OK(cudaEventElapsedTime(&copy_ms, start, copied));
  std::printf("copy on device 0: %.3f ms; device 1's kernel seen done after %d polls\n", copy_ms,
              polls);
  CHECK(copy_ms > 1.0f);              // 64 MiB over PCIe Gen4 x16: about 2 ms
  CHECK(polls >= 1000);               // device 1 waited for device 0's event: over 1 ms of polling
  CUDA_OK(cudaEventDestroy(opened));  // the importer's reference...
  CUDA_OK(cudaEventQuery(shared));    // ...the exporter's stays
  CUDA_OK(cudaEventDestroy(shared));
  CUDA_OK(cudaEventDestroy(done));
  CUDA_OK(cudaFree(d1b));
  CUDA_OK(cudaStreamDestroy(s1));

  // The driver's names for the same calls.
  CU_OK(cuInit(0));
  CUipcMemHandle dh;
  CU_OK(cuIpcGetMemHandle(&dh, reinterpret_cast<CUdeviceptr>(dst)));  // device 0 memory
  CUdeviceptr mapped = 0;
  CU_OK(cuIpcOpenMemHandle(&mapped, dh, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));  // on device 1
  CUDA_OK(cudaMemcpy(reinterpret_cast<void*>(mapped), host.data(), 64, cudaMemcpyHostToDevice));
  std::vector<int> back(16);
  CUDA_OK(cudaMemcpy(back.data(), dst, 64, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 16; ++i) CHECK(back[i] == host[i]);
  CU_OK(cuIpcCloseMemHandle(mapped));

  CUDA_OK(cudaSetDevice(0));
  CUDA_OK(cudaFree(dst));
  CUDA_OK(cudaFreeHost(src));
  CUDA_OK(cudaFree(d0));
  std::printf("PASS\n");
  return 0;
}
