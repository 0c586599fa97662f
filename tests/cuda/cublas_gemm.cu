// cuBLAS 13, unmodified, on the simulated GPU: its statically linked runtime
// reaches libcuda.so.1 through cuGetProcAddress and the driver's export
// tables, loads its fat binaries' PTX and launches its own kernels. Each call
// is checked against a host reference computed in double precision.
// Usage: cublas_gemm [sgemm|dgemm|gemmex|hgemm|batched|lt|graph|blas1|all|time|refused]
// [m n k] (default all, 67 45 33: no dimension a multiple of a tile); `time`
// runs one SGEMM and prints its wall and simulated time.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "check.h"
#include "host_data.h"

#define CUBLAS_OK(call)                                                    \
  do {                                                                     \
    const cublasStatus_t s_ = (call);                                      \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                     \
      std::fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #call, \
                   cublasGetStatusName(s_));                               \
      return 1;                                                            \
    }                                                                      \
  } while (0)

namespace {

// Element (i, j) of op(X) for a column-major X with leading dimension ld.
double at(const std::vector<float>& x, int ld, bool transposed, int i, int j) {
  return transposed ? x[static_cast<std::size_t>(i) * ld + j]
                    : x[static_cast<std::size_t>(j) * ld + i];
}

// C = alpha op(A) op(B) + beta C for one (transa, transb), against a double
// reference; each element may differ by the float rounding of k products and
// sums: 2k ulp of the sum of magnitudes (FP32 throughout, no TF32 by default).
int check_sgemm(cublasHandle_t h, int m, int n, int k, bool ta, bool tb) {
  const float alpha = 1.5f, beta = -0.5f;
  const int lda = ta ? k : m, ldb = tb ? n : k, ldc = m;
  const std::vector<float> a = random_vector(static_cast<std::size_t>(lda) * (ta ? m : k), 1);
  const std::vector<float> b = random_vector(static_cast<std::size_t>(ldb) * (tb ? k : n), 2);
  const std::vector<float> c0 = random_vector(static_cast<std::size_t>(ldc) * n, 3);
  float *da = to_device(a), *db = to_device(b), *dc = to_device(c0);
  CHECK(da && db && dc);
  CUBLAS_OK(cublasSgemm(h, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k,
                        &alpha, da, lda, db, ldb, &beta, dc, ldc));
  const std::vector<float> c = to_host(dc, c0.size());
  CUDA_OK(cudaGetLastError());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double sum = 0, magnitude = 0;
      for (int p = 0; p < k; ++p) {
        const double t = at(a, lda, ta, i, p) * at(b, ldb, tb, p, j);
        sum += t;
        magnitude += std::fabs(t);
      }
      const double c_old = c0[static_cast<std::size_t>(j) * ldc + i];
      const double ref = alpha * sum + beta * c_old;
      const double bound =
          2.0 * k * 1.2e-7 * (std::fabs(alpha) * magnitude + std::fabs(beta * c_old)) + 1e-30;
      const double got = c[static_cast<std::size_t>(j) * ldc + i];
      if (!(std::fabs(got - ref) <= bound)) {
        std::fprintf(stderr, "sgemm %c%c %dx%dx%d: C(%d,%d) = %.9g, reference %.9g\n",
                     ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, i, j, got, ref);
        return 1;
      }
    }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  std::printf("sgemm %c%c %dx%dx%d matches the host reference\n", ta ? 'T' : 'N', tb ? 'T' : 'N', m,
              n, k);
  return 0;
}

