// cuDNN 9, unmodified, on the simulated GPU through the legacy API: an NCHW
// FP32 convolution (N=2, C=3, 13x13, K=4, 3x3 filter, pad 1, stride 1: no
// dimension a multiple of a tile) forward, backward data and backward filter
// with every algorithm cuDNN offers, then ReLU, max pooling, softmax and
// batch-norm inference, each against a host reference in double precision.
// An algorithm cuDNN itself refuses for this case (workspace query or call
// returning CUDNN_STATUS_NOT_SUPPORTED) is listed as "not supported by cuDNN";
// any other failure is a failed check.
// Usage: cudnn_ops [all|conv|ops|one] (default all); `one` runs the implicit-GEMM
// forward and the ReLU only (the performance-mode run), printing wall and
// simulated time. `cudnn_ops algo A [N C H W K]` runs forward algorithm A
// (cudnnConvolutionFwdAlgo_t's number) alone on that shape (3x3 filter, pad 1;
// the tests' shape by default), for bench/cudnn_algorithms.sh to compare the
// algorithms' GPU statistics.
#include <cudnn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "check.h"
#include "host_data.h"

#define CUDNN_OK(call)                                                     \
  do {                                                                     \
    const cudnnStatus_t s_ = (call);                                       \
    if (s_ != CUDNN_STATUS_SUCCESS) {                                      \
      std::fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #call, \
                   cudnnGetErrorString(s_));                               \
      return 1;                                                            \
    }                                                                      \
  } while (0)

namespace {

// The convolution's shape; only `algo` changes N, C, H, W and K, before any use.
int N = 2, C = 3, H = 13, W = 13, K = 4;
constexpr int R = 3, S = 3, PAD = 1;
int P = H, Q = W;  // stride 1, pad 1, 3x3: same size out

// A reference value with the sum of the magnitudes of its terms, the scale of
// the float rounding any summation order may add.
struct Ref {
  std::vector<double> value, magnitude;
};

// y[n,k,p,q] = sum_{c,r,s} x[n,c,p+r-PAD,q+s-PAD] w[k,c,r,s] (cross-correlation).
Ref forward_ref(const std::vector<float>& x, const std::vector<float>& w) {
  Ref y{std::vector<double>(N * K * P * Q, 0), std::vector<double>(N * K * P * Q, 0)};
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k)
      for (int p = 0; p < P; ++p)
        for (int q = 0; q < Q; ++q)
          for (int c = 0; c < C; ++c)
            for (int r = 0; r < R; ++r)
              for (int s = 0; s < S; ++s) {
                const int h = p + r - PAD, ww = q + s - PAD;
                if (h < 0 || h >= H || ww < 0 || ww >= W) continue;
                const double t = double(x[at4(n, c, h, ww, C, H, W)]) * w[at4(k, c, r, s, C, R, S)];
                y.value[at4(n, k, p, q, K, P, Q)] += t;
                y.magnitude[at4(n, k, p, q, K, P, Q)] += std::fabs(t);
              }
  return y;
}

// dx[n,c,h,w] = sum over (k,r,s) of dy[n,k,h-r+PAD,w-s+PAD] w[k,c,r,s]: the
// output positions whose window covered x[n,c,h,w].
Ref backward_data_ref(const std::vector<float>& dy, const std::vector<float>& w) {
  Ref dx{std::vector<double>(N * C * H * W, 0), std::vector<double>(N * C * H * W, 0)};
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c)
      for (int h = 0; h < H; ++h)
        for (int ww = 0; ww < W; ++ww)
          for (int k = 0; k < K; ++k)
            for (int r = 0; r < R; ++r)
              for (int s = 0; s < S; ++s) {
                const int p = h - r + PAD, q = ww - s + PAD;
                if (p < 0 || p >= P || q < 0 || q >= Q) continue;
                const double t = double(dy[at4(n, k, p, q, K, P, Q)]) * w[at4(k, c, r, s, C, R, S)];
                dx.value[at4(n, c, h, ww, C, H, W)] += t;
                dx.magnitude[at4(n, c, h, ww, C, H, W)] += std::fabs(t);
              }
  return dx;
}

