// Kernels the driver-library test loads as a library (fat binary with PTX,
// fat binary with SASS only, bare cubin).
__device__ int calls;

extern "C" __global__ void __launch_bounds__(256) scale(float* x, float factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor;
  if (i == 0) atomicAdd(&calls, 1);
}
