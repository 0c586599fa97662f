// NVIDIA's cuRAND and cuSOLVER, unmodified, on the simulated GPU (each links
// the CUDA runtime statically and reaches libcuda.so.1 as cuBLAS does).
// cuRAND: every pseudo-random generator's device output equals, bit for bit
// (uniform) or within float rounding (normal), the library's own host
// generator (curandCreateGeneratorHost: the same algorithm on the CPU, which
// never touches the simulator). cuSOLVER: LU and Cholesky solves of small
// systems against a host solution by Gaussian elimination in double precision.
#include <cuda_runtime.h>
#include <curand.h>
#include <cusolverDn.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "check.h"

#define STATUS_OK(call, success)                                                       \
  do {                                                                                 \
    const int s_ = static_cast<int>(call);                                             \
    if (s_ != static_cast<int>(success)) {                                             \
      std::fprintf(stderr, "%s:%d: %s -> status %d\n", __FILE__, __LINE__, #call, s_); \
      return 1;                                                                        \
    }                                                                                  \
  } while (0)
#define CURAND_OK(call) STATUS_OK(call, CURAND_STATUS_SUCCESS)
#define CUSOLVER_OK(call) STATUS_OK(call, CUSOLVER_STATUS_SUCCESS)

namespace {

struct Generator {
  curandRngType_t type;
  const char* name;
};

// n uniform and n normal floats from `type` on the device and on the host.
int compare_generator(const Generator& g, std::size_t n) {
  float* device = nullptr;
  CUDA_OK(cudaMalloc(&device, 2 * n * sizeof(float)));
  curandGenerator_t on_gpu, on_host;
  CURAND_OK(curandCreateGenerator(&on_gpu, g.type));
  CURAND_OK(curandCreateGeneratorHost(&on_host, g.type));
  for (curandGenerator_t gen : {on_gpu, on_host}) {
    CURAND_OK(curandSetPseudoRandomGeneratorSeed(gen, 20261201ull));
    // MTGP32 has no offset (CURAND_STATUS_TYPE_ERROR); the others skip 3 draws.
    if (g.type != CURAND_RNG_PSEUDO_MTGP32) CURAND_OK(curandSetGeneratorOffset(gen, 3));
  }
  std::vector<float> host(2 * n), back(2 * n);
  CURAND_OK(curandGenerateUniform(on_gpu, device, n));
  CURAND_OK(curandGenerateNormal(on_gpu, device + n, n, 1.0f, 2.0f));
  CURAND_OK(curandGenerateUniform(on_host, host.data(), n));
  CURAND_OK(curandGenerateNormal(on_host, host.data() + n, n, 1.0f, 2.0f));
  CUDA_OK(cudaMemcpy(back.data(), device, 2 * n * sizeof(float), cudaMemcpyDeviceToHost));
  std::size_t uniform_equal = 0, normal_close = 0;
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    uniform_equal += back[i] == host[i] && back[i] > 0.0f && back[i] <= 1.0f;
    sum += back[i];
    // The device's Box-Muller uses its fast log/sin/cos: a few ulp of a value
    // near 1 +- 6, so 1e-4 absolute covers it and still catches any wrong draw.
    normal_close += std::fabs(back[n + i] - host[n + i]) <= 1e-4f;
  }
  std::printf(
      "%s: %zu of %zu uniform draws equal the host generator's, %zu of %zu normal draws "
      "within 1e-4 (uniform mean %.3f)\n",
      g.name, uniform_equal, n, normal_close, n, sum / n);
  CHECK(uniform_equal == n);
  CHECK(normal_close == n);
  CHECK(std::fabs(sum / n - 0.5) < 0.05);  // 4096 draws: the mean's sd is 0.0045
  CURAND_OK(curandDestroyGenerator(on_gpu));
  CURAND_OK(curandDestroyGenerator(on_host));
  CUDA_OK(cudaFree(device));
  return 0;
}

// x with A x = b by Gaussian elimination with partial pivoting (column-major A).
std::vector<double> host_solve(std::vector<double> a, std::vector<double> b, int n) {
  for (int c = 0; c < n; ++c) {
    int p = c;
    for (int r = c + 1; r < n; ++r)
      if (std::fabs(a[c * n + r]) > std::fabs(a[c * n + p])) p = r;
    for (int k = 0; k < n; ++k) std::swap(a[k * n + c], a[k * n + p]);
    std::swap(b[c], b[p]);
    for (int r = c + 1; r < n; ++r) {
      const double f = a[c * n + r] / a[c * n + c];
      for (int k = c; k < n; ++k) a[k * n + r] -= f * a[k * n + c];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> x(n);
  for (int r = n - 1; r >= 0; --r) {
    double s = b[r];
    for (int k = r + 1; k < n; ++k) s -= a[k * n + r] * x[k];
    x[r] = s / a[r * n + r];
  }
  return x;
}

int solvers() {
  constexpr int n = 7;
  // A symmetric positive definite matrix (diagonally dominant) and a right-hand side.
  std::vector<double> a(n * n), b(n);
  for (int r = 0; r < n; ++r) {
    b[r] = 1.0 + r * 0.5;
    for (int c = 0; c < n; ++c) a[c * n + r] = r == c ? 10.0 + r : 1.0 / (1 + r + c);
  }
  const std::vector<double> expected = host_solve(a, b, n);
  cusolverDnHandle_t handle;
  CUSOLVER_OK(cusolverDnCreate(&handle));
  double *d_a = nullptr, *d_b = nullptr, *work = nullptr;
  int *pivots = nullptr, *info = nullptr;
  CUDA_OK(cudaMalloc(&d_a, sizeof(double) * n * n));
  CUDA_OK(cudaMalloc(&d_b, sizeof(double) * n));
  CUDA_OK(cudaMalloc(&pivots, sizeof(int) * n));
  CUDA_OK(cudaMalloc(&info, sizeof(int)));
  for (const char* method : {"LU", "Cholesky"}) {
    const bool lu = method[0] == 'L';
    CUDA_OK(cudaMemcpy(d_a, a.data(), sizeof(double) * n * n, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_b, b.data(), sizeof(double) * n, cudaMemcpyHostToDevice));
    int lwork = 0;
    if (lu)
      CUSOLVER_OK(cusolverDnDgetrf_bufferSize(handle, n, n, d_a, n, &lwork));
    else
      CUSOLVER_OK(cusolverDnDpotrf_bufferSize(handle, CUBLAS_FILL_MODE_LOWER, n, d_a, n, &lwork));
    CUDA_OK(cudaMalloc(&work, sizeof(double) * (lwork + 1)));
    if (lu) {
      CUSOLVER_OK(cusolverDnDgetrf(handle, n, n, d_a, n, work, pivots, info));
      CUSOLVER_OK(cusolverDnDgetrs(handle, CUBLAS_OP_N, n, 1, d_a, n, pivots, d_b, n, info));
    } else {
      CUSOLVER_OK(cusolverDnDpotrf(handle, CUBLAS_FILL_MODE_LOWER, n, d_a, n, work, lwork, info));
      CUSOLVER_OK(cusolverDnDpotrs(handle, CUBLAS_FILL_MODE_LOWER, n, 1, d_a, n, d_b, n, info));
    }
    int status = -1;
    std::vector<double> x(n);
    CUDA_OK(cudaMemcpy(&status, info, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(x.data(), d_b, sizeof(double) * n, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int i = 0; i < n; ++i) worst = std::fmax(worst, std::fabs(x[i] - expected[i]));
    std::printf("%s solve of a %dx%d system: info %d, largest difference from the host %.1e\n",
                method, n, n, status, worst);
    CHECK(status == 0);
    CHECK(worst < 1e-12);  // well-conditioned (cond < 3): double rounding only
    CUDA_OK(cudaFree(work));
  }
  CUSOLVER_OK(cusolverDnDestroy(handle));
  return 0;
}

}  // namespace

int main() {
  const Generator generators[] = {{CURAND_RNG_PSEUDO_XORWOW, "XORWOW"},
                                  {CURAND_RNG_PSEUDO_MRG32K3A, "MRG32k3a"},
                                  {CURAND_RNG_PSEUDO_MTGP32, "MTGP32"},
                                  {CURAND_RNG_PSEUDO_PHILOX4_32_10, "Philox4x32-10"}};
  for (const Generator& g : generators)
    if (compare_generator(g, 4096)) return 1;
  if (solvers()) return 1;
  std::printf("PASS\n");
  return 0;
}