// The same in double: 2k ulp of double (1.1e-16) of the sum of magnitudes.
int check_dgemm(cublasHandle_t h, int m, int n, int k) {
  const double alpha = 1.25, beta = 0.5;
  const std::vector<float> af = random_vector(static_cast<std::size_t>(m) * k, 6);
  const std::vector<float> bf = random_vector(static_cast<std::size_t>(k) * n, 7);
  const std::vector<float> cf = random_vector(static_cast<std::size_t>(m) * n, 8);
  const std::vector<double> a(af.begin(), af.end()), b(bf.begin(), bf.end()),
      c0(cf.begin(), cf.end());
  double *da = to_device(a), *db = to_device(b), *dc = to_device(c0);
  CHECK(da && db && dc);
  CUBLAS_OK(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, m, db, k, &beta, dc, m));
  const std::vector<double> c = to_host(dc, c0.size());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      long double sum = 0, magnitude = 0;
      for (int p = 0; p < k; ++p) {
        const long double t = static_cast<long double>(a[static_cast<std::size_t>(p) * m + i]) *
                              b[static_cast<std::size_t>(j) * k + p];
        sum += t;
        magnitude += t < 0 ? -t : t;
      }
      const long double c_old = c0[static_cast<std::size_t>(j) * m + i];
      const long double ref = alpha * sum + beta * c_old;
      const long double bound =
          2.0L * k * 1.2e-16L * (alpha * magnitude + std::fabs(beta * static_cast<double>(c_old)));
      const long double got = c[static_cast<std::size_t>(j) * m + i];
      if (!(std::fabs(static_cast<double>(got - ref)) <= static_cast<double>(bound))) {
        std::fprintf(stderr, "dgemm %dx%dx%d: C(%d,%d) = %.17g, reference %.17Lg\n", m, n, k, i, j,
                     static_cast<double>(got), ref);
        return 1;
      }
    }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  std::printf("dgemm %dx%dx%d matches the host reference\n", m, n, k);
  return 0;
}

// Values k/16 for k in [-16, 16]: exact in half and bfloat16, their products
// exact in float, and sums of up to 2^15 of them too, so a GEMM with float
// accumulation must give the reference exactly, whatever its order of sums.
std::vector<float> sixteenths(std::size_t n, unsigned seed) {
  Lcg g{seed};
  std::vector<float> v(n);
  for (float& x : v)
    x = static_cast<float>(static_cast<int>((g.next() + 1.0f) * 16.5f) - 16) / 16.0f;
  return v;
}

// C (float) = 0.5 op(A) B + 2 C with A and B in half or bfloat16
// (cublasGemmEx, CUBLAS_COMPUTE_32F), against the exact reference.
template <typename T>
int check_gemm_ex(cublasHandle_t h, cudaDataType type, const char* name, int m, int n, int k) {
  const float alpha = 0.5f, beta = 2.0f;
  const std::vector<float> a = sixteenths(static_cast<std::size_t>(m) * k, 9);
  const std::vector<float> b = sixteenths(static_cast<std::size_t>(k) * n, 10);
  const std::vector<float> c0 = sixteenths(static_cast<std::size_t>(m) * n, 11);
  std::vector<T> a_low(a.size()), b_low(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a_low[i] = T(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) b_low[i] = T(b[i]);
  T *da = to_device(a_low), *db = to_device(b_low);
  float* dc = to_device(c0);
  CHECK(da && db && dc);
  CUBLAS_OK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, type, m, db, type, k,
                         &beta, dc, CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  const std::vector<float> c = to_host(dc, c0.size());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double sum = 0;
      for (int p = 0; p < k; ++p)
        sum +=
            double(a[static_cast<std::size_t>(p) * m + i]) * b[static_cast<std::size_t>(j) * k + p];
      const double ref = alpha * sum + beta * c0[static_cast<std::size_t>(j) * m + i];
      if (c[static_cast<std::size_t>(j) * m + i] != ref) {
        std::fprintf(stderr, "gemmEx %s %dx%dx%d: C(%d,%d) = %.9g, exact reference %.9g\n", name, m,
                     n, k, i, j, c[static_cast<std::size_t>(j) * m + i], ref);
        return 1;
      }
    }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  std::printf("gemmEx %s in, f32 out, %dx%dx%d matches the exact reference\n", name, m, n, k);
  return 0;
}