// dw[k,c,r,s] = sum_{n,p,q} dy[n,k,p,q] x[n,c,p+r-PAD,q+s-PAD].
Ref backward_filter_ref(const std::vector<float>& x, const std::vector<float>& dy) {
  Ref dw{std::vector<double>(K * C * R * S, 0), std::vector<double>(K * C * R * S, 0)};
  for (int k = 0; k < K; ++k)
    for (int c = 0; c < C; ++c)
      for (int r = 0; r < R; ++r)
        for (int s = 0; s < S; ++s)
          for (int n = 0; n < N; ++n)
            for (int p = 0; p < P; ++p)
              for (int q = 0; q < Q; ++q) {
                const int h = p + r - PAD, ww = q + s - PAD;
                if (h < 0 || h >= H || ww < 0 || ww >= W) continue;
                const double t =
                    double(dy[at4(n, k, p, q, K, P, Q)]) * x[at4(n, c, h, ww, C, H, W)];
                dw.value[at4(k, c, r, s, C, R, S)] += t;
                dw.magnitude[at4(k, c, r, s, C, R, S)] += std::fabs(t);
              }
  return dw;
}

// Largest error of `got` against `ref`, relative to each element's sum of
// term magnitudes; tolerance `rel` of that sum (plus the largest such sum
// times `rel_global` for transforms that spread rounding over all elements).
bool matches(const std::vector<float>& got, const Ref& ref, double rel, double rel_global,
             double* worst) {
  const double biggest = *std::max_element(ref.magnitude.begin(), ref.magnitude.end());
  bool ok = got.size() == ref.value.size();
  *worst = 0;
  for (std::size_t i = 0; ok && i < got.size(); ++i) {
    const double err = std::fabs(got[i] - ref.value[i]);
    const double scale = ref.magnitude[i] + 1e-30;
    *worst = std::max(*worst, err / std::max(scale, biggest * 1e-3));
    if (!(err <= rel * scale + rel_global * biggest)) ok = false;  // also catches NaN
  }
  return ok;
}

// Tolerances. Direct, implicit-GEMM and GEMM algorithms sum 27 (forward),
// 36 (backward data) or 338 (backward filter) float products in some order:
// each result is within about that many float ulps (6e-8) of the sum of
// magnitudes, far below 1e-4. FFT and Winograd algorithms transform the
// operands: FFT rounding in the frequency domain and Winograd's transform
// matrices (entries up to 1/2 and sums of up to 36 transformed terms) spread
// each input's rounding over the whole tile, so an element may err by a small
// fraction of the largest magnitude in the tensor rather than of its own: they
// get 1e-4 of the largest magnitude in addition (still a thousand times below
// what a wrong index or a missing term would give, ~0.1 of the magnitude).
constexpr double kRelative = 1e-4;
double global_tolerance(bool transform) {
  return transform ? 1e-4 : 0.0;
}

struct Tensors {
  cudnnTensorDescriptor_t x, y;
  cudnnFilterDescriptor_t w;
  cudnnConvolutionDescriptor_t conv;
};

