// A texture object destroyed right after an asynchronous launch that reads it
// stays valid for that launch, as on the GPU (issue 13): the kernel waits
// behind another kernel on its stream, so it runs only after the destroy call
// has returned. Before the fix the deferred kernel faulted on a dead handle.
#include <cstdio>
#include <vector>

#include "check.h"

constexpr int kN = 4096;

__global__ void scale(float* x, int n, float f) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= f;
}

__global__ void gather(cudaTextureObject_t t, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(t, n - 1 - i);
}

int main() {
  std::vector<float> host(kN);
  for (int i = 0; i < kN; ++i) host[i] = static_cast<float>(i);
  float *lin = nullptr, *out = nullptr, *busy = nullptr;
  CUDA_OK(cudaMalloc(&lin, kN * sizeof(float)));
  CUDA_OK(cudaMalloc(&out, kN * sizeof(float)));
  CUDA_OK(cudaMalloc(&busy, kN * sizeof(float)));
  CUDA_OK(cudaMemcpy(lin, host.data(), kN * sizeof(float), cudaMemcpyHostToDevice));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = lin;
  res.res.linear.desc = cudaCreateChannelDesc<float>();
  res.res.linear.sizeInBytes = kN * sizeof(float);
  cudaTextureDesc td = {};
  td.readMode = cudaReadModeElementType;
  cudaTextureObject_t t = 0;
  CUDA_OK(cudaCreateTextureObject(&t, &res, &td, nullptr));

  cudaStream_t s;
  CUDA_OK(cudaStreamCreate(&s));
  scale<<<kN / 256, 256, 0, s>>>(busy, kN, 2.0f);  // the gather waits for this one
  gather<<<kN / 256, 256, 0, s>>>(t, out, kN);
  CUDA_OK(cudaDestroyTextureObject(t));                         // before the gather has run
  CHECK(cudaDestroyTextureObject(t) == cudaErrorInvalidValue);  // destroyed once only
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);           // and recorded as the last error
  CUDA_OK(cudaStreamSynchronize(s));
  CUDA_OK(cudaMemcpy(host.data(), out, kN * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i) CHECK(host[i] == static_cast<float>(kN - 1 - i));  // reversed

  CUDA_OK(cudaStreamDestroy(s));
  CUDA_OK(cudaFree(lin));
  CUDA_OK(cudaFree(out));
  CUDA_OK(cudaFree(busy));
  std::printf("PASS\n");
  return 0;
}
