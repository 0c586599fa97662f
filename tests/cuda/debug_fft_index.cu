// The kernel debugger's test program: an FFT-style index permutation whose
// index arithmetic is a rem.u32 (the instruction the paper found wrong in a
// cuDNN FFT kernel), launched twice (the capture takes launch #1), plus a
// kernel that calls a device function. Self-checking against the host.
#include <cstdio>
#include <vector>

#include "check.h"

// out[i] = in[(i * stride) % n] * 3 + i % 7: a strided gather, as an FFT's twiddle index.
__global__ void strided_gather(const unsigned* in, unsigned* out, unsigned stride, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned j = (i * stride) % n;
  out[i] = in[j] * 3u + i % 7u;
}

__device__ __noinline__ float scaled(float v, int k) {
  return v * k + 0.5f;
}

__global__ void call_scale(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = scaled(data[i], i & 3);
}

int main() {
  const unsigned n = 100;  // not a power of two: the compiler must emit rem.u32
  std::vector<unsigned> in(n), out(n);
  for (unsigned i = 0; i < n; ++i) in[i] = i * i + 1;
  unsigned *d_in, *d_out;
  CUDA_OK(cudaMalloc(&d_in, n * sizeof(unsigned)));
  CUDA_OK(cudaMalloc(&d_out, n * sizeof(unsigned)));
  CUDA_OK(cudaMemcpy(d_in, in.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  bool ok = true;
  for (unsigned stride : {3u, 7u}) {
    strided_gather<<<2, 64>>>(d_in, d_out, stride, n);
    CUDA_OK(cudaMemcpy(out.data(), d_out, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (unsigned i = 0; i < n; ++i)
      if (out[i] != in[(i * stride) % n] * 3u + i % 7u) ok = false;
  }
  const int m = 40;
  std::vector<float> data(m);
  for (int i = 0; i < m; ++i) data[i] = 0.25f * i;
  float* d_data;
  CUDA_OK(cudaMalloc(&d_data, m * sizeof(float)));
  CUDA_OK(cudaMemcpy(d_data, data.data(), m * sizeof(float), cudaMemcpyHostToDevice));
  call_scale<<<1, 64>>>(d_data, m);
  std::vector<float> got(m);
  CUDA_OK(cudaMemcpy(got.data(), d_data, m * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < m; ++i)
    if (got[i] != data[i] * (i & 3) + 0.5f) ok = false;
  std::printf(ok ? "PASS\n" : "FAIL: results differ from the host's\n");
  return ok ? 0 : 1;
}