// cublasHgemm: half in, half out, half arithmetic: each element within k
// half ulps (2^-10) of the sum of magnitudes, plus the final rounding.
int check_hgemm(cublasHandle_t h, int m, int n, int k) {
  const __half alpha = __float2half(1.0f), beta = __float2half(0.0f);
  const std::vector<float> a = sixteenths(static_cast<std::size_t>(m) * k, 12);
  const std::vector<float> b = sixteenths(static_cast<std::size_t>(k) * n, 13);
  std::vector<__half> ah(a.size()), bh(b.size()), ch(static_cast<std::size_t>(m) * n);
  for (std::size_t i = 0; i < a.size(); ++i) ah[i] = __float2half(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) bh[i] = __float2half(b[i]);
  __half *da = to_device(ah), *db = to_device(bh), *dc = to_device(ch);
  CHECK(da && db && dc);
  CUBLAS_OK(cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, m, db, k, &beta, dc, m));
  const std::vector<__half> c = to_host(dc, ch.size());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double sum = 0, magnitude = 0;
      for (int p = 0; p < k; ++p) {
        const double t =
            double(a[static_cast<std::size_t>(p) * m + i]) * b[static_cast<std::size_t>(j) * k + p];
        sum += t;
        magnitude += std::fabs(t);
      }
      const double got = __half2float(c[static_cast<std::size_t>(j) * m + i]);
      if (!(std::fabs(got - sum) <= (k + 1) * 9.8e-4 * magnitude + 1e-30)) {
        std::fprintf(stderr, "hgemm %dx%dx%d: C(%d,%d) = %.6g, reference %.6g\n", m, n, k, i, j,
                     got, sum);
        return 1;
      }
    }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  std::printf("hgemm %dx%dx%d matches the host reference\n", m, n, k);
  return 0;
}

// `batch` products C_i = A_i B_i, through the strided and the pointer-array
// forms, each against the exact reference (sixteenths again).
int check_batched(cublasHandle_t h, int m, int n, int k, int batch) {
  const float alpha = 1.0f, beta = 0.0f;
  const long long sa = static_cast<long long>(m) * k, sb = static_cast<long long>(k) * n,
                  sc = static_cast<long long>(m) * n;
  const std::vector<float> a = sixteenths(sa * batch, 14), b = sixteenths(sb * batch, 15);
  float *da = to_device(a), *db = to_device(b), *dc = nullptr, *dc2 = nullptr;
  CUDA_OK(cudaMalloc(&dc, sc * batch * sizeof(float)));
  CUDA_OK(cudaMalloc(&dc2, sc * batch * sizeof(float)));
  CHECK(da && db);
  CUBLAS_OK(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, m, sa, db,
                                      k, sb, &beta, dc, m, sc, batch));
  std::vector<const float*> pa(batch), pb(batch);
  std::vector<float*> pc(batch);
  for (int i = 0; i < batch; ++i) {
    pa[i] = da + sa * i;
    pb[i] = db + sb * i;
    pc[i] = dc2 + sc * i;
  }
  const float** dpa = to_device(pa);
  const float** dpb = to_device(pb);
  float** dpc = to_device(pc);
  CUBLAS_OK(cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dpa, m, dpb, k, &beta,
                               dpc, m, batch));
  const std::vector<float> c = to_host(dc, sc * batch), c2 = to_host(dc2, sc * batch);
  for (int q = 0; q < batch; ++q)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        double sum = 0;
        for (int p = 0; p < k; ++p)
          sum += double(a[sa * q + static_cast<long long>(p) * m + i]) *
                 b[sb * q + static_cast<long long>(j) * k + p];
        const std::size_t at_c = sc * q + static_cast<long long>(j) * m + i;
        if (c[at_c] != sum || c2[at_c] != sum) {
          std::fprintf(stderr, "batch %d C(%d,%d): strided %.9g, pointers %.9g, exact %.9g\n", q, i,
                       j, c[at_c], c2[at_c], sum);
          return 1;
        }
      }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  cudaFree(dc2);
  std::printf("sgemm strided-batched and batched %d x %dx%dx%d match the exact reference\n", batch,
              m, n, k);
  return 0;
}

