// Streams with large asynchronous copies (the simpleStreams pattern): a kernel
// that adds a device-resident factor to every element of a 16 Mi-int array a
// few times, launched whole and then split over several streams, each part
// followed by its own async device-to-host copy into registered (pinned) host
// memory. Checked against the closed form: every element ends at
// factor * reps * iterations.
// Usage: streams_scale [elements] [reps] [streams]   (default 16 Mi, 10, 4)
#include <sys/mman.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "check.h"

__global__ void add_factor(int* data, const int* factor, int iterations) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < iterations; ++k) data[i] += *factor;  // the factor is reread each time
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 16 << 20;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 10;
  const int streams = argc > 3 ? std::atoi(argv[3]) : 4;
  const int iterations = 5, factor = 5, threads = 512;
  CHECK(n > 0 && reps > 0 && streams > 0 && n % (streams * threads) == 0);
  const size_t bytes = size_t(n) * sizeof(int);
  // Page-aligned host memory, pinned with cudaHostRegister as the sample does.
  void* mapped = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(mapped != MAP_FAILED);
  int* host = static_cast<int*>(mapped);
  CUDA_OK(cudaHostRegister(host, bytes, cudaHostRegisterMapped));
  int *d_data, *d_factor;
  CUDA_OK(cudaMalloc(&d_data, bytes));
  CUDA_OK(cudaMalloc(&d_factor, sizeof(int)));
  CUDA_OK(cudaMemcpy(d_factor, &factor, sizeof(int), cudaMemcpyHostToDevice));
  cudaStream_t* s = new cudaStream_t[streams];
  for (int i = 0; i < streams; ++i) CUDA_OK(cudaStreamCreate(&s[i]));
  const auto t0 = std::chrono::steady_clock::now();

  // Whole-array launches with a synchronous copy back after each.
  CUDA_OK(cudaMemset(d_data, 0, bytes));
  for (int r = 0; r < reps; ++r) {
    add_factor<<<n / threads, threads>>>(d_data, d_factor, iterations);
    CUDA_OK(cudaMemcpy(host, d_data, bytes, cudaMemcpyDeviceToHost));
  }
  for (int i = 0; i < n; i += 4099) CHECK(host[i] == factor * reps * iterations);

  // The same work split over the streams, each part copied back asynchronously.
  for (int i = 0; i < n; ++i) host[i] = -1;
  CUDA_OK(cudaMemset(d_data, 0, bytes));
  const int part = n / streams;
  for (int r = 0; r < reps; ++r) {
    for (int i = 0; i < streams; ++i)
      add_factor<<<part / threads, threads, 0, s[i]>>>(d_data + i * part, d_factor, iterations);
    for (int i = 0; i < streams; ++i)
      CUDA_OK(cudaMemcpyAsync(host + i * part, d_data + i * part, bytes / streams,
                              cudaMemcpyDeviceToHost, s[i]));
  }
  CUDA_OK(cudaDeviceSynchronize());
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (int i = 0; i < n; ++i)
    if (host[i] != factor * reps * iterations) {
      std::fprintf(stderr, "element %d is %d, expected %d\n", i, host[i],
                   factor * reps * iterations);
      return 1;
    }
  std::printf("streams: %d ints, %d reps, %d streams: %.2f s wall\n", n, reps, streams, wall);
  for (int i = 0; i < streams; ++i) CUDA_OK(cudaStreamDestroy(s[i]));
  delete[] s;
  CUDA_OK(cudaHostUnregister(host));
  munmap(mapped, bytes);
  CUDA_OK(cudaFree(d_data));
  CUDA_OK(cudaFree(d_factor));
  std::printf("PASS\n");
  return 0;
}
