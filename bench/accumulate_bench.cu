// Launches that change the memory they read, which launch replay cannot
// skip: the kernel of NVIDIA's simpleStreams sample (each thread adds a
// factor to its element five times), launched over an array of N ints
// REPS times. The engine's cost per warp instruction is the figure
// (docs/performance.md, "Engine speed: accumulating launches").
//
//   accumulate_bench [N=8388608] [REPS=5]
#include <cstdio>
#include <cstdlib>

__global__ void accumulate(int* data, const int* factor, int iterations) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < iterations; ++k) data[i] += *factor;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 8 << 20;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  if (n <= 0 || n % 512 != 0 || reps <= 0) {
    std::fprintf(stderr, "accumulate_bench: N must be a positive multiple of 512, REPS positive\n");
    return 2;
  }
  int *data = nullptr, *factor = nullptr;
  cudaMalloc(&data, sizeof(int) * n);
  cudaMalloc(&factor, sizeof(int));
  cudaMemset(data, 0, sizeof(int) * n);
  const int five = 5;
  cudaMemcpy(factor, &five, sizeof five, cudaMemcpyHostToDevice);
  for (int r = 0; r < reps; ++r) accumulate<<<n / 512, 512>>>(data, factor, 5);
  int last = 0;
  cudaMemcpy(&last, data + n - 1, sizeof last, cudaMemcpyDeviceToHost);
  const bool ok = last == 25 * reps;  // five additions of 5 per launch
  std::printf("%d launches of %d threads: element %d = %d, %s\n", reps, n, n - 1, last,
              ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
