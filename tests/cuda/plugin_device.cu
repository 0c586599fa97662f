// A GPU element from a plugin (plugin_device/fixed_time_gpu.cpp) is a CUDA
// device: the program sees its description, its kernels compute on its PTX
// engine, and each takes the plugin's fixed kernel_time (7 us on
// plugin_device/plugin-gpu.yaml).
#include <cstring>

#include "check.h"

__global__ void scale(float* v, int n, float k) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= k;
}

int main() {
  int count = 0;
  CUDA_OK(cudaGetDeviceCount(&count));
  CHECK(count == 1);
  cudaDeviceProp p;
  CUDA_OK(cudaGetDeviceProperties(&p, 0));
  CHECK(std::strcmp(p.name, "Cnuas test plugin GPU") == 0);
  CHECK(p.major == 8 && p.minor == 0);
  CHECK(p.multiProcessorCount == 5);  // the platform's set: overrides the schema default 3
  CHECK(p.totalGlobalMem == (size_t{1} << 30));

  const int n = 1000;
  float host[n];
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  float* v = nullptr;
  CUDA_OK(cudaMalloc(&v, sizeof host));
  CUDA_OK(cudaMemcpy(v, host, sizeof host, cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&stop));
  CUDA_OK(cudaEventRecord(start));
  scale<<<(n + 127) / 128, 128>>>(v, n, 2.5f);
  CUDA_OK(cudaEventRecord(stop));
  CUDA_OK(cudaEventSynchronize(stop));
  float ms = 0;
  CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
  CHECK(ms > 0.00699f && ms < 0.00701f);  // kernel_time: 7 us, nothing else between the events
  CUDA_OK(cudaMemcpy(host, v, sizeof host, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(host[i] == 2.5f * static_cast<float>(i));
  std::printf("PASS\n");
  return 0;
}
