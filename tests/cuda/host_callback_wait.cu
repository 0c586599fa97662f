// Host callbacks run when their stream reaches them, even though the host
// never synchronizes: main() blocks on a condition variable that a stream
// callback releases, then spins on an atomic flag a host function sets.
// Before the fix both waits hung (nothing advanced simulated time); here a
// wall-clock limit turns a hang into a failed check.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "check.h"

constexpr int kN = 1024;

__global__ void triple_index(int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i;
}

struct Barrier {
  std::mutex m;
  std::condition_variable cv;
  bool released = false;
  long long sum = -1;  // what the callback saw of the kernel's output
  const int* data = nullptr;
};

void CUDART_CB on_stream_done(cudaStream_t, cudaError_t status, void* p) {
  auto* b = static_cast<Barrier*>(p);
  long long s = 0;
  for (int i = 0; i < kN; ++i) s += b->data[i];
  std::lock_guard<std::mutex> g(b->m);
  b->sum = status == cudaSuccess ? s : -2;
  b->released = true;
  b->cv.notify_all();
}

struct Flag {
  std::atomic<int> value{0};
  const int* data = nullptr;
};

void CUDART_CB set_flag(void* p) {
  auto* f = static_cast<Flag*>(p);
  f->value.store(f->data[kN - 1], std::memory_order_release);
}

int main() {
  int* out = nullptr;
  CUDA_OK(cudaMallocHost(&out, kN * sizeof(int)));
  for (int i = 0; i < kN; ++i) out[i] = -1;
  cudaStream_t s;
  CUDA_OK(cudaStreamCreate(&s));

  // 1. A callback after a kernel releases a condition variable.
  Barrier barrier;
  barrier.data = out;
  triple_index<<<kN / 128, 128, 0, s>>>(out, kN);
  CUDA_OK(cudaStreamAddCallback(s, on_stream_done, &barrier, 0));
  {
    std::unique_lock<std::mutex> g(barrier.m);
    const bool released =
        barrier.cv.wait_for(g, std::chrono::seconds(60), [&] { return barrier.released; });
    CHECK(released);
  }
  // The callback ran after the kernel: sum of 3*i for i < 1024 = 3 * 1023 * 1024 / 2.
  CHECK(barrier.sum == 3LL * 1023 * 1024 / 2);

  // 2. A host function after a second kernel sets an atomic flag the host spins on.
  Flag flag;
  flag.data = out;
  for (int i = 0; i < kN; ++i) out[i] = -1;
  triple_index<<<kN / 128, 128, 0, s>>>(out, kN);
  CUDA_OK(cudaLaunchHostFunc(s, set_flag, &flag));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (flag.value.load(std::memory_order_acquire) == 0 &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
  // The host function saw the kernel's last element, 3 * 1023.
  CHECK(flag.value.load() == 3 * (kN - 1));

  CUDA_OK(cudaStreamSynchronize(s));
  CUDA_OK(cudaStreamDestroy(s));
  CUDA_OK(cudaFreeHost(out));
  std::printf("PASS\n");
  return 0;
}
