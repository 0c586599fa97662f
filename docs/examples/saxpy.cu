// The smallest complete CUDA program the docs run: y = a x + y on a million
// floats, checked on the host. Arguments are ignored (the docs pass some to
// show that they reach the program).
#include <cstdio>
#include <vector>

__global__ void saxpy(int n, float a, const float* x, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
  const int n = 1 << 20;
  std::vector<float> x(n, 1.0f), y(n, 2.0f);
  float *dx = nullptr, *dy = nullptr;
  if (cudaMalloc(&dx, n * sizeof(float)) != cudaSuccess ||
      cudaMalloc(&dy, n * sizeof(float)) != cudaSuccess)
    return 1;
  cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  saxpy<<<(n + 255) / 256, 256>>>(n, 3.0f, dx, dy);
  cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(dx);
  cudaFree(dy);
  for (int i = 0; i < n; ++i)
    if (y[i] != 5.0f) {  // 3 x 1 + 2, exact in float
      std::printf("y[%d] = %g, expected 5: FAILED\n", i, y[i]);
      return 1;
    }
  std::printf("saxpy: %d elements match: PASS\n", n);
  return 0;
}