int make_descriptors(Tensors* t) {
  CUDNN_OK(cudnnCreateTensorDescriptor(&t->x));
  CUDNN_OK(cudnnCreateTensorDescriptor(&t->y));
  CUDNN_OK(cudnnCreateFilterDescriptor(&t->w));
  CUDNN_OK(cudnnCreateConvolutionDescriptor(&t->conv));
  CUDNN_OK(cudnnSetTensor4dDescriptor(t->x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
  CUDNN_OK(cudnnSetFilter4dDescriptor(t->w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, C, R, S));
  CUDNN_OK(cudnnSetConvolution2dDescriptor(t->conv, PAD, PAD, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                           CUDNN_DATA_FLOAT));
  // FP32 arithmetic: no TF32 tensor-core rounding of the operands.
  CUDNN_OK(cudnnSetConvolutionMathType(t->conv, CUDNN_FMA_MATH));
  int n, k, p, q;
  CUDNN_OK(cudnnGetConvolution2dForwardOutputDim(t->conv, t->x, t->w, &n, &k, &p, &q));
  CHECK(n == N && k == K && p == P && q == Q);
  CUDNN_OK(cudnnSetTensor4dDescriptor(t->y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, P, Q));
  return 0;
}

const char* fwd_name(cudnnConvolutionFwdAlgo_t a) {
  static const char* names[] = {
      "IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING",
      "WINOGRAD",      "WINOGRAD_NONFUSED"};
  return a < 8 ? names[a] : "?";
}
const char* bwd_data_name(cudnnConvolutionBwdDataAlgo_t a) {
  static const char* names[] = {"ALGO_0",     "ALGO_1",   "FFT",
                                "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
  return a < 6 ? names[a] : "?";
}
const char* bwd_filter_name(cudnnConvolutionBwdFilterAlgo_t a) {
  static const char* names[] = {
      "ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"};
  return a < 7 ? names[a] : "?";
}
bool fwd_transform(cudnnConvolutionFwdAlgo_t a) {
  return a == CUDNN_CONVOLUTION_FWD_ALGO_FFT || a == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING ||
         a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD ||
         a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
}
bool bwd_data_transform(cudnnConvolutionBwdDataAlgo_t a) {
  return a >= CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT;
}
bool bwd_filter_transform(cudnnConvolutionBwdFilterAlgo_t a) {
  return a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT ||
         a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING ||
         a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD ||
         a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED;
}

// What happened to one algorithm: run and matched, refused by cuDNN, or failed.
struct Tally {
  int matched = 0, unsupported = 0, failed = 0;
};

// One algorithm's outcome: `status` from the workspace query or the call.
// NOT_SUPPORTED is cuDNN's own verdict for this case; anything else but
// success is a failure.
void record(Tally* tally, const char* pass, const char* algo, cudnnStatus_t status, bool ok,
            double worst) {
  if (status == CUDNN_STATUS_NOT_SUPPORTED) {
    std::printf("%s %s: not supported by cuDNN for this case\n", pass, algo);
    ++tally->unsupported;
  } else if (status != CUDNN_STATUS_SUCCESS) {
    std::printf("%s %s: FAILED: %s\n", pass, algo, cudnnGetErrorString(status));
    ++tally->failed;
  } else if (!ok) {
    std::printf("%s %s: FAILED: wrong result (worst relative error %.3g)\n", pass, algo, worst);
    ++tally->failed;
  } else {
    std::printf("%s %s: matches the host (worst relative error %.2g)\n", pass, algo, worst);
    ++tally->matched;
  }
}

// The algorithms cuDNN's heuristics list for a pass, with their status.
template <typename Perf>
void print_heuristics(const char* pass, const Perf* perf, int count) {
  std::printf("%s heuristics list %d algorithms:", pass, count);
  for (int i = 0; i < count; ++i)
    std::printf(" %d%s", static_cast<int>(perf[i].algo),
                perf[i].status == CUDNN_STATUS_SUCCESS ? "" : "(not available)");
  std::printf("\n");
}

int check_convolutions(cudnnHandle_t h, bool forward_only, Tally* tally) {
  Tensors t;
  if (make_descriptors(&t)) return 1;
  const std::vector<float> x = random_vector(N * C * H * W, 1);
  const std::vector<float> w = random_vector(K * C * R * S, 2);
  const std::vector<float> dy = random_vector(N * K * P * Q, 3);
  float *dx_in = to_device(x), *dw_in = to_device(w), *ddy = to_device(dy);
  float *dout = nullptr, *ddx = nullptr, *ddw = nullptr;
  CHECK(dx_in && dw_in && ddy);
  CUDA_OK(cudaMalloc(&dout, N * K * P * Q * sizeof(float)));
  CUDA_OK(cudaMalloc(&ddx, N * C * H * W * sizeof(float)));
  CUDA_OK(cudaMalloc(&ddw, K * C * R * S * sizeof(float)));
  const float one = 1.0f, zero = 0.0f;
  double worst = 0;

  const Ref y_ref = forward_ref(x, w);
  cudnnConvolutionFwdAlgoPerf_t fperf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int fcount = 0;
  CUDNN_OK(cudnnGetConvolutionForwardAlgorithm_v7(
      h, t.x, t.w, t.conv, t.y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &fcount, fperf));
  print_heuristics("forward", fperf, fcount);
  for (int a = 0; a < CUDNN_CONVOLUTION_FWD_ALGO_COUNT; ++a) {
    const auto algo = static_cast<cudnnConvolutionFwdAlgo_t>(a);
    std::size_t bytes = 0;
    cudnnStatus_t s =
        cudnnGetConvolutionForwardWorkspaceSize(h, t.x, t.w, t.conv, t.y, algo, &bytes);
    void* ws = nullptr;
    if (s == CUDNN_STATUS_SUCCESS && bytes) CUDA_OK(cudaMalloc(&ws, bytes));
    if (s == CUDNN_STATUS_SUCCESS) {
      CUDA_OK(cudaMemset(dout, 0xff, N * K * P * Q * sizeof(float)));  // NaN if left unwritten
      s = cudnnConvolutionForward(h, &one, t.x, dx_in, t.w, dw_in, t.conv, algo, ws, bytes, &zero,
                                  t.y, dout);
    }
    bool ok = false;
    worst = 0;
    if (s == CUDNN_STATUS_SUCCESS)
      ok = matches(to_host(dout, N * K * P * Q), y_ref, kRelative,
                   global_tolerance(fwd_transform(algo)), &worst);
    record(tally, "forward", fwd_name(algo), s, ok, worst);
    cudaFree(ws);
  }
  // FFT and FFT_TILING on the first image alone: with one image cuDNN puts
  // cuBLAS's GEMV between the transforms instead of the CUTLASS complex GEMM
  // it uses above, another path through the same FFT kernels.
  {
    cudnnTensorDescriptor_t x1, y1;
    CUDNN_OK(cudnnCreateTensorDescriptor(&x1));
    CUDNN_OK(cudnnCreateTensorDescriptor(&y1));
    CUDNN_OK(cudnnSetTensor4dDescriptor(x1, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, C, H, W));
    CUDNN_OK(cudnnSetTensor4dDescriptor(y1, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, K, P, Q));
    const std::size_t image = K * P * Q;
    const Ref first{std::vector<double>(y_ref.value.begin(), y_ref.value.begin() + image),
                    std::vector<double>(y_ref.magnitude.begin(), y_ref.magnitude.begin() + image)};
    for (const auto algo :
         {CUDNN_CONVOLUTION_FWD_ALGO_FFT, CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING}) {
      std::size_t bytes = 0;
      CUDNN_OK(cudnnGetConvolutionForwardWorkspaceSize(h, x1, t.w, t.conv, y1, algo, &bytes));
      void* ws = nullptr;
      if (bytes) CUDA_OK(cudaMalloc(&ws, bytes));
      CUDA_OK(cudaMemset(dout, 0xff, image * sizeof(float)));
      CUDNN_OK(cudnnConvolutionForward(h, &one, x1, dx_in, t.w, dw_in, t.conv, algo, ws, bytes,
                                       &zero, y1, dout));
      CHECK(matches(to_host(dout, image), first, kRelative, global_tolerance(true), &worst));
      std::printf("forward %s, one image: matches the host (worst relative error %.2g)\n",
                  fwd_name(algo), worst);
      cudaFree(ws);
    }
  }
  if (forward_only) return 0;

  const Ref dx_ref = backward_data_ref(dy, w);
  cudnnConvolutionBwdDataAlgoPerf_t dperf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  int dcount = 0;
  CUDNN_OK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
      h, t.w, t.y, t.conv, t.x, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &dcount, dperf));
  print_heuristics("backward data", dperf, dcount);
  for (int a = 0; a < CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT; ++a) {
    const auto algo = static_cast<cudnnConvolutionBwdDataAlgo_t>(a);
    std::size_t bytes = 0;
    cudnnStatus_t s =
        cudnnGetConvolutionBackwardDataWorkspaceSize(h, t.w, t.y, t.conv, t.x, algo, &bytes);
    void* ws = nullptr;
    if (s == CUDNN_STATUS_SUCCESS && bytes) CUDA_OK(cudaMalloc(&ws, bytes));
    if (s == CUDNN_STATUS_SUCCESS) {
      CUDA_OK(cudaMemset(ddx, 0xff, N * C * H * W * sizeof(float)));
      s = cudnnConvolutionBackwardData(h, &one, t.w, dw_in, t.y, ddy, t.conv, algo, ws, bytes,
                                       &zero, t.x, ddx);
    }
    bool ok = false;
    worst = 0;
    if (s == CUDNN_STATUS_SUCCESS)
      ok = matches(to_host(ddx, N * C * H * W), dx_ref, kRelative,
                   global_tolerance(bwd_data_transform(algo)), &worst);
    record(tally, "backward data", bwd_data_name(algo), s, ok, worst);
    cudaFree(ws);
  }

  const Ref dw_ref = backward_filter_ref(x, dy);
  cudnnConvolutionBwdFilterAlgoPerf_t wperf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  int wcount = 0;
  CUDNN_OK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
      h, t.x, t.y, t.conv, t.w, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &wcount, wperf));
  print_heuristics("backward filter", wperf, wcount);
  for (int a = 0; a < CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT; ++a) {
    const auto algo = static_cast<cudnnConvolutionBwdFilterAlgo_t>(a);
    std::size_t bytes = 0;
    cudnnStatus_t s =
        cudnnGetConvolutionBackwardFilterWorkspaceSize(h, t.x, t.y, t.conv, t.w, algo, &bytes);
    void* ws = nullptr;
    if (s == CUDNN_STATUS_SUCCESS && bytes) CUDA_OK(cudaMalloc(&ws, bytes));
    if (s == CUDNN_STATUS_SUCCESS) {
      CUDA_OK(cudaMemset(ddw, 0xff, K * C * R * S * sizeof(float)));
      s = cudnnConvolutionBackwardFilter(h, &one, t.x, dx_in, t.y, ddy, t.conv, algo, ws, bytes,
                                         &zero, t.w, ddw);
    }
    bool ok = false;
    worst = 0;
    if (s == CUDNN_STATUS_SUCCESS)
      ok = matches(to_host(ddw, K * C * R * S), dw_ref, kRelative,
                   global_tolerance(bwd_filter_transform(algo)), &worst);
    record(tally, "backward filter", bwd_filter_name(algo), s, ok, worst);
    cudaFree(ws);
  }
  cudaFree(dx_in);
  cudaFree(dw_in);
  cudaFree(ddy);
  cudaFree(dout);
  cudaFree(ddx);
  cudaFree(ddw);
  return 0;
}

