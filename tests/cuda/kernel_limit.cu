// A kernel that never ends is stopped at the launch's warp-instruction limit
// (cnuas exec --kernel-limit, CNUAS_KERNEL_LIMIT), reported with kernel, CTA,
// thread and PTX line, and fails as a watchdog-stopped launch does
// (cudaErrorLaunchTimeout). A kernel below the limit runs.
#include "check.h"

// Counts while it waits: its state changes, so only the limit stops it (a
// spin that repeats itself is proven endless sooner: spin_release.cu).
__global__ void spin(volatile int* flag, int* out) {
  int n = 0;
  while (*flag == 0) ++n;
  *out = n;
}

__global__ void count(int* out, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += i;
  *out = s;
}

int main() {
  int *flag = nullptr, *out = nullptr;
  CUDA_OK(cudaMalloc(&flag, sizeof(int)));
  CUDA_OK(cudaMalloc(&out, sizeof(int)));
  CUDA_OK(cudaMemset(flag, 0, sizeof(int)));
  // 100 iterations of a short loop: a few hundred warp instructions.
  count<<<1, 1>>>(out, 100);
  CUDA_OK(cudaDeviceSynchronize());
  int s = 0;
  CUDA_OK(cudaMemcpy(&s, out, sizeof s, cudaMemcpyDeviceToHost));
  CHECK(s == 4950);
  spin<<<1, 32>>>(flag, out);  // nobody sets the flag
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchTimeout);
  std::printf("PASS\n");
  return 0;
}
