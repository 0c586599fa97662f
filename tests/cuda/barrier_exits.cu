// Threads that have exited do not hold a CTA barrier back (issue 22): a 3-D
// stencil whose out-of-range threads return before __syncthreads(), a partial
// last warp, __syncthreads_count after early returns, and named barriers with
// a thread count (bar.sync and bar.arrive) reached by warps whose lanes partly
// exited. Every result is checked against a host computation.
#include <cstdio>
#include <vector>

#include "check.h"

constexpr int TX = 8, TY = 8, TZ = 4;

// 3-D stencil over a tile: out = centre + left + lower neighbour inside the tile.
__global__ void stencil(const float* in, float* out, int nx, int ny, int nz) {
  __shared__ float tile[TZ][TY][TX];
  const int x = blockIdx.x * TX + threadIdx.x, y = blockIdx.y * TY + threadIdx.y,
            z = blockIdx.z * TZ + threadIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;  // partly exits warps at the edges
  tile[threadIdx.z][threadIdx.y][threadIdx.x] = in[(z * ny + y) * nx + x];
  __syncthreads();
  float s = tile[threadIdx.z][threadIdx.y][threadIdx.x];
  if (threadIdx.x > 0) s += tile[threadIdx.z][threadIdx.y][threadIdx.x - 1];
  if (threadIdx.y > 0) s += tile[threadIdx.z][threadIdx.y - 1][threadIdx.x];
  out[(z * ny + y) * nx + x] = s;
}

// 48 threads (a full warp and a partial one); threads >= n return, the rest
// sum in shared memory after the barrier, and count themselves with bar.red.
__global__ void partial_warp(const int* in, int* out, int n) {
  __shared__ int v[48];
  const int t = threadIdx.x;
  if (t >= n) return;
  v[t] = in[t];
  const int live = __syncthreads_count(1);  // bar.red.popc over the threads still there
  int s = 0;
  for (int k = 0; k < n; ++k) s += v[k];
  out[t] = s * 100 + live;
}

// Four warps; in warp 3 lanes >= 24 return first. Warps 0 and 3 produce into
// shared memory and arrive at named barrier 1 (bar.arrive 1, 128 counts all
// four warps: warp 3's exited lanes count with it, as a warp arrives for all
// its threads); warps 1 and 2 wait for them there (bar.sync 1, 128), then all
// live threads meet at bar.sync 2, 128.
__global__ void named_barriers(int* out) {
  __shared__ int produced[128];
  const int t = threadIdx.x, warp = t / 32;
  if (warp == 3 && t % 32 >= 24) return;
  if (warp == 0 || warp == 3) {
    produced[t] = t * 3 + 1;
    asm volatile("bar.arrive 1, 128;" ::: "memory");
  } else {
    asm volatile("bar.sync 1, 128;" ::: "memory");
    // Warp 1 lane k reads warp 0 lane k; warp 2 lane k reads warp 3 lane k % 24.
    const int from = warp == 1 ? t - 32 : 96 + (t - 64) % 24;
    out[t] = produced[from];
  }
  asm volatile("bar.sync 2, 128;" ::: "memory");
  if (warp == 0 || warp == 3) out[t] = -t;
}

int main() {
  // Stencil: 12 x 10 x 6 cells in 8 x 8 x 4 tiles, so edge tiles have warps partly out of range.
  const int nx = 12, ny = 10, nz = 6, n = nx * ny * nz;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i % 97);
  float *din, *dout;
  CUDA_OK(cudaMalloc(&din, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&dout, n * sizeof(float)));
  CUDA_OK(cudaMemcpy(din, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  stencil<<<dim3(2, 2, 2), dim3(TX, TY, TZ)>>>(din, dout, nx, ny, nz);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<float> o(n);
  CUDA_OK(cudaMemcpy(o.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        const int c = (z * ny + y) * nx + x;
        float s = h[c];  // small integers: exact in float in any order
        if (x % TX) s += h[c - 1];
        if (y % TY) s += h[c - nx];
        CHECK(o[c] == s);
      }

  // Partial warp: 48 threads, 37 stay.
  const int m = 37;
  std::vector<int> in(48);
  int sum = 0;
  for (int t = 0; t < 48; ++t) in[t] = t * 7 - 50;
  for (int t = 0; t < m; ++t) sum += in[t];
  int *dpi, *dpo;
  CUDA_OK(cudaMalloc(&dpi, 48 * sizeof(int)));
  CUDA_OK(cudaMalloc(&dpo, 48 * sizeof(int)));
  CUDA_OK(cudaMemcpy(dpi, in.data(), 48 * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(dpo, 0, 48 * sizeof(int)));
  partial_warp<<<1, 48>>>(dpi, dpo, m);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<int> po(48);
  CUDA_OK(cudaMemcpy(po.data(), dpo, 48 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 48; ++t) CHECK(po[t] == (t < m ? sum * 100 + m : 0));

  // Named barriers with a thread count.
  int* dn;
  CUDA_OK(cudaMalloc(&dn, 128 * sizeof(int)));
  CUDA_OK(cudaMemset(dn, 0, 128 * sizeof(int)));
  named_barriers<<<1, 128>>>(dn);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<int> no(128);
  CUDA_OK(cudaMemcpy(no.data(), dn, 128 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 128; ++t) {
    const int warp = t / 32;
    int want;
    if (warp == 0)
      want = -t;
    else if (warp == 3)
      want = t % 32 < 24 ? -t : 0;
    else if (warp == 1)
      want = (t - 32) * 3 + 1;
    else
      want = (96 + (t - 64) % 24) * 3 + 1;
    CHECK(no[t] == want);
  }
  std::printf("PASS\n");
  return 0;
}
