// The runtime picks the PTX for the highest compute capability not above the
// simulated GPU's (9.0): built with PTX for 8.0, 9.0 and 10.0, the kernel must
// report 900. Built twice: zstd-compressed and LZ4-compressed fat binaries.
#include "check.h"

__global__ void which(int* arch) {
#ifdef __CUDA_ARCH__
  *arch = __CUDA_ARCH__;
#endif
}

int main() {
  int* d = nullptr;
  CUDA_OK(cudaMalloc(&d, sizeof(int)));
  which<<<1, 1>>>(d);
  int arch = 0;
  CUDA_OK(cudaMemcpy(&arch, d, sizeof arch, cudaMemcpyDeviceToHost));
  std::printf("kernel compiled for __CUDA_ARCH__ %d\n", arch);
  CHECK(arch == 900);
  std::printf("PASS\n");
  return 0;
}
