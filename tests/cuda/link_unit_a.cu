// Unit A of the cuLink test (link_ptx.cu), compiled to relocatable PTX: its
// kernel calls a function and updates a variable that unit B defines, and it
// has a static variable, helper and printf string whose names unit B uses too.
#include <cstdio>

extern __device__ int counter;
extern __device__ float scale_by(float x);
extern __device__ int b_tag();

// Static: the same names as the other unit's, private to each unit.
static __device__ int base = 1;
static __device__ __noinline__ int helper() {
  return atomicAdd(&base, 0);
}

extern "C" __global__ void apply(const float* in, float* out, int* tags, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) printf("unit a: helper %d\n", helper());
  if (i >= n) return;
  out[i] = scale_by(in[i]);
  tags[i] = helper() + b_tag();
  atomicAdd(&counter, 1);
}
