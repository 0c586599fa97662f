// Thrust and CUB under CUDA 13 on sm_90 PTX (issue 22): thrust::transform
// takes CUB's bulk-copy kernel (elect.sync _|p, cp.async.bulk completing on an
// mbarrier, try_wait.parity) in every CTA but the first and the last two, so
// only grids of four CTAs or more reach it; thrust::reduce and
// cub::DeviceReduce::Sum then sum the result. Integers, so the host sums are exact.
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>
#include <cstdio>
#include <cub/device/device_reduce.cuh>
#include <vector>

#include "check.h"

int main() {
  for (int n : {1000, 100000, 300000}) {
    std::vector<int> a(n), b(n);
    long long want = 0;
    for (int i = 0; i < n; ++i) {
      a[i] = (i * 7919) % 1000 - 500;
      b[i] = (i * 31) % 77;
      want += a[i] + b[i];
    }
    thrust::device_vector<int> da(a.begin(), a.end()), db(b.begin(), b.end()), dc(n);
    thrust::transform(da.begin(), da.end(), db.begin(), dc.begin(), thrust::plus<int>());
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<int> c(n);
    thrust::copy(dc.begin(), dc.end(), c.begin());
    for (int i = 0; i < n; ++i) CHECK(c[i] == a[i] + b[i]);
    const long long got = thrust::reduce(dc.begin(), dc.end(), 0LL, thrust::plus<long long>());
    CHECK(got == want);

    int* sum;
    CUDA_OK(cudaMalloc(&sum, sizeof(int)));
    std::size_t temp_bytes = 0;
    const int* in = thrust::raw_pointer_cast(dc.data());
    CUDA_OK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in, sum, n));
    void* temp;
    CUDA_OK(cudaMalloc(&temp, temp_bytes));
    CUDA_OK(cub::DeviceReduce::Sum(temp, temp_bytes, in, sum, n));
    int h = 0;
    CUDA_OK(cudaMemcpy(&h, sum, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(h == static_cast<int>(want));  // |want| < 2^31 for these sizes
    CUDA_OK(cudaFree(temp));
    CUDA_OK(cudaFree(sum));
    std::printf("n=%d sum %lld\n", n, want);
  }
  std::printf("PASS\n");
  return 0;
}