// ReLU: y = max(x, 0), exact.
int check_relu(cudnnHandle_t h) {
  const int n = N * C * H * W;
  const std::vector<float> x = random_vector(n, 4);
  float *dx = to_device(x), *dy = nullptr;
  CUDA_OK(cudaMalloc(&dy, n * sizeof(float)));
  cudnnTensorDescriptor_t d;
  cudnnActivationDescriptor_t act;
  CUDNN_OK(cudnnCreateTensorDescriptor(&d));
  CUDNN_OK(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
  CUDNN_OK(cudnnCreateActivationDescriptor(&act));
  CUDNN_OK(cudnnSetActivationDescriptor(act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
  const float one = 1.0f, zero = 0.0f;
  CUDNN_OK(cudnnActivationForward(h, act, &one, d, dx, &zero, d, dy));
  const std::vector<float> y = to_host(dy, n);
  for (int i = 0; i < n; ++i) CHECK(y[i] == std::max(x[i], 0.0f));
  std::printf("relu: %d elements match exactly\n", n);
  cudaFree(dx);
  cudaFree(dy);
  return 0;
}

// Max pooling 2x2, stride 2, no padding: 13x13 to 6x6; each output is the
// largest of its four inputs, exactly.
int check_max_pool(cudnnHandle_t h) {
  const int OH = (H - 2) / 2 + 1, OW = (W - 2) / 2 + 1;
  const std::vector<float> x = random_vector(N * C * H * W, 5);
  float *dx = to_device(x), *dy = nullptr;
  CUDA_OK(cudaMalloc(&dy, N * C * OH * OW * sizeof(float)));
  cudnnTensorDescriptor_t xd, yd;
  cudnnPoolingDescriptor_t pool;
  CUDNN_OK(cudnnCreateTensorDescriptor(&xd));
  CUDNN_OK(cudnnCreateTensorDescriptor(&yd));
  CUDNN_OK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
  CUDNN_OK(cudnnCreatePoolingDescriptor(&pool));
  CUDNN_OK(cudnnSetPooling2dDescriptor(pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0,
                                       2, 2));
  int n, c, oh, ow;
  CUDNN_OK(cudnnGetPooling2dForwardOutputDim(pool, xd, &n, &c, &oh, &ow));
  CHECK(n == N && c == C && oh == OH && ow == OW);
  CUDNN_OK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, OH, OW));
  const float one = 1.0f, zero = 0.0f;
  CUDNN_OK(cudnnPoolingForward(h, pool, &one, xd, dx, &zero, yd, dy));
  const std::vector<float> y = to_host(dy, N * C * OH * OW);
  for (int i = 0; i < N * C; ++i)
    for (int p = 0; p < OH; ++p)
      for (int q = 0; q < OW; ++q) {
        float m = -INFINITY;
        for (int r = 0; r < 2; ++r)
          for (int s = 0; s < 2; ++s)
            m = std::max(m, x[(static_cast<std::size_t>(i) * H + 2 * p + r) * W + 2 * q + s]);
        CHECK(y[(static_cast<std::size_t>(i) * OH + p) * OW + q] == m);
      }
  std::printf("max pooling 2x2/2: %dx%d to %dx%d matches exactly\n", H, W, OH, OW);
  cudaFree(dx);
  cudaFree(dy);
  return 0;
}

// Softmax over the channels at each (n, h, w), accurate mode:
// y_c = exp(x_c - max) / sum exp(x_j - max); float exp and division, so a few ulps.
int check_softmax(cudnnHandle_t h) {
  const int n = N * C * H * W;
  const std::vector<float> x = random_vector(n, 6);
  float *dx = to_device(x), *dy = nullptr;
  CUDA_OK(cudaMalloc(&dy, n * sizeof(float)));
  cudnnTensorDescriptor_t d;
  CUDNN_OK(cudnnCreateTensorDescriptor(&d));
  CUDNN_OK(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
  const float one = 1.0f, zero = 0.0f;
  CUDNN_OK(cudnnSoftmaxForward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &one, d, dx,
                               &zero, d, dy));
  const std::vector<float> y = to_host(dy, n);
  for (int b = 0; b < N; ++b)
    for (int p = 0; p < H * W; ++p) {
      double m = -INFINITY, sum = 0;
      for (int c = 0; c < C; ++c) m = std::max(m, double(x[(b * C + c) * H * W + p]));
      for (int c = 0; c < C; ++c) sum += std::exp(x[(b * C + c) * H * W + p] - m);
      for (int c = 0; c < C; ++c) {
        const double ref = std::exp(x[(b * C + c) * H * W + p] - m) / sum;
        CHECK(std::fabs(y[(b * C + c) * H * W + p] - ref) <= 1e-6 * ref + 1e-7);
      }
    }
  std::printf("softmax over channels: %d elements match\n", n);
  cudaFree(dx);
  cudaFree(dy);
  return 0;
}

// Batch-norm inference per channel: y = scale (x - mean) / sqrt(var + eps) + bias.
int check_batch_norm(cudnnHandle_t h) {
  const int n = N * C * H * W;
  const double eps = 1e-5;
  const std::vector<float> x = random_vector(n, 7);
  const std::vector<float> scale = {0.5f, -1.25f, 2.0f}, bias = {0.1f, 0.0f, -0.3f},
                           mean = {0.05f, -0.2f, 0.3f}, var = {0.8f, 1.5f, 0.25f};
  float *dx = to_device(x), *dy = nullptr, *dscale = to_device(scale), *dbias = to_device(bias),
        *dmean = to_device(mean), *dvar = to_device(var);
  CUDA_OK(cudaMalloc(&dy, n * sizeof(float)));
  cudnnTensorDescriptor_t d, pd;
  CUDNN_OK(cudnnCreateTensorDescriptor(&d));
  CUDNN_OK(cudnnCreateTensorDescriptor(&pd));
  CUDNN_OK(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, H, W));
  CUDNN_OK(cudnnDeriveBNTensorDescriptor(pd, d, CUDNN_BATCHNORM_SPATIAL));
  const float one = 1.0f, zero = 0.0f;
  CUDNN_OK(cudnnBatchNormalizationForwardInference(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, d, dx,
                                                   d, dy, pd, dscale, dbias, dmean, dvar, eps));
  const std::vector<float> y = to_host(dy, n);
  for (int b = 0; b < N; ++b)
    for (int c = 0; c < C; ++c)
      for (int p = 0; p < H * W; ++p) {
        const std::size_t i = (static_cast<std::size_t>(b) * C + c) * H * W + p;
        const double ref = scale[c] * (x[i] - double(mean[c])) / std::sqrt(var[c] + eps) + bias[c];
        // A handful of float operations on values of magnitude <= 6: a few ulps of 6.
        CHECK(std::fabs(y[i] - ref) <= 4e-6);
      }
  std::printf("batch norm inference: %d elements match\n", n);
  cudaFree(dx);
  cudaFree(dy);
  cudaFree(dscale);
  cudaFree(dbias);
  cudaFree(dmean);
  cudaFree(dvar);
  return 0;
}