// cublasLtMatmul with a bias (and ReLU) epilogue: D = max(A B + bias, 0) with
// bias[i] added to row i, in float; exact with sixteenths.
int check_lt_bias(int m, int n, int k, bool relu) {
  cublasLtHandle_t lt;
  CUBLAS_OK(cublasLtCreate(&lt));
  const std::vector<float> a = sixteenths(static_cast<std::size_t>(m) * k, 16);
  const std::vector<float> b = sixteenths(static_cast<std::size_t>(k) * n, 17);
  const std::vector<float> bias = sixteenths(m, 18);
  float *da = to_device(a), *db = to_device(b), *dbias = to_device(bias), *dd = nullptr;
  CUDA_OK(cudaMalloc(&dd, static_cast<std::size_t>(m) * n * sizeof(float)));
  CHECK(da && db && dbias);
  cublasLtMatmulDesc_t op;
  CUBLAS_OK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasLtEpilogue_t epilogue = relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
  CUBLAS_OK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                           sizeof epilogue));
  CUBLAS_OK(
      cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dbias, sizeof dbias));
  cublasLtMatrixLayout_t la, lb, ld;
  CUBLAS_OK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, m, k, m));
  CUBLAS_OK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, n, k));
  CUBLAS_OK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, m, n, m));
  cublasLtMatmulPreference_t pref;
  CUBLAS_OK(cublasLtMatmulPreferenceCreate(&pref));
  const std::size_t workspace_bytes = 1 << 22;
  void* workspace = nullptr;
  CUDA_OK(cudaMalloc(&workspace, workspace_bytes));
  CUBLAS_OK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                 &workspace_bytes, sizeof workspace_bytes));
  cublasLtMatmulHeuristicResult_t result;
  int found = 0;
  CUBLAS_OK(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, ld, ld, pref, 1, &result, &found));
  CHECK(found == 1);
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_OK(cublasLtMatmul(lt, op, &alpha, da, la, db, lb, &beta, dd, ld, dd, ld, &result.algo,
                           workspace, workspace_bytes, nullptr));
  const std::vector<float> d = to_host(dd, static_cast<std::size_t>(m) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      double sum = bias[i];
      for (int p = 0; p < k; ++p)
        sum +=
            double(a[static_cast<std::size_t>(p) * m + i]) * b[static_cast<std::size_t>(j) * k + p];
      if (relu && sum < 0) sum = 0;
      if (d[static_cast<std::size_t>(j) * m + i] != sum) {
        std::fprintf(stderr, "cublasLt %s %dx%dx%d: D(%d,%d) = %.9g, exact reference %.9g\n",
                     relu ? "relu+bias" : "bias", m, n, k, i, j,
                     d[static_cast<std::size_t>(j) * m + i], sum);
        return 1;
      }
    }
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(ld);
  cublasLtMatmulDescDestroy(op);
  CUBLAS_OK(cublasLtDestroy(lt));
  cudaFree(da);
  cudaFree(db);
  cudaFree(dbias);
  cudaFree(dd);
  cudaFree(workspace);
  std::printf("cublasLtMatmul with %s epilogue %dx%dx%d matches the exact reference\n",
              relu ? "ReLU and bias" : "bias", m, n, k);
  return 0;
}

