// Managed memory: cudaMallocManaged and __managed__ variables, read and
// written by host and kernels with no explicit copies.
#include "check.h"

__managed__ int scale_by = 3;

__global__ void triple(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * scale_by + i;
}

int main() {
  const int n = 10000;
  int* data = nullptr;
  CUDA_OK(cudaMallocManaged(&data, n * sizeof(int)));
  cudaPointerAttributes a;
  CUDA_OK(cudaPointerGetAttributes(&a, data));
  CHECK(a.type == cudaMemoryTypeManaged);
  for (int i = 0; i < n; ++i) data[i] = i % 17;
  triple<<<(n + 255) / 256, 256>>>(data, n);
  CUDA_OK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) CHECK(data[i] == (i % 17) * 3 + i);
  scale_by = -1;  // the host writes the managed variable; the next launch sees it
  triple<<<(n + 255) / 256, 256>>>(data, n);
  CUDA_OK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) CHECK(data[i] == -((i % 17) * 3 + i) + i);
  size_t free_bytes = 0, total = 0;
  CUDA_OK(cudaMemGetInfo(&free_bytes, &total));
  CHECK(total == 80000000000ull);  // the default platform's H100: 80 GB
  CHECK(free_bytes < total);
  CUDA_OK(cudaFree(data));
  std::printf("PASS\n");
  return 0;
}
