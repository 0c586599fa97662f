// The library unit of the relocatable-device-code program (rdc_main.cu):
// device functions and variables the main unit's kernels use, a kernel of its
// own, and a printf string and static function named as the main unit's are.
#include <cstdio>

__device__ int offset = 1000;
__device__ float weights[4] = {0.5f, 1.0f, 2.0f, 4.0f};
__device__ unsigned long long calls = 0;

static __device__ __noinline__ int unit_id() {
  return atomicAdd(&offset, 0) > 0 ? 2 : -2;
}

__device__ int shifted(int x) {
  atomicAdd(&calls, 1ull);
  return x + offset;
}

__device__ float weighted(float x, int k) {
  return x * weights[k & 3];
}

__global__ void lib_kernel(int* out) {
  if (threadIdx.x == 0) printf("lib unit %d\n", unit_id());
  out[threadIdx.x] = shifted(static_cast<int>(threadIdx.x));
}
