// CUDA calls from two host threads at once: each thread has its own stream,
// pinned and device buffers, and in a loop copies in, launches, copies out and
// synchronizes its stream; the results must equal a host computation. Then the
// per-thread state: a thread's last error and current device are its own.
// Runs on the two-GPU platform (two-gpu-nvlink.yaml) so that devices can differ.
#include <atomic>
#include <thread>
#include <vector>

#include "check.h"

__global__ void affine(float* y, const float* x, float a, float b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}

constexpr int kElements = 4096;
constexpr int kIterations = 24;

// One worker: every value is a small integer or half-integer, so a * x + b is
// exact in float and the host reference must match bit for bit.
static int work(int id) {
  CUDA_OK(cudaSetDevice(0));  // both threads share device 0: the contended case
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  float *host_in = nullptr, *host_out = nullptr, *dev_in = nullptr, *dev_out = nullptr;
  const std::size_t bytes = kElements * sizeof(float);
  CUDA_OK(cudaMallocHost(&host_in, bytes));
  CUDA_OK(cudaMallocHost(&host_out, bytes));
  CUDA_OK(cudaMalloc(&dev_in, bytes));
  CUDA_OK(cudaMalloc(&dev_out, bytes));
  const float a = static_cast<float>(id + 2);
  for (int k = 0; k < kIterations; ++k) {
    for (int i = 0; i < kElements; ++i) host_in[i] = static_cast<float>(i % 1000) + 0.5f * id;
    const float b = static_cast<float>(k * 3 + id);
    CUDA_OK(cudaMemcpyAsync(dev_in, host_in, bytes, cudaMemcpyHostToDevice, stream));
    affine<<<kElements / 256, 256, 0, stream>>>(dev_out, dev_in, a, b, kElements);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpyAsync(host_out, dev_out, bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
    for (int i = 0; i < kElements; ++i) {
      const float want = a * (static_cast<float>(i % 1000) + 0.5f * id) + b;
      if (host_out[i] != want) {
        std::fprintf(stderr, "check failed: thread %d iteration %d element %d: %g, want %g\n", id,
                     k, i, host_out[i], want);
        return 1;
      }
    }
  }
  CUDA_OK(cudaFree(dev_in));
  CUDA_OK(cudaFree(dev_out));
  CUDA_OK(cudaFreeHost(host_in));
  CUDA_OK(cudaFreeHost(host_out));
  CUDA_OK(cudaStreamDestroy(stream));
  return 0;
}

// A thread that records an error and moves to device 1; the others must not see either.
static int set_error_and_device() {
  int device = -1;
  CUDA_OK(cudaGetDevice(&device));
  CHECK(device == 0);  // a new host thread starts on device 0
  CHECK(cudaSetDevice(99) == cudaErrorInvalidDevice);
  CUDA_OK(cudaSetDevice(1));
  CUDA_OK(cudaGetDevice(&device));
  CHECK(device == 1);
  // Memory allocated now belongs to device 1.
  float* p = nullptr;
  CUDA_OK(cudaMalloc(&p, 256));
  cudaPointerAttributes attributes;
  CUDA_OK(cudaPointerGetAttributes(&attributes, p));
  CHECK(attributes.device == 1);
  CUDA_OK(cudaFree(p));
  CHECK(cudaPeekAtLastError() == cudaErrorInvalidDevice);  // still this thread's
  CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
  CHECK(cudaGetLastError() == cudaSuccess);
  return 0;
}

static int sees_nothing() {
  int device = -1;
  CUDA_OK(cudaGetDevice(&device));
  CHECK(device == 0);
  CHECK(cudaPeekAtLastError() == cudaSuccess);
  CHECK(cudaGetLastError() == cudaSuccess);
  return 0;
}

int main() {
  int count = 0;
  CUDA_OK(cudaGetDeviceCount(&count));
  CHECK(count == 2);

  int results[2] = {-1, -1};
  {
    std::thread first([&] { results[0] = work(0); });
    std::thread second([&] { results[1] = work(1); });
    first.join();
    second.join();
  }
  CHECK(results[0] == 0 && results[1] == 0);
  std::printf("two threads: %d iterations each agree with the host\n", kIterations);

  // The error and the device change stay in the thread that made them.
  int setter = -1, other = -1;
  std::thread([&] { setter = set_error_and_device(); }).join();
  std::thread([&] { other = sees_nothing(); }).join();
  CHECK(setter == 0 && other == 0);
  CHECK(sees_nothing() == 0);  // the main thread too

  // While one thread holds an error, another's calls and error state are unaffected.
  std::atomic<int> stage{0};
  int holder = -1, bystander = -1;
  std::thread hold([&] {
    holder = cudaSetDevice(-1) == cudaErrorInvalidDevice ? 0 : 1;
    stage = 1;
    while (stage.load() != 2) std::this_thread::yield();
    if (holder == 0) holder = cudaGetLastError() == cudaErrorInvalidDevice ? 0 : 1;
  });
  std::thread watch([&] {
    while (stage.load() != 1) std::this_thread::yield();
    bystander = sees_nothing();
    stage = 2;
  });
  hold.join();
  watch.join();
  CHECK(holder == 0 && bystander == 0);
  std::printf("PASS\n");
  return 0;
}