// The performance-mode run: the implicit-GEMM forward convolution, timed.
int time_one(cudnnHandle_t h) {
  Tensors t;
  if (make_descriptors(&t)) return 1;
  const std::vector<float> x = random_vector(N * C * H * W, 1);
  const std::vector<float> w = random_vector(K * C * R * S, 2);
  float *dx = to_device(x), *dw = to_device(w), *dy = nullptr;
  CUDA_OK(cudaMalloc(&dy, N * K * P * Q * sizeof(float)));
  cudaEvent_t start, stop;
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&stop));
  const float one = 1.0f, zero = 0.0f;
  const auto wall_start = std::chrono::steady_clock::now();
  CUDA_OK(cudaEventRecord(start));
  CUDNN_OK(cudnnConvolutionForward(h, &one, t.x, dx, t.w, dw, t.conv,
                                   CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &zero, t.y,
                                   dy));
  CUDA_OK(cudaEventRecord(stop));
  CUDA_OK(cudaEventSynchronize(stop));
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  float simulated_ms = 0;
  CUDA_OK(cudaEventElapsedTime(&simulated_ms, start, stop));
  double worst = 0;
  CHECK(matches(to_host(dy, N * K * P * Q), forward_ref(x, w), kRelative, 0.0, &worst));
  std::printf(
      "forward IMPLICIT_GEMM %dx%dx%dx%d, %d filters 3x3: matches the host; %.2f s wall, "
      "%.3f ms simulated\n",
      N, C, H, W, K, wall, simulated_ms);
  cudaFree(dx);
  cudaFree(dw);
  cudaFree(dy);
  return 0;
}