// cublasSgemm captured into a CUDA graph on a stream: nothing runs while
// capturing (C keeps its sentinel), each launch of the graph computes C = A B
// exactly (sixteenths).
int check_graph(cublasHandle_t h, int m, int n, int k) {
  const float alpha = 1.0f, beta = 0.0f, sentinel = -7.0f;
  const std::vector<float> a = sixteenths(static_cast<std::size_t>(m) * k, 21);
  const std::vector<float> b = sixteenths(static_cast<std::size_t>(k) * n, 22);
  const std::vector<float> c0(static_cast<std::size_t>(m) * n, sentinel);
  float *da = to_device(a), *db = to_device(b), *dc = to_device(c0);
  CHECK(da && db && dc);
  cudaStream_t s;
  CUDA_OK(cudaStreamCreate(&s));
  CUBLAS_OK(cublasSetStream(h, s));
  CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CUBLAS_OK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, m, db, k, &beta, dc, m));
  cudaGraph_t graph;
  CUDA_OK(cudaStreamEndCapture(s, &graph));
  CHECK(to_host(dc, c0.size()) == c0);
  cudaGraphExec_t exec;
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  for (int launch = 0; launch < 2; ++launch) {
    CUDA_OK(cudaMemcpy(dc, c0.data(), c0.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaGraphLaunch(exec, s));
    CUDA_OK(cudaStreamSynchronize(s));
    const std::vector<float> c = to_host(dc, c0.size());
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        double sum = 0;
        for (int p = 0; p < k; ++p)
          sum += double(a[static_cast<std::size_t>(p) * m + i]) *
                 b[static_cast<std::size_t>(j) * k + p];
        CHECK(c[static_cast<std::size_t>(j) * m + i] == sum);
      }
  }
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(graph));
  CUBLAS_OK(cublasSetStream(h, nullptr));
  CUDA_OK(cudaStreamDestroy(s));
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  std::printf("sgemm captured in a graph, launched twice, matches the exact reference\n");
  return 0;
}

// One SGEMM (NN) timed: host wall time of the call and its synchronization,
// simulated time between events around it; checks a few elements.
int time_sgemm(cublasHandle_t h, int m, int n, int k) {
  const float alpha = 1.0f, beta = 0.0f;
  const std::vector<float> a = sixteenths(static_cast<std::size_t>(m) * k, 19);
  const std::vector<float> b = sixteenths(static_cast<std::size_t>(k) * n, 20);
  float *da = to_device(a), *db = to_device(b), *dc = nullptr;
  CUDA_OK(cudaMalloc(&dc, static_cast<std::size_t>(m) * n * sizeof(float)));
  cudaEvent_t start, stop;
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&stop));
  const auto wall_start = std::chrono::steady_clock::now();
  CUDA_OK(cudaEventRecord(start));
  CUBLAS_OK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, m, db, k, &beta, dc, m));
  CUDA_OK(cudaEventRecord(stop));
  CUDA_OK(cudaEventSynchronize(stop));
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  float simulated_ms = 0;
  CUDA_OK(cudaEventElapsedTime(&simulated_ms, start, stop));
  const std::vector<float> c = to_host(dc, static_cast<std::size_t>(m) * n);
  for (int q = 0; q < 16; ++q) {  // exact with sixteenths
    const int i = (q * 37) % m, j = (q * 53) % n;
    double sum = 0;
    for (int p = 0; p < k; ++p)
      sum +=
          double(a[static_cast<std::size_t>(p) * m + i]) * b[static_cast<std::size_t>(j) * k + p];
    CHECK(c[static_cast<std::size_t>(j) * m + i] == sum);
  }
  std::printf("sgemm %dx%dx%d: %.2f s wall, %.3f ms simulated\n", m, n, k, wall, simulated_ms);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return 0;
}

