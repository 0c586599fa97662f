// Conjugate gradient on the 2-D Poisson matrix (5-point stencil, stored as
// CSR) the way a plain CUDA solver does it: per iteration a sparse
// matrix-vector product, two dot products reduced in shared memory and by
// atomicAdd, two vector updates, and the host reading each scalar back.
// b = A * ones, so the solution is all ones.
// Usage: cg_solver [side] [max_iterations] (default 512 x 512 unknowns, 300
// iterations); it stops early when |r| / |b| < 1e-10.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "check.h"

__global__ void spmv(const int* row_ptr, const int* col, const double* val, const double* x,
                     double* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double sum = 0;
  for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) sum += val[k] * x[col[k]];
  y[i] = sum;
}

// *result += sum of a[i] * b[i]; blockDim.x is 256.
__global__ void dot(const double* a, const double* b, double* result, int n) {
  __shared__ double part[256];
  double sum = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum += a[i] * b[i];
  part[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(result, part[0]);
}

__global__ void update_x_r(double* x, double* r, const double* p, const double* ap, double alpha,
                           int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  x[i] += alpha * p[i];
  r[i] -= alpha * ap[i];
}

__global__ void update_p(double* p, const double* r, double beta, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = r[i] + beta * p[i];
}

static double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char** argv) {
  const int side = argc > 1 ? std::atoi(argv[1]) : 512;
  const int max_iterations = argc > 2 ? std::atoi(argv[2]) : 300;
  CHECK(side > 1 && max_iterations > 0);
  const int n = side * side;

  // 4 on the diagonal, -1 for each grid neighbour inside the square.
  std::vector<int> row_ptr(n + 1), col;
  std::vector<double> val;
  for (int y = 0; y < side; ++y)
    for (int x = 0; x < side; ++x) {
      const int i = y * side + x;
      row_ptr[i] = static_cast<int>(col.size());
      if (y > 0) col.push_back(i - side), val.push_back(-1);
      if (x > 0) col.push_back(i - 1), val.push_back(-1);
      col.push_back(i), val.push_back(4);
      if (x < side - 1) col.push_back(i + 1), val.push_back(-1);
      if (y < side - 1) col.push_back(i + side), val.push_back(-1);
    }
  row_ptr[n] = static_cast<int>(col.size());
  auto multiply = [&](const std::vector<double>& v) {
    std::vector<double> out(n);
    for (int i = 0; i < n; ++i)
      for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) out[i] += val[k] * v[col[k]];
    return out;
  };
  const std::vector<double> b = multiply(std::vector<double>(n, 1.0));
  double b_norm2 = 0;
  for (double v : b) b_norm2 += v * v;

  int *d_row_ptr, *d_col;
  double *d_val, *d_x, *d_r, *d_p, *d_ap, *d_scalar;
  const std::size_t vec = n * sizeof(double);
  CUDA_OK(cudaMalloc(&d_row_ptr, (n + 1) * sizeof(int)));
  CUDA_OK(cudaMalloc(&d_col, col.size() * sizeof(int)));
  CUDA_OK(cudaMalloc(&d_val, val.size() * sizeof(double)));
  CUDA_OK(cudaMalloc(&d_x, vec));
  CUDA_OK(cudaMalloc(&d_r, vec));
  CUDA_OK(cudaMalloc(&d_p, vec));
  CUDA_OK(cudaMalloc(&d_ap, vec));
  CUDA_OK(cudaMalloc(&d_scalar, sizeof(double)));
  CUDA_OK(cudaMemcpy(d_row_ptr, row_ptr.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_col, col.data(), col.size() * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_val, val.data(), val.size() * sizeof(double), cudaMemcpyHostToDevice));
  // x = 0, so r = p = b.
  CUDA_OK(cudaMemset(d_x, 0, vec));
  CUDA_OK(cudaMemcpy(d_r, b.data(), vec, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_p, b.data(), vec, cudaMemcpyHostToDevice));

  const int block = 256, grid = (n + block - 1) / block;
  const int dot_grid = grid < 1024 ? grid : 1024;
  double rr = b_norm2;
  int iterations = 0;
  auto t0 = std::chrono::steady_clock::now();
  while (iterations < max_iterations && rr > 1e-20 * b_norm2) {
    spmv<<<grid, block>>>(d_row_ptr, d_col, d_val, d_p, d_ap, n);
    double pap = 0;
    CUDA_OK(cudaMemset(d_scalar, 0, sizeof(double)));
    dot<<<dot_grid, block>>>(d_p, d_ap, d_scalar, n);
    CUDA_OK(cudaMemcpy(&pap, d_scalar, sizeof(double), cudaMemcpyDeviceToHost));
    const double alpha = rr / pap;
    update_x_r<<<grid, block>>>(d_x, d_r, d_p, d_ap, alpha, n);
    double rr_next = 0;
    CUDA_OK(cudaMemset(d_scalar, 0, sizeof(double)));
    dot<<<dot_grid, block>>>(d_r, d_r, d_scalar, n);
    CUDA_OK(cudaMemcpy(&rr_next, d_scalar, sizeof(double), cudaMemcpyDeviceToHost));
    update_p<<<grid, block>>>(d_p, d_r, rr_next / rr, n);
    rr = rr_next;
    ++iterations;
  }
  CUDA_OK(cudaDeviceSynchronize());
  const double wall = seconds_since(t0);

  std::vector<double> x(n);
  CUDA_OK(cudaMemcpy(x.data(), d_x, vec, cudaMemcpyDeviceToHost));
  // The true residual |b - A x|, computed here, must agree with the one the
  // iteration carried on the device (rr); and x can be no further from the
  // solution (all ones) than |A^-1| |b - A x| = |b - A x| / lambda_min, where
  // the 5-point matrix's smallest eigenvalue is 8 sin^2(pi / (2 (side + 1))).
  const std::vector<double> ax = multiply(x);
  double true_rr = 0, error = 0;
  for (int i = 0; i < n; ++i) {
    true_rr += (b[i] - ax[i]) * (b[i] - ax[i]);
    error = std::fmax(error, std::fabs(x[i] - 1.0));
  }
  const double relative = std::sqrt(rr / b_norm2), true_relative = std::sqrt(true_rr / b_norm2);
  std::printf(
      "cg: %d unknowns, %d iterations (%d launches, %d scalar copies) in %.3f s wall "
      "(%.1f iterations/s); |r|/|b| = %.3e (recomputed on the host %.3e), "
      "max |x - 1| = %.3e\n",
      n, iterations, 4 * iterations, 2 * iterations, wall, iterations / wall, relative,
      true_relative, error);
  const double pi = 3.14159265358979323846;
  const double lambda_min = 8 * std::pow(std::sin(pi / (2 * (side + 1))), 2);
  CHECK(std::fabs(true_relative - relative) <= 1e-8 + 1e-6 * relative);
  CHECK(error <= 1.000001 * std::sqrt(true_rr) / lambda_min + 1e-12);
  if (iterations < max_iterations) CHECK(true_relative < 1e-9);  // converged
  std::printf("PASS\n");
  return 0;
}