// One forward algorithm alone, checked against the host: `algo` mode. An
// algorithm cuDNN refuses for the shape is reported as such and is no failure
// (the comparison lists it as not supported).
int run_algorithm(cudnnHandle_t h, int number) {
  Tensors t;
  if (make_descriptors(&t)) return 1;
  const auto algo = static_cast<cudnnConvolutionFwdAlgo_t>(number);
  const std::vector<float> x = random_vector(static_cast<std::size_t>(N) * C * H * W, 1);
  const std::vector<float> w = random_vector(static_cast<std::size_t>(K) * C * R * S, 2);
  const std::size_t out = static_cast<std::size_t>(N) * K * P * Q;
  float *dx = to_device(x), *dw = to_device(w), *dy = nullptr;
  CHECK(dx && dw);
  CUDA_OK(cudaMalloc(&dy, out * sizeof(float)));
  std::size_t bytes = 0;
  cudnnStatus_t s = cudnnGetConvolutionForwardWorkspaceSize(h, t.x, t.w, t.conv, t.y, algo, &bytes);
  void* ws = nullptr;
  if (s == CUDNN_STATUS_SUCCESS && bytes) CUDA_OK(cudaMalloc(&ws, bytes));
  const float one = 1.0f, zero = 0.0f;
  cudaEvent_t start, stop;
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&stop));
  CUDA_OK(cudaEventRecord(start));
  if (s == CUDNN_STATUS_SUCCESS)
    s = cudnnConvolutionForward(h, &one, t.x, dx, t.w, dw, t.conv, algo, ws, bytes, &zero, t.y, dy);
  CUDA_OK(cudaEventRecord(stop));
  CUDA_OK(cudaEventSynchronize(stop));
  float simulated_ms = 0;
  CUDA_OK(cudaEventElapsedTime(&simulated_ms, start, stop));
  std::printf("forward %s on %dx%dx%dx%d, %d filters 3x3 pad 1", fwd_name(algo), N, C, H, W, K);
  if (s == CUDNN_STATUS_NOT_SUPPORTED) {
    std::printf(": not supported by cuDNN for this case\n");
  } else {
    CUDNN_OK(s);
    double worst = 0;
    CHECK(matches(to_host(dy, out), forward_ref(x, w), kRelative,
                  global_tolerance(fwd_transform(algo)), &worst));
    std::printf(
        ": matches the host (worst relative error %.2g), workspace %zu bytes, %.4f ms "
        "simulated\n",
        worst, bytes, simulated_ms);
  }
  cudaFree(ws);
  cudaFree(dx);
  cudaFree(dw);
  cudaFree(dy);
  return 0;
}

