// Checkpoint and resume (cnuas exec --checkpoint / --resume): a program whose
// host code reads device results between kernels and decides the next launch
// from them. Each step launches three kernels:
//   advance: x[i] = (x[i] * 3 + step + i) mod 1000003        (device memory)
//   scale:   x[i] = (x[i] * pivot) mod 1000003, pivot = x[7] % 5 + 1 read back
//            by the host after advance (a launch parameter that depends on results)
//   tally:   managed[step] = sum of x mod 1000003, read by the host from managed memory
// and step 1's advance prints x[0] from the device (printf). Every result is
// checked against the same arithmetic on the host after each kernel, so a
// resumed run that restored the wrong memory fails here; stdout carries
// per-step checksums that the test compares between runs.
// Usage: checkpoint_steps [steps] [offset]  (default 6 steps, offset 0: the
// initial data is (i * 7 + offset) mod 1000003)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"

constexpr int kN = 300000;  // 1.2 MB: the array spans two 2 MiB device pages with aux
constexpr std::int64_t kP = 1000003;

__global__ void advance(int* x, int n, int step) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (step == 1 && i == 0) printf("device: step 1 starts with x[0] = %d\n", x[0]);
  if (i < n) x[i] = static_cast<int>((static_cast<long long>(x[i]) * 3 + step + i) % kP);
}

__global__ void scale(int* x, int n, int pivot) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = static_cast<int>(static_cast<long long>(x[i]) * pivot % kP);
}

// One thread: a deterministic sum, whatever the engine's thread order.
__global__ void tally(const int* x, int n, long long* managed, int step) {
  long long sum = 0;
  for (int i = 0; i < n; ++i) sum = (sum + x[i]) % kP;
  managed[step] = sum;
}

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 6;
  const int offset = argc > 2 ? std::atoi(argv[2]) : 0;
  CHECK(steps > 0 && steps <= 64);
  std::vector<std::int64_t> want(kN);
  std::vector<int> x(kN), got(kN);
  for (int i = 0; i < kN; ++i) x[i] = static_cast<int>((std::int64_t{i} * 7 + offset) % kP);
  for (int i = 0; i < kN; ++i) want[i] = x[i];
  int *dx = nullptr, *aux = nullptr;
  long long* managed = nullptr;
  CUDA_OK(cudaMalloc(&dx, kN * sizeof(int)));
  CUDA_OK(cudaMalloc(&aux, 1 << 20));  // untouched by the kernels: stays zeros
  CUDA_OK(cudaMallocManaged(&managed, 64 * sizeof(long long)));
  CUDA_OK(cudaMemcpy(dx, x.data(), kN * sizeof(int), cudaMemcpyHostToDevice));
  const int blocks = (kN + 255) / 256;
  for (int s = 0; s < steps; ++s) {
    advance<<<blocks, 256>>>(dx, kN, s);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(got.data(), dx, kN * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < kN; ++i) want[i] = (want[i] * 3 + s + i) % kP;
    for (int i = 0; i < kN; ++i) CHECK(got[i] == want[i]);
    const int pivot = got[7] % 5 + 1;  // the host decides the next launch from the result
    scale<<<blocks, 256>>>(dx, kN, pivot);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(got.data(), dx, kN * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < kN; ++i) want[i] = want[i] * pivot % kP;
    for (int i = 0; i < kN; ++i) CHECK(got[i] == want[i]);
    tally<<<1, 1>>>(dx, kN, managed, s);
    CUDA_OK(cudaDeviceSynchronize());
    std::int64_t sum = 0;
    for (int i = 0; i < kN; ++i) sum = (sum + want[i]) % kP;
    CHECK(managed[s] == sum);
    std::printf("step %d: pivot %d, sum %lld\n", s, pivot, static_cast<long long>(sum));
  }
  std::vector<int> zeros(1 << 18, -1);
  CUDA_OK(cudaMemcpy(zeros.data(), aux, 1 << 20, cudaMemcpyDeviceToHost));
  for (int v : zeros) CHECK(v == 0);
  CUDA_OK(cudaFree(dx));
  CUDA_OK(cudaFree(aux));
  CUDA_OK(cudaFree(managed));
  std::printf("PASS\n");
  return 0;
}
