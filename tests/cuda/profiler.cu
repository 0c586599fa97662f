// Profiler ranges: cudaProfilerStart/Stop and cuProfilerStart/Stop succeed
// around work (there is no external profiler to start; the run's trace and
// statistics already cover the whole program) and leave no error behind; the
// driver calls need a current context, as on hardware.
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <cudaProfiler.h>

#include "cu_check.h"

__global__ void square(int* v, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= v[i];
}

int main() {
  const int n = 1000;
  int host[n];
  for (int i = 0; i < n; ++i) host[i] = i - 500;
  int* v = nullptr;
  CUDA_OK(cudaMalloc(&v, sizeof host));
  CUDA_OK(cudaMemcpy(v, host, sizeof host, cudaMemcpyHostToDevice));
  CUDA_OK(cudaProfilerStart());
  square<<<(n + 255) / 256, 256>>>(v, n);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaProfilerStop());
  CUDA_OK(cudaMemcpy(host, v, sizeof host, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(host[i] == (i - 500) * (i - 500));
  CUDA_OK(cudaGetLastError());

  // The runtime made device 0's primary context current.
  CU_OK(cuProfilerStart());
  CU_OK(cuProfilerStop());
  CUcontext ctx = nullptr;
  CU_OK(cuCtxPopCurrent(&ctx));
  CHECK(cuProfilerStart() == CUDA_ERROR_INVALID_CONTEXT);
  CHECK(cuProfilerStop() == CUDA_ERROR_INVALID_CONTEXT);
  CU_OK(cuCtxPushCurrent(ctx));
  CU_OK(cuProfilerStart());
  CUDA_OK(cudaFree(v));
  std::printf("PASS\n");
  return 0;
}
