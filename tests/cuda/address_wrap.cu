// 32-bit shared and local addresses wrap at 2^32 (issue 22). nvcc may keep a
// shared address that is "negative" in a 32-bit register and add the offset
// in the load: [%r+imm] with %r = addr - imm (mod 2^32). The hardware adds in
// 32 bits and reaches addr; the loads below are written that way with inline
// PTX so that the pattern is there whatever nvcc's optimiser does.
#include <cstdio>
#include <vector>

#include "check.h"

constexpr int kRadius = 3, kBlock = 128;
constexpr unsigned kBias = 0x40000000u;  // any bias above the address makes the register wrap

// ld.shared.f64 from `addr` through a register that holds addr - kBias.
__device__ double shared_load_wrapped(const double* p) {
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(p));
  double v;
  asm volatile("ld.shared.f64 %0, [%1+0x40000000];" : "=d"(v) : "r"(addr - kBias));
  return v;
}

// A tiled 1-D convolution in double with a halo of kRadius on each side, its
// neighbour reads through wrapped 32-bit shared addresses.
__global__ void convolve(const double* in, const double* w, double* out, int n) {
  __shared__ double tile[kBlock + 2 * kRadius];
  for (int k = threadIdx.x; k < kBlock + 2 * kRadius; k += kBlock) {
    const int src = static_cast<int>(blockIdx.x) * kBlock + k - kRadius;
    tile[k] = (src >= 0 && src < n) ? in[src] : 0.0;
  }
  __syncthreads();
  const int g = static_cast<int>(blockIdx.x) * kBlock + static_cast<int>(threadIdx.x);
  if (g >= n) return;
  double s = 0;
  for (int j = -kRadius; j <= kRadius; ++j)
    s = __dadd_rn(s, __dmul_rn(shared_load_wrapped(&tile[threadIdx.x + kRadius + j]),
                               w[j + kRadius]));  // no fma: the host sums the same way
  out[g] = s;
}

// A per-thread array in local memory, stored and read back through wrapped
// 32-bit local addresses.
__global__ void local_wrap(int* out, int pick) {
  volatile int scratch[8];
  for (int k = 0; k < 8; ++k) scratch[k] = static_cast<int>(threadIdx.x) * 10 + k;
  const unsigned addr =
      static_cast<unsigned>(__cvta_generic_to_local(const_cast<int*>(&scratch[pick])));
  int v;
  asm volatile("st.local.u32 [%0+0x40000000], %1;" ::"r"(addr - kBias), "r"(v = -7));
  asm volatile("ld.local.u32 %0, [%1+0x40000000];" : "=r"(v) : "r"(addr - kBias));
  out[threadIdx.x] = v + scratch[(pick + 1) % 8];
}

int main() {
  const int n = 1000;
  std::vector<double> in(n), w(2 * kRadius + 1);
  for (int i = 0; i < n; ++i) in[i] = 0.25 * ((i * 37) % 101) - 3.0;
  for (int j = 0; j <= 2 * kRadius; ++j) w[j] = 1.0 / (j + 2);
  double *d_in, *d_w, *d_out;
  CUDA_OK(cudaMalloc(&d_in, n * sizeof(double)));
  CUDA_OK(cudaMalloc(&d_w, w.size() * sizeof(double)));
  CUDA_OK(cudaMalloc(&d_out, n * sizeof(double)));
  CUDA_OK(cudaMemcpy(d_in, in.data(), n * sizeof(double), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_w, w.data(), w.size() * sizeof(double), cudaMemcpyHostToDevice));
  convolve<<<(n + kBlock - 1) / kBlock, kBlock>>>(d_in, d_w, d_out, n);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<double> out(n);
  CUDA_OK(cudaMemcpy(out.data(), d_out, n * sizeof(double), cudaMemcpyDeviceToHost));
  // Host reference: the same sum in the same order, zero outside [0, n).
  for (int g = 0; g < n; ++g) {
    double s = 0;
    for (int j = -kRadius; j <= kRadius; ++j) {
      const int src = g + j;
      s += (src >= 0 && src < n ? in[src] : 0.0) * w[j + kRadius];
    }
    CHECK(out[g] == s);
  }

  int* d_local;
  CUDA_OK(cudaMalloc(&d_local, 64 * sizeof(int)));
  const int pick = 5;
  local_wrap<<<1, 64>>>(d_local, pick);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<int> loc(64);
  CUDA_OK(cudaMemcpy(loc.data(), d_local, 64 * sizeof(int), cudaMemcpyDeviceToHost));
  // Thread t stored -7 into scratch[pick] and reads it back, plus scratch[pick+1] = 10t + 6.
  for (int t = 0; t < 64; ++t) CHECK(loc[t] == -7 + 10 * t + (pick + 1) % 8);

  CUDA_OK(cudaFree(d_in));
  CUDA_OK(cudaFree(d_w));
  CUDA_OK(cudaFree(d_out));
  CUDA_OK(cudaFree(d_local));
  std::printf("PASS\n");
  return 0;
}