// `algo A [N C H W K]`: the algorithm number and the shape, each checked.
bool parse_algorithm_args(int argc, char** argv, int* algo) {
  int* const fields[] = {algo, &N, &C, &H, &W, &K};
  const int given = argc - 2;
  if (given != 1 && given != 6) return false;
  for (int i = 0; i < given; ++i) {
    char* end = nullptr;
    const long v = std::strtol(argv[2 + i], &end, 10);
    if (*end != '\0' || end == argv[2 + i] || v < (i == 0 ? 0 : 1) || v > 4096) return false;
    *fields[i] = static_cast<int>(v);
  }
  P = H;
  Q = W;
  return *algo < CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "all";
  int algo = 0;
  if ((what != "all" && what != "conv" && what != "ops" && what != "one" && what != "algo") ||
      (what == "algo" && !parse_algorithm_args(argc, argv, &algo))) {
    std::fprintf(stderr,
                 "usage: cudnn_ops [all|conv|ops|one] | cudnn_ops algo A [N C H W K]\n"
                 "  A: a forward algorithm, 0 to %d; N C H W K: positive sizes up to 4096\n",
                 CUDNN_CONVOLUTION_FWD_ALGO_COUNT - 1);
    return 2;
  }
  std::printf("cuDNN %zu\n", cudnnGetVersion());
  cudnnHandle_t h;
  CUDNN_OK(cudnnCreate(&h));
  if (what == "one") {
    if (time_one(h) || check_relu(h)) return 1;
  } else if (what == "algo") {
    if (run_algorithm(h, algo)) return 1;
  } else {
    Tally tally;
    if (what != "ops" && check_convolutions(h, false, &tally)) return 1;
    if (what != "conv" &&
        (check_relu(h) || check_max_pool(h) || check_softmax(h) || check_batch_norm(h)))
      return 1;
    if (what != "ops") {
      std::printf(
          "convolution algorithms: %d match the host, %d not supported by cuDNN, %d failed\n",
          tally.matched, tally.unsupported, tally.failed);
      CHECK(tally.failed == 0);
      CHECK(tally.matched > 0);
    }
  }
  CUDNN_OK(cudnnDestroy(h));
  CUDA_OK(cudaDeviceSynchronize());
  std::printf("PASS\n");
  return 0;
}
