// Error paths: bad pointers, bad launch configurations (launch bounds too), an illegal address in
// a kernel (sticky cudaErrorIllegalAddress), an unsupported call, names and strings.
#include <cstring>

#include "check.h"

__global__ void store(int* p, int value) {
  p[threadIdx.x] = value;
}

// Compiled for at most 128 threads per CTA (.maxntid 128 in its PTX).
__global__ void __launch_bounds__(128) bounded_store(int* p, int value) {
  p[threadIdx.x] = value;
}

int main() {
  int* d = nullptr;
  CUDA_OK(cudaMalloc(&d, 64 * sizeof(int)));
  int host[64] = {};

  // A copy from a host pointer declared as device memory: refused, not sticky.
  CHECK(cudaMemcpy(host, host + 1, sizeof(int), cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaSuccess);
  // Past the end of an allocation.
  CHECK(cudaMemcpy(host, d + 60, 8 * sizeof(int), cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  CHECK(cudaMemcpy(host, d, sizeof(int), static_cast<cudaMemcpyKind>(9)) ==
        cudaErrorInvalidMemcpyDirection);
  CHECK(cudaFree(host) == cudaErrorInvalidValue);
  cudaGetLastError();

  // Bad launch configurations fail at launch and are reported by cudaGetLastError.
  store<<<1, 2048>>>(d, 1);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  store<<<dim3(1, 70000), 32>>>(d, 1);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  // More threads than __launch_bounds__ allows: "too many resources requested".
  bounded_store<<<1, 256>>>(d, 1);
  CHECK(cudaGetLastError() == cudaErrorLaunchOutOfResources);
  cudaFuncAttributes attributes;
  CUDA_OK(cudaFuncGetAttributes(&attributes, bounded_store));
  CHECK(attributes.maxThreadsPerBlock == 128);
  bounded_store<<<1, 64>>>(d, 5);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost));
  for (int v : host) CHECK(v == 5);
  store<<<1, 64>>>(d, 7);
  CUDA_OK(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost));
  for (int v : host) CHECK(v == 7);

  // An unsupported call names itself once and returns cudaErrorNotSupported.
  CHECK(cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,
                                           cudaFlushGPUDirectRDMAWritesToOwner) ==
        cudaErrorNotSupported);
  CHECK(cudaGetLastError() == cudaErrorNotSupported);

  CHECK(std::strcmp(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress") == 0);
  CHECK(std::strcmp(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument") == 0);

  // A store far outside any allocation: the launch itself succeeds, the fault
  // surfaces at the next synchronization and stays.
  store<<<1, 32>>>(d + (1 << 28), 1);
  CUDA_OK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
  CHECK(cudaGetLastError() == cudaErrorIllegalAddress);
  CHECK(cudaGetLastError() == cudaErrorIllegalAddress);  // sticky: not reset
  void* more = nullptr;
  CHECK(cudaMalloc(&more, 16) == cudaErrorIllegalAddress);
  CHECK(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost) == cudaErrorIllegalAddress);
  std::printf("PASS\n");
  return 0;
}