// y = alpha x + y, x . y and |x| over n = 1000 (not a multiple of a block).
int check_blas1(cublasHandle_t h) {
  const int n = 1000;
  const float alpha = 0.75f;
  const std::vector<float> x = random_vector(n, 4), y0 = random_vector(n, 5);
  float *dx = to_device(x), *dy = to_device(y0);
  CHECK(dx && dy);
  float dot = 0, norm = 0;
  // Before the axpy changes y: x . y0 and |x|.
  CUBLAS_OK(cublasSdot(h, n, dx, 1, dy, 1, &dot));
  CUBLAS_OK(cublasSnrm2(h, n, dx, 1, &norm));
  CUBLAS_OK(cublasSaxpy(h, n, &alpha, dx, 1, dy, 1));
  const std::vector<float> y = to_host(dy, n);
  double ref_dot = 0, dot_magnitude = 0, ref_norm = 0;
  for (int i = 0; i < n; ++i) {
    ref_dot += double(x[i]) * y0[i];
    dot_magnitude += std::fabs(double(x[i]) * y0[i]);
    ref_norm += double(x[i]) * x[i];
    // One product and one sum (or a fused multiply-add) in float.
    const double ref_y = double(alpha) * x[i] + y0[i];
    CHECK(std::fabs(y[i] - ref_y) <= 2 * 1.2e-7 * (std::fabs(alpha * x[i]) + std::fabs(y0[i])));
  }
  ref_norm = std::sqrt(ref_norm);
  std::printf("saxpy matches; sdot %.7g (reference %.7g); snrm2 %.7g (reference %.7g)\n", dot,
              ref_dot, norm, ref_norm);
  CHECK(std::fabs(dot - ref_dot) <= n * 1.2e-7 * dot_magnitude);
  CHECK(std::fabs(norm - ref_norm) <= n * 1.2e-7 * ref_norm);
  cudaFree(dx);
  cudaFree(dy);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "all";
  const int m = argc > 4 ? std::atoi(argv[2]) : 67, n = argc > 4 ? std::atoi(argv[3]) : 45,
            k = argc > 4 ? std::atoi(argv[4]) : 33;
  const char* modes[] = {"sgemm", "dgemm", "gemmex", "hgemm", "batched", "lt",
                         "graph", "blas1", "all",    "time",  "refused"};
  if (std::find(std::begin(modes), std::end(modes), what) == std::end(modes)) {
    std::fprintf(stderr,
                 "usage: cublas_gemm [sgemm|dgemm|gemmex|hgemm|batched|lt|graph|blas1|all|"
                 "time|refused] [m n k]\n");
    return 2;
  }
  cublasHandle_t h;
  if (what == "refused") {
    // On a GPU reporting 9.0, cuBLAS finds no PTX it can use: the library
    // returns its own error status (the driver names the reason on stderr).
    const cublasStatus_t s = cublasCreate(&h);
    CHECK(s != CUBLAS_STATUS_SUCCESS);
    std::printf("cublasCreate: %s\nPASS\n", cublasGetStatusName(s));
    return 0;
  }
  CUBLAS_OK(cublasCreate(&h));
  if (what == "time") {
    if (time_sgemm(h, m, n, k)) return 1;
  }
  if (what == "sgemm" || what == "all") {
    for (int t = 0; t < 4; ++t)
      if (check_sgemm(h, m, n, k, t & 1, t & 2)) return 1;
  }
  if (what == "dgemm" || what == "all") {
    if (check_dgemm(h, m, n, k)) return 1;
  }
  if (what == "gemmex" || what == "all") {
    if (check_gemm_ex<__half>(h, CUDA_R_16F, "f16", m, n, k)) return 1;
    if (check_gemm_ex<__nv_bfloat16>(h, CUDA_R_16BF, "bf16", m, n, k)) return 1;
  }
  if (what == "hgemm" || what == "all") {
    if (check_hgemm(h, m, n, k)) return 1;
  }
  if (what == "batched" || what == "all") {
    if (check_batched(h, m, n, k, 3)) return 1;
  }
  if (what == "lt" || what == "all") {
    if (check_lt_bias(m, n, k, false) || check_lt_bias(m, n, k, true)) return 1;
  }
  if (what == "graph" || what == "all") {
    if (check_graph(h, m, n, k)) return 1;
  }
  if (what == "blas1" || what == "all") {
    if (check_blas1(h)) return 1;
  }
  CUBLAS_OK(cublasDestroy(h));
  // The library's driver calls leave the program's runtime error state alone.
  CUDA_OK(cudaGetLastError());
  std::printf("PASS\n");
  return 0;
}
