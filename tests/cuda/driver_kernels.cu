// Kernels the driver-API test loads itself, as PTX text and as a fat binary.
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__device__ int launches;

extern "C" __global__ void count() {
  if (threadIdx.x == 0) atomicAdd(&launches, 1);
}
