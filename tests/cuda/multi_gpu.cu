// Two GPUs of the platform (two-gpu-nvlink): device selection, peer access and
// peer copies, which cross the NVLink element rather than PCIe.
#include <vector>

#include "check.h"

__global__ void iota(int* out, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = base + i;
}

int main() {
  int count = 0;
  CUDA_OK(cudaGetDeviceCount(&count));
  CHECK(count == 2);
  cudaDeviceProp p;
  CUDA_OK(cudaGetDeviceProperties(&p, 1));
  std::printf("device 1: %s, %d SMs, %zu bytes\n", p.name, p.multiProcessorCount, p.totalGlobalMem);
  CHECK(p.multiProcessorCount == 132 && p.totalGlobalMem == 141000000000ull);  // H200 profile
  CHECK(cudaSetDevice(2) == cudaErrorInvalidDevice);

  const int n = 1 << 20;
  int *d0 = nullptr, *d1 = nullptr;
  CUDA_OK(cudaSetDevice(0));
  CUDA_OK(cudaMalloc(&d0, n * sizeof(int)));
  iota<<<n / 256, 256>>>(d0, n, 5);
  CUDA_OK(cudaSetDevice(1));
  CUDA_OK(cudaMalloc(&d1, n * sizeof(int)));
  int dev = -1;
  cudaPointerAttributes a;
  CUDA_OK(cudaPointerGetAttributes(&a, d1));
  CHECK(a.device == 1);
  CUDA_OK(cudaGetDevice(&dev));
  CHECK(dev == 1);

  int can = 0;
  CUDA_OK(cudaDeviceCanAccessPeer(&can, 1, 0));
  CHECK(can == 1);
  CUDA_OK(cudaDeviceEnablePeerAccess(0, 0));
  CHECK(cudaDeviceEnablePeerAccess(0, 0) == cudaErrorPeerAccessAlreadyEnabled);
  CHECK(cudaGetLastError() == cudaErrorPeerAccessAlreadyEnabled);

  cudaEvent_t t0, t1;
  CUDA_OK(cudaEventCreate(&t0));
  CUDA_OK(cudaEventCreate(&t1));
  CUDA_OK(cudaSetDevice(0));
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaEventRecord(t0, 0));
  CUDA_OK(cudaMemcpyPeerAsync(d1, 1, d0, 0, n * sizeof(int), 0));
  CUDA_OK(cudaEventRecord(t1, 0));
  CUDA_OK(cudaEventSynchronize(t1));
  std::vector<int> host(n);
  CUDA_OK(cudaMemcpy(host.data(), d1, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(host[i] == 5 + i);
  float ms = 0;
  CUDA_OK(cudaEventElapsedTime(&ms, t0, t1));
  const double gbps = n * sizeof(int) / (ms * 1e-3) / 1e9;
  std::printf("peer copy %.4f ms, %.1f GB/s\n", ms, gbps);
  // NVLink 4 x18 carries 450 GB/s each way; PCIe Gen5 x16 could not exceed ~63 GB/s.
  CHECK(gbps > 100.0 && gbps <= 450.0);
  CUDA_OK(cudaSetDevice(1));
  CUDA_OK(cudaDeviceDisablePeerAccess(0));
  CHECK(cudaDeviceDisablePeerAccess(0) == cudaErrorPeerAccessNotEnabled);
  CUDA_OK(cudaFree(d1));
  CUDA_OK(cudaSetDevice(0));
  CUDA_OK(cudaFree(d0));
  std::printf("PASS\n");
  return 0;
}
