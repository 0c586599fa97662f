// Unit B of the cuLink test (link_ptx.cu): the definitions unit A refers to,
// and a static variable, helper and printf string of the same names as unit A's.
#include <cstdio>

__device__ int counter = 5;
__device__ float factor = 1.5f;

// Static: the same names as the other unit's, private to each unit.
static __device__ int base = 100;
static __device__ __noinline__ int helper() {
  return atomicAdd(&base, 0);
}

__device__ float scale_by(float x) {
  return x * factor + 1.0f;
}

__device__ int b_tag() {
  if (threadIdx.x == 0 && blockIdx.x == 0) printf("unit b: helper %d\n", helper());
  return helper();
}
