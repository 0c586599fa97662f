// LeNet-5 on MNIST-shaped images through cuDNN 9 (legacy API) and cuBLAS 13,
// unmodified, on the simulated GPU, against a host implementation of the same
// network in double precision with the same (deterministic) weights.
//
//   input 4x1x28x28 -> conv 5x5 pad 2 -> 6 channels + bias -> ReLU -> max pool 2x2
//   -> LRN across channels (n 5) -> conv 5x5 -> 16 channels + bias -> ReLU
//   -> max pool 2x2 (16x5x5 = 400) -> FC 400-120 + ReLU -> FC 120-84 + ReLU
//   -> FC 84-10 -> softmax -> cross-entropy
//
// Convolutions, bias (cudnnAddTensor), activations, pooling, LRN and softmax
// are cuDNN calls; the fully connected layers are cublasSgemm; the backward
// pass uses cudnnSoftmaxBackward, cudnnActivationBackward, cudnnPoolingBackward,
// cudnnLRNCrossChannelBackward, cudnnConvolutionBackward{Bias,Filter,Data} and
// cublasSgemm; the SGD update is cublasSaxpy. The images (and their labels)
// are made here: no data set is read.
// Usage: lenet (inference, one training step, the loss after it).
#include <cublas_v2.h>
#include <cudnn.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
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

// The network's shape.
constexpr int B = 4;                       // images in the batch
constexpr int IMG = 28;                    // 1x28x28 input
constexpr int R = 5;                       // both convolutions are 5x5
constexpr int C1 = 6, PAD1 = 2, H1 = 28;   // conv1: 28 + 2*2 - 5 + 1 = 28
constexpr int P1 = 14;                     // pool1: 28 / 2
constexpr int C2 = 16, H2 = 10;            // conv2: 14 - 5 + 1 = 10, no padding
constexpr int P2 = 5;                      // pool2: 10 / 2
constexpr int F0 = C2 * P2 * P2;           // 400 features into the first FC layer
constexpr int F1 = 120, F2 = 84, F3 = 10;  // FC widths; 10 classes
// LRN across channels: y = x (k + alpha/n sum over the n channels around c of x^2)^-beta.
// alpha is large enough that the normalisation changes the values by tens of
// percent (with AlexNet's 1e-4 it would be almost a constant scale).
constexpr unsigned LRN_N = 5;
constexpr double LRN_ALPHA = 0.5, LRN_BETA = 0.75, LRN_K = 1.0;
constexpr float LEARNING_RATE = 0.05f;
const int kLabels[B] = {7, 2, 1, 0};

using Vec = std::vector<double>;
// The parameters: conv1 w/b, conv2 w/b, fc1 w/b, fc2 w/b, fc3 w/b (FC weights
// row-major out x in).
constexpr int kParams = 10;
const char* const kParamNames[kParams] = {
    "conv1 filter", "conv1 bias", "conv2 filter", "conv2 bias", "fc1 weight",
    "fc1 bias",     "fc2 weight", "fc2 bias",     "fc3 weight", "fc3 bias"};
constexpr int kConv1Weights = C1 * R * R, kConv2Weights = C2 * C1 * R * R;
constexpr int kFc1Weights = F1 * F0, kFc2Weights = F2 * F1, kFc3Weights = F3 * F2;
constexpr int kConv1FanIn = R * R, kConv2FanIn = C1 * R * R;
const int kParamSizes[kParams] = {kConv1Weights, C1, kConv2Weights, C2, kFc1Weights, F1,
                                  kFc2Weights,   F2, kFc3Weights,   F3};
const int kFanIn[kParams] = {kConv1FanIn, kConv1FanIn, kConv2FanIn, kConv2FanIn, F0,
                             F0,          F1,          F1,          F2,          F2};
using Params = std::array<Vec, kParams>;

// Deterministic values in [-1, 1): a 32-bit LCG (Numerical Recipes' constants).
struct Lcg {
  unsigned state;
  double next() {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 8388608.0f - 1.0f;
  }
};

// Uniform in +-sqrt(3 / fan_in) (unit variance per input; biases a tenth of
// that), rounded to float: the device gets exactly these values.
Params initial_params() {
  Params p;
  for (int i = 0; i < kParams; ++i) {
    Lcg g{100u + static_cast<unsigned>(i)};
    const double scale = std::sqrt(3.0 / kFanIn[i]) * (i % 2 ? 0.1 : 1.0);
    for (int j = 0; j < kParamSizes[i]; ++j) p[i].push_back(static_cast<float>(scale * g.next()));
  }
  return p;
}

// Images in [0, 1): faint noise with a bright stroke whose place and slope
// depend on the label, so the images differ in more than noise.
Vec make_images() {
  Vec x(static_cast<std::size_t>(B) * IMG * IMG);
  Lcg g{7};
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < IMG; ++h)
      for (int w = 0; w < IMG; ++w) {
        const int l = kLabels[b];
        const bool stroke = std::abs(w - (4 + 2 * l) - (h * (l % 3)) / 4) <= 1;
        const double noise = 0.1 * (g.next() + 1.0);
        x[(static_cast<std::size_t>(b) * IMG + h) * IMG + w] =
            static_cast<float>(stroke ? 0.8 + noise : noise);
      }
  return x;
}

// ---------------------------------------------------------------- the host network
// Cross-correlation, stride 1: y[n,k,p,q] = b[k] + sum_{c,r,s} x[n,c,p+r-pad,q+s-pad] w[k,c,r,s].
Vec conv_forward(const Vec& x, int c_in, int h, const Vec& w, const Vec& bias, int k_out, int pad) {
  const int out = h + 2 * pad - R + 1;
  Vec y(static_cast<std::size_t>(B) * k_out * out * out);
  for (int n = 0; n < B; ++n)
    for (int k = 0; k < k_out; ++k)
      for (int p = 0; p < out; ++p)
        for (int q = 0; q < out; ++q) {
          double sum = bias[k];
          for (int c = 0; c < c_in; ++c)
            for (int r = 0; r < R; ++r)
              for (int s = 0; s < R; ++s) {
                const int hh = p + r - pad, ww = q + s - pad;
                if (hh < 0 || hh >= h || ww < 0 || ww >= h) continue;
                sum += x[at4(n, c, hh, ww, c_in, h, h)] * w[at4(k, c, r, s, c_in, R, R)];
              }
          y[at4(n, k, p, q, k_out, out, out)] = sum;
        }
  return y;
}

// The gradients of a convolution: dw[k,c,r,s] = sum_{n,p,q} dy[n,k,p,q] x[n,c,p+r-pad,q+s-pad],
// db[k] = sum_{n,p,q} dy[n,k,p,q], dx[n,c,h,w] = sum over the windows that covered it.
void conv_backward(const Vec& x, int c_in, int h, const Vec& w, int k_out, int pad, const Vec& dy,
                   Vec* dw, Vec* db, Vec* dx) {
  const int out = h + 2 * pad - R + 1;
  dw->assign(w.size(), 0);
  db->assign(k_out, 0);
  if (dx) dx->assign(x.size(), 0);
  for (int n = 0; n < B; ++n)
    for (int k = 0; k < k_out; ++k)
      for (int p = 0; p < out; ++p)
        for (int q = 0; q < out; ++q) {
          const double g = dy[at4(n, k, p, q, k_out, out, out)];
          (*db)[k] += g;
          for (int c = 0; c < c_in; ++c)
            for (int r = 0; r < R; ++r)
              for (int s = 0; s < R; ++s) {
                const int hh = p + r - pad, ww = q + s - pad;
                if (hh < 0 || hh >= h || ww < 0 || ww >= h) continue;
                (*dw)[at4(k, c, r, s, c_in, R, R)] += g * x[at4(n, c, hh, ww, c_in, h, h)];
                if (dx) (*dx)[at4(n, c, hh, ww, c_in, h, h)] += g * w[at4(k, c, r, s, c_in, R, R)];
              }
        }
}

Vec relu(const Vec& x) {
  Vec y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = std::max(x[i], 0.0);
  return y;
}

// dx = dy where the output was positive (ReLU's derivative; 0 at 0).
Vec relu_backward(const Vec& y, const Vec& dy) {
  Vec dx(y.size());
  for (std::size_t i = 0; i < y.size(); ++i) dx[i] = y[i] > 0 ? dy[i] : 0;
  return dx;
}

// Max pooling 2x2 stride 2 over `planes` planes of h x h; `from` keeps the
// index of each output's maximum (the first of equal ones) for the backward pass.
// Equal inputs here are ReLU zeros, whose gradient the ReLU below stops, so
// which of them cuDNN picks does not change any parameter's gradient.
Vec max_pool(const Vec& x, int planes, int h, std::vector<std::size_t>* from) {
  const int o = h / 2;
  Vec y(static_cast<std::size_t>(planes) * o * o);
  from->resize(y.size());
  for (int i = 0; i < planes; ++i)
    for (int p = 0; p < o; ++p)
      for (int q = 0; q < o; ++q) {
        std::size_t best = (static_cast<std::size_t>(i) * h + 2 * p) * h + 2 * q;
        for (int r = 0; r < 2; ++r)
          for (int s = 0; s < 2; ++s) {
            const std::size_t j = (static_cast<std::size_t>(i) * h + 2 * p + r) * h + 2 * q + s;
            if (x[j] > x[best]) best = j;
          }
        const std::size_t out = (static_cast<std::size_t>(i) * o + p) * o + q;
        y[out] = x[best];
        (*from)[out] = best;
      }
  return y;
}

Vec max_pool_backward(const Vec& dy, const std::vector<std::size_t>& from, std::size_t in_size) {
  Vec dx(in_size, 0);
  for (std::size_t i = 0; i < dy.size(); ++i) dx[from[i]] += dy[i];
  return dx;
}

// The LRN denominator base s[n,c,i] = k + alpha/n sum_{j=c-2..c+2, in range} x[n,j,i]^2.
Vec lrn_scale(const Vec& x, int channels, int plane) {
  Vec s(x.size());
  const int half = static_cast<int>(LRN_N) / 2;
  for (int n = 0; n < B; ++n)
    for (int c = 0; c < channels; ++c)
      for (int i = 0; i < plane; ++i) {
        double sum = 0;
        for (int j = std::max(0, c - half); j <= std::min(channels - 1, c + half); ++j) {
          const double v = x[(static_cast<std::size_t>(n) * channels + j) * plane + i];
          sum += v * v;
        }
        s[(static_cast<std::size_t>(n) * channels + c) * plane + i] =
            LRN_K + LRN_ALPHA / LRN_N * sum;
      }
  return s;
}

Vec lrn(const Vec& x, int channels, int plane) {
  const Vec s = lrn_scale(x, channels, plane);
  Vec y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = x[i] * std::pow(s[i], -LRN_BETA);
  return y;
}

// dx[j] = dy[j] s[j]^-beta - 2 alpha beta / n x[j] sum_{c whose window holds j} dy[c] x[c]
// s[c]^(-beta-1).
Vec lrn_backward(const Vec& x, const Vec& dy, int channels, int plane) {
  const Vec s = lrn_scale(x, channels, plane);
  const int half = static_cast<int>(LRN_N) / 2;
  Vec dx(x.size());
  for (int n = 0; n < B; ++n)
    for (int j = 0; j < channels; ++j)
      for (int i = 0; i < plane; ++i) {
        const std::size_t at = (static_cast<std::size_t>(n) * channels + j) * plane + i;
        double cross = 0;
        for (int c = std::max(0, j - half); c <= std::min(channels - 1, j + half); ++c) {
          const std::size_t ac = (static_cast<std::size_t>(n) * channels + c) * plane + i;
          cross += dy[ac] * x[ac] * std::pow(s[ac], -LRN_BETA - 1);
        }
        dx[at] =
            dy[at] * std::pow(s[at], -LRN_BETA) - 2 * LRN_ALPHA * LRN_BETA / LRN_N * x[at] * cross;
      }
  return dx;
}

// y[b,o] = bias[o] + sum_i w[o,i] x[b,i].
Vec fc(const Vec& x, const Vec& w, const Vec& bias, int in, int out) {
  Vec y(static_cast<std::size_t>(B) * out);
  for (int b = 0; b < B; ++b)
    for (int o = 0; o < out; ++o) {
      double sum = bias[o];
      for (int i = 0; i < in; ++i) sum += w[static_cast<std::size_t>(o) * in + i] * x[b * in + i];
      y[b * out + o] = sum;
    }
  return y;
}

// dw[o,i] = sum_b dy[b,o] x[b,i]; db[o] = sum_b dy[b,o]; dx[b,i] = sum_o w[o,i] dy[b,o].
void fc_backward(const Vec& x, const Vec& w, const Vec& dy, int in, int out, Vec* dw, Vec* db,
                 Vec* dx) {
  dw->assign(w.size(), 0);
  db->assign(out, 0);
  dx->assign(x.size(), 0);
  for (int b = 0; b < B; ++b)
    for (int o = 0; o < out; ++o) {
      const double g = dy[b * out + o];
      (*db)[o] += g;
      for (int i = 0; i < in; ++i) {
        (*dw)[static_cast<std::size_t>(o) * in + i] += g * x[b * in + i];
        (*dx)[b * in + i] += g * w[static_cast<std::size_t>(o) * in + i];
      }
    }
}

struct HostForward {
  Vec r1, p1, l1, r2, p2, h1, h2, logits, prob;
  std::vector<std::size_t> from1, from2;
  double loss = 0;
};

// Mean cross-entropy of the labels under `prob` (B x 10).
template <typename T>
double cross_entropy(const std::vector<T>& prob) {
  double loss = 0;
  for (int b = 0; b < B; ++b) loss -= std::log(static_cast<double>(prob[b * F3 + kLabels[b]]));
  return loss / B;
}

HostForward host_forward(const Params& p, const Vec& x) {
  HostForward f;
  f.r1 = relu(conv_forward(x, 1, IMG, p[0], p[1], C1, PAD1));
  f.p1 = max_pool(f.r1, B * C1, H1, &f.from1);
  f.l1 = lrn(f.p1, C1, P1 * P1);
  f.r2 = relu(conv_forward(f.l1, C1, P1, p[2], p[3], C2, 0));
  f.p2 = max_pool(f.r2, B * C2, H2, &f.from2);
  f.h1 = relu(fc(f.p2, p[4], p[5], F0, F1));
  f.h2 = relu(fc(f.h1, p[6], p[7], F1, F2));
  f.logits = fc(f.h2, p[8], p[9], F2, F3);
  f.prob.resize(f.logits.size());
  for (int b = 0; b < B; ++b) {
    const double m = *std::max_element(&f.logits[b * F3], &f.logits[b * F3] + F3);
    double sum = 0;
    for (int o = 0; o < F3; ++o) sum += std::exp(f.logits[b * F3 + o] - m);
    for (int o = 0; o < F3; ++o) f.prob[b * F3 + o] = std::exp(f.logits[b * F3 + o] - m) / sum;
  }
  f.loss = cross_entropy(f.prob);
  return f;
}

// The gradients of the mean cross-entropy with respect to every parameter.
Params host_backward(const Params& p, const Vec& x, const HostForward& f) {
  Params g;
  Vec d(f.prob);  // d loss / d logits = (softmax - one-hot) / B
  for (int b = 0; b < B; ++b) d[b * F3 + kLabels[b]] -= 1;
  for (double& v : d) v /= B;
  Vec dx;
  fc_backward(f.h2, p[8], d, F2, F3, &g[8], &g[9], &dx);
  fc_backward(f.h1, p[6], relu_backward(f.h2, dx), F1, F2, &g[6], &g[7], &d);
  fc_backward(f.p2, p[4], relu_backward(f.h1, d), F0, F1, &g[4], &g[5], &dx);
  d = relu_backward(f.r2, max_pool_backward(dx, f.from2, f.r2.size()));
  conv_backward(f.l1, C1, P1, p[2], C2, 0, d, &g[2], &g[3], &dx);
  d = lrn_backward(f.p1, dx, C1, P1 * P1);
  d = relu_backward(f.r1, max_pool_backward(d, f.from1, f.r1.size()));
  conv_backward(x, 1, IMG, p[0], C1, PAD1, d, &g[0], &g[1], nullptr);
  return g;
}

// ------------------------------------------------------------------ comparison
// Largest |got - ref| relative to the largest |ref| of the tensor.
template <typename T>
double worst_error(const std::vector<T>& got, const Vec& ref) {
  if (got.size() != ref.size()) return INFINITY;  // a failed download
  double biggest = 0, err = 0;
  for (double v : ref) biggest = std::max(biggest, std::fabs(v));
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double e = std::fabs(static_cast<double>(got[i]) - ref[i]);
    err = std::max(err, e != e ? INFINITY : e);  // a NaN is as wrong as it gets
  }
  return err / std::max(biggest, 1e-30);
}

// Tolerances, relative to the largest magnitude in each tensor. The device
// computes in FP32 (FMA math: no TF32), the host in double from the same
// float weights and images. The longest dot products are conv1's filter
// gradient (4 images x 28 x 28 = 3136 terms), fc1 (400 terms) and conv2 (150);
// summed in any order, each result is within n * 2^-24 of its sum of term
// magnitudes in the worst case and about sqrt(n) * 2^-24 typically (~3e-6 for
// n = 3136), and the sums of magnitudes are within a small factor of the
// largest result. Rounding errors of earlier layers pass through the later
// ones scaled by the (order-one) weights. So forward values are held to 1e-4
// and gradients, which go through twice as many layers and the longest sums,
// to 1e-3 of the tensor's largest magnitude; a wrong index, a missing term or
// a wrong formula (an LRN with alpha instead of alpha/n) errs by more than 1e-2.
constexpr double kForwardTolerance = 1e-4, kGradientTolerance = 1e-3;

// ------------------------------------------------------------------ the device network
float* device_buffer(std::size_t n) {
  float* d = nullptr;
  return cudaMalloc(&d, n * sizeof(float)) == cudaSuccess ? d : nullptr;
}

int upload(float* d, const Vec& h) {
  const std::vector<float> f(h.begin(), h.end());
  CUDA_OK(cudaMemcpy(d, f.data(), f.size() * sizeof(float), cudaMemcpyHostToDevice));
  return 0;
}

std::vector<float> download(const float* d, std::size_t n) {
  std::vector<float> h(n);
  if (cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) h.clear();
  return h;
}

struct Tensor {
  cudnnTensorDescriptor_t desc = nullptr;
  float* data = nullptr;  // the values
  float* grad = nullptr;  // d loss / d values
  std::size_t size = 0;
};

struct Net {
  cudnnHandle_t dnn;
  cublasHandle_t blas;
  // Activations: the images; conv1 with its bias (a1) and its ReLU (r1);
  // pool1, LRN; conv2 + bias, ReLU; pool2 (also the 400 FC inputs); each FC
  // layer before (z) and after (h) its ReLU; the logits (z3) and the
  // probabilities. Backward needs both sides of every ReLU.
  Tensor x, a1, r1, p1, l1, a2, r2, p2, z1, h1, z2, h2, z3, prob;
  std::array<float*, kParams> param{}, grad{};
  cudnnTensorDescriptor_t bias_desc[5];  // 1 x C x 1 x 1 per layer
  cudnnFilterDescriptor_t w1, w2;
  cudnnConvolutionDescriptor_t conv1, conv2;
  cudnnActivationDescriptor_t relu;
  cudnnPoolingDescriptor_t pool;
  cudnnLRNDescriptor_t lrn;
  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

constexpr auto kFwdAlgo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
constexpr auto kBwdDataAlgo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
constexpr auto kBwdFilterAlgo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;

int make_tensor(Tensor* t, int n, int c, int h, int w) {
  CUDNN_OK(cudnnCreateTensorDescriptor(&t->desc));
  CUDNN_OK(cudnnSetTensor4dDescriptor(t->desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w));
  t->size = static_cast<std::size_t>(n) * c * h * w;
  t->data = device_buffer(t->size);
  t->grad = device_buffer(t->size);
  CHECK(t->data && t->grad);
  return 0;
}

// The workspace the chosen algorithms need for one convolution.
int grow_workspace(Net* net, const Tensor& in, cudnnFilterDescriptor_t w,
                   cudnnConvolutionDescriptor_t conv, const Tensor& out) {
  std::size_t f = 0, d = 0, g = 0;
  CUDNN_OK(
      cudnnGetConvolutionForwardWorkspaceSize(net->dnn, in.desc, w, conv, out.desc, kFwdAlgo, &f));
  CUDNN_OK(cudnnGetConvolutionBackwardDataWorkspaceSize(net->dnn, w, out.desc, conv, in.desc,
                                                        kBwdDataAlgo, &d));
  CUDNN_OK(cudnnGetConvolutionBackwardFilterWorkspaceSize(net->dnn, in.desc, out.desc, conv, w,
                                                          kBwdFilterAlgo, &g));
  net->workspace_bytes = std::max({net->workspace_bytes, f, d, g});
  return 0;
}

int make_conv(cudnnFilterDescriptor_t* w, cudnnConvolutionDescriptor_t* conv, int k, int c, int pad,
              const Tensor& in, const Tensor& out) {
  CUDNN_OK(cudnnCreateFilterDescriptor(w));
  CUDNN_OK(cudnnSetFilter4dDescriptor(*w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, R, R));
  CUDNN_OK(cudnnCreateConvolutionDescriptor(conv));
  CUDNN_OK(cudnnSetConvolution2dDescriptor(*conv, pad, pad, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                           CUDNN_DATA_FLOAT));
  CUDNN_OK(cudnnSetConvolutionMathType(*conv, CUDNN_FMA_MATH));  // FP32, no TF32
  int n, kk, p, q;
  CUDNN_OK(cudnnGetConvolution2dForwardOutputDim(*conv, in.desc, *w, &n, &kk, &p, &q));
  int on, oc, oh, ow, s0, s1, s2, s3;
  cudnnDataType_t type;
  CUDNN_OK(cudnnGetTensor4dDescriptor(out.desc, &type, &on, &oc, &oh, &ow, &s0, &s1, &s2, &s3));
  CHECK(n == on && kk == oc && p == oh && q == ow);
  return 0;
}

int make_net(Net* net, const Params& p) {
  CUDNN_OK(cudnnCreate(&net->dnn));
  CUBLAS_OK(cublasCreate(&net->blas));
  if (make_tensor(&net->x, B, 1, IMG, IMG) || make_tensor(&net->a1, B, C1, H1, H1) ||
      make_tensor(&net->r1, B, C1, H1, H1) || make_tensor(&net->p1, B, C1, P1, P1) ||
      make_tensor(&net->l1, B, C1, P1, P1) || make_tensor(&net->a2, B, C2, H2, H2) ||
      make_tensor(&net->r2, B, C2, H2, H2) || make_tensor(&net->p2, B, C2, P2, P2) ||
      make_tensor(&net->z1, B, F1, 1, 1) || make_tensor(&net->h1, B, F1, 1, 1) ||
      make_tensor(&net->z2, B, F2, 1, 1) || make_tensor(&net->h2, B, F2, 1, 1) ||
      make_tensor(&net->z3, B, F3, 1, 1) || make_tensor(&net->prob, B, F3, 1, 1))
    return 1;
  const int channels[5] = {C1, C2, F1, F2, F3};
  for (int l = 0; l < 5; ++l) {
    CUDNN_OK(cudnnCreateTensorDescriptor(&net->bias_desc[l]));
    CUDNN_OK(cudnnSetTensor4dDescriptor(net->bias_desc[l], CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1,
                                        channels[l], 1, 1));
  }
  for (int i = 0; i < kParams; ++i) {
    net->param[i] = device_buffer(kParamSizes[i]);
    net->grad[i] = device_buffer(kParamSizes[i]);
    CHECK(net->param[i] && net->grad[i]);
    if (upload(net->param[i], p[i])) return 1;
  }
  if (make_conv(&net->w1, &net->conv1, C1, 1, PAD1, net->x, net->a1) ||
      make_conv(&net->w2, &net->conv2, C2, C1, 0, net->l1, net->a2))
    return 1;
  CUDNN_OK(cudnnCreateActivationDescriptor(&net->relu));
  CUDNN_OK(
      cudnnSetActivationDescriptor(net->relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
  CUDNN_OK(cudnnCreatePoolingDescriptor(&net->pool));
  CUDNN_OK(cudnnSetPooling2dDescriptor(net->pool, CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2,
                                       0, 0, 2, 2));
  CUDNN_OK(cudnnCreateLRNDescriptor(&net->lrn));
  CUDNN_OK(cudnnSetLRNDescriptor(net->lrn, LRN_N, LRN_ALPHA, LRN_BETA, LRN_K));
  if (grow_workspace(net, net->x, net->w1, net->conv1, net->a1) ||
      grow_workspace(net, net->l1, net->w2, net->conv2, net->a2))
    return 1;
  if (net->workspace_bytes) CUDA_OK(cudaMalloc(&net->workspace, net->workspace_bytes));
  return 0;
}

const float kOne = 1.0f, kZero = 0.0f;

// conv + bias: out = conv(in, w) + bias (cudnnAddTensor broadcasts 1xCx1x1).
int conv_forward(Net* net, const Tensor& in, cudnnFilterDescriptor_t wd, const float* w,
                 cudnnConvolutionDescriptor_t conv, const Tensor& out, int layer) {
  CUDNN_OK(cudnnConvolutionForward(net->dnn, &kOne, in.desc, in.data, wd, w, conv, kFwdAlgo,
                                   net->workspace, net->workspace_bytes, &kZero, out.desc,
                                   out.data));
  CUDNN_OK(cudnnAddTensor(net->dnn, &kOne, net->bias_desc[layer], net->param[2 * layer + 1], &kOne,
                          out.desc, out.data));
  return 0;
}

// Y (out x B, column-major: B rows of `out` floats) = W^T X + bias, with W
// stored row-major out x in, i.e. column-major in x out.
int fc_forward(Net* net, const Tensor& in, int in_features, const Tensor& out, int out_features,
               int layer) {
  CUBLAS_OK(cublasSgemm(net->blas, CUBLAS_OP_T, CUBLAS_OP_N, out_features, B, in_features, &kOne,
                        net->param[2 * layer], in_features, in.data, in_features, &kZero, out.data,
                        out_features));
  CUDNN_OK(cudnnAddTensor(net->dnn, &kOne, net->bias_desc[layer], net->param[2 * layer + 1], &kOne,
                          out.desc, out.data));
  return 0;
}

int relu_forward(Net* net, const Tensor& in, const Tensor& out) {
  CUDNN_OK(cudnnActivationForward(net->dnn, net->relu, &kOne, in.desc, in.data, &kZero, out.desc,
                                  out.data));
  return 0;
}

int forward(Net* net) {
  if (conv_forward(net, net->x, net->w1, net->param[0], net->conv1, net->a1, 0) ||
      relu_forward(net, net->a1, net->r1))
    return 1;
  CUDNN_OK(cudnnPoolingForward(net->dnn, net->pool, &kOne, net->r1.desc, net->r1.data, &kZero,
                               net->p1.desc, net->p1.data));
  CUDNN_OK(cudnnLRNCrossChannelForward(net->dnn, net->lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1, &kOne,
                                       net->p1.desc, net->p1.data, &kZero, net->l1.desc,
                                       net->l1.data));
  if (conv_forward(net, net->l1, net->w2, net->param[2], net->conv2, net->a2, 1) ||
      relu_forward(net, net->a2, net->r2))
    return 1;
  CUDNN_OK(cudnnPoolingForward(net->dnn, net->pool, &kOne, net->r2.desc, net->r2.data, &kZero,
                               net->p2.desc, net->p2.data));
  if (fc_forward(net, net->p2, F0, net->z1, F1, 2) || relu_forward(net, net->z1, net->h1) ||
      fc_forward(net, net->h1, F1, net->z2, F2, 3) || relu_forward(net, net->z2, net->h2) ||
      fc_forward(net, net->h2, F2, net->z3, F3, 4))
    return 1;
  CUDNN_OK(cudnnSoftmaxForward(net->dnn, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &kOne,
                               net->z3.desc, net->z3.data, &kZero, net->prob.desc, net->prob.data));
  return 0;
}

// From d loss / d Y (out x B) back to the weights, bias and d loss / d X:
// dW (in x out, column-major) = X dY^T, db = the sum over the images, dX = W dY.
int fc_backward(Net* net, const Tensor& in, int in_features, const Tensor& out, int out_features,
                int layer) {
  CUBLAS_OK(cublasSgemm(net->blas, CUBLAS_OP_N, CUBLAS_OP_T, in_features, out_features, B, &kOne,
                        in.data, in_features, out.grad, out_features, &kZero, net->grad[2 * layer],
                        in_features));
  CUDNN_OK(cudnnConvolutionBackwardBias(net->dnn, &kOne, out.desc, out.grad, &kZero,
                                        net->bias_desc[layer], net->grad[2 * layer + 1]));
  CUBLAS_OK(cublasSgemm(net->blas, CUBLAS_OP_N, CUBLAS_OP_N, in_features, B, out_features, &kOne,
                        net->param[2 * layer], in_features, out.grad, out_features, &kZero, in.grad,
                        in_features));
  return 0;
}

int relu_backward(Net* net, const Tensor& in, const Tensor& out) {
  CUDNN_OK(cudnnActivationBackward(net->dnn, net->relu, &kOne, out.desc, out.data, out.desc,
                                   out.grad, in.desc, in.data, &kZero, in.desc, in.grad));
  return 0;
}

int pool_backward(Net* net, const Tensor& in, const Tensor& out) {
  CUDNN_OK(cudnnPoolingBackward(net->dnn, net->pool, &kOne, out.desc, out.data, out.desc, out.grad,
                                in.desc, in.data, &kZero, in.desc, in.grad));
  return 0;
}

int conv_backward(Net* net, const Tensor& in, cudnnFilterDescriptor_t wd,
                  cudnnConvolutionDescriptor_t conv, const Tensor& out, int layer, bool data) {
  CUDNN_OK(cudnnConvolutionBackwardBias(net->dnn, &kOne, out.desc, out.grad, &kZero,
                                        net->bias_desc[layer], net->grad[2 * layer + 1]));
  CUDNN_OK(cudnnConvolutionBackwardFilter(net->dnn, &kOne, in.desc, in.data, out.desc, out.grad,
                                          conv, kBwdFilterAlgo, net->workspace,
                                          net->workspace_bytes, &kZero, wd, net->grad[2 * layer]));
  if (data)
    CUDNN_OK(cudnnConvolutionBackwardData(net->dnn, &kOne, wd, net->param[2 * layer], out.desc,
                                          out.grad, conv, kBwdDataAlgo, net->workspace,
                                          net->workspace_bytes, &kZero, in.desc, in.grad));
  return 0;
}

// prob.grad holds d loss / d probabilities; the rest of the chain to every parameter.
int backward(Net* net) {
  CUDNN_OK(cudnnSoftmaxBackward(net->dnn, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE,
                                &kOne, net->prob.desc, net->prob.data, net->prob.desc,
                                net->prob.grad, &kZero, net->z3.desc, net->z3.grad));
  if (fc_backward(net, net->h2, F2, net->z3, F3, 4) || relu_backward(net, net->z2, net->h2) ||
      fc_backward(net, net->h1, F1, net->z2, F2, 3) || relu_backward(net, net->z1, net->h1) ||
      fc_backward(net, net->p2, F0, net->z1, F1, 2) || pool_backward(net, net->r2, net->p2) ||
      relu_backward(net, net->a2, net->r2) ||
      conv_backward(net, net->l1, net->w2, net->conv2, net->a2, 1, true))
    return 1;
  CUDNN_OK(cudnnLRNCrossChannelBackward(
      net->dnn, net->lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1, &kOne, net->l1.desc, net->l1.data,
      net->l1.desc, net->l1.grad, net->p1.desc, net->p1.data, &kZero, net->p1.desc, net->p1.grad));
  if (pool_backward(net, net->r1, net->p1) || relu_backward(net, net->a1, net->r1) ||
      conv_backward(net, net->x, net->w1, net->conv1, net->a1, 0, false))
    return 1;
  return 0;
}

int sgd_update(Net* net) {
  const float step = -LEARNING_RATE;
  for (int i = 0; i < kParams; ++i)
    CUBLAS_OK(cublasSaxpy(net->blas, kParamSizes[i], &step, net->grad[i], 1, net->param[i], 1));
  return 0;
}

// d loss / d prob[b, o] = -1 / (B prob[b, label]) at the label, 0 elsewhere.
int upload_loss_gradient(Net* net, const std::vector<float>& prob) {
  Vec d(prob.size(), 0);
  for (int b = 0; b < B; ++b) d[b * F3 + kLabels[b]] = -1.0 / (B * prob[b * F3 + kLabels[b]]);
  return upload(net->prob.grad, d);
}

int argmax(const std::vector<float>& v, int b) {
  return static_cast<int>(std::max_element(&v[b * F3], &v[b * F3] + F3) - &v[b * F3]);
}

int run() {
  const Params p0 = initial_params();
  const Vec images = make_images();
  Net net;
  if (make_net(&net, p0) || upload(net.x.data, images)) return 1;

  // Inference.
  const HostForward host = host_forward(p0, images);
  if (forward(&net)) return 1;
  const std::vector<float> lrn_out = download(net.l1.data, net.l1.size);
  const double lrn_err = worst_error(lrn_out, host.l1);
  CHECK(lrn_err <= kForwardTolerance);
  std::printf(
      "LRN across channels (n %u, alpha %g, beta %g, k %g): %zu values match the host "
      "(worst error %.2g of the largest)\n",
      LRN_N, LRN_ALPHA, LRN_BETA, LRN_K, lrn_out.size(), lrn_err);
  const std::vector<float> logits = download(net.z3.data, net.z3.size);
  const std::vector<float> prob = download(net.prob.data, net.prob.size);
  const double logit_err = worst_error(logits, host.logits);
  const double prob_err = worst_error(prob, host.prob);
  CHECK(logit_err <= kForwardTolerance && prob_err <= kForwardTolerance);
  for (int b = 0; b < B; ++b) {
    double host_best = -INFINITY;
    int host_class = 0;
    for (int o = 0; o < F3; ++o)
      if (host.logits[b * F3 + o] > host_best) host_best = host.logits[b * F3 + o], host_class = o;
    std::printf("image %d (label %d): class %d, probability of the label %.4f\n", b, kLabels[b],
                argmax(prob, b), prob[b * F3 + kLabels[b]]);
    CHECK(argmax(prob, b) == host_class);
  }
  std::printf("inference: %d images match the host (logits worst error %.2g, probabilities %.2g)\n",
              B, logit_err, prob_err);

  // One training step, timed: d loss / d probabilities up, backward, SGD,
  // and the forward pass that gives the loss after it. SGD and the forward
  // pass leave the gradients in place, so they are checked afterwards.
  const double loss = cross_entropy(prob);
  CHECK(std::fabs(loss - host.loss) <= kForwardTolerance * host.loss);
  cudaEvent_t start, stop;
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&stop));
  const auto wall_start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();  // the process's, simulator threads included
  CUDA_OK(cudaEventRecord(start));
  if (upload_loss_gradient(&net, prob) || backward(&net) || sgd_update(&net) || forward(&net))
    return 1;
  CUDA_OK(cudaEventRecord(stop));
  CUDA_OK(cudaEventSynchronize(stop));
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  float simulated_ms = 0;
  CUDA_OK(cudaEventElapsedTime(&simulated_ms, start, stop));

  const Params host_grad = host_backward(p0, images, host);
  double grad_err = 0;
  for (int i = 0; i < kParams; ++i) {
    const std::vector<float> g = download(net.grad[i], kParamSizes[i]);
    const double err = worst_error(g, host_grad[i]);
    grad_err = std::max(grad_err, err);
    if (!(err <= kGradientTolerance))
      std::printf("gradient of the %s: FAILED, worst error %.3g of the largest\n", kParamNames[i],
                  err);
    CHECK(err <= kGradientTolerance);
  }
  std::printf(
      "backward: the gradients of all %d parameter tensors match the host (worst error %.2g of "
      "the largest)\n",
      kParams, grad_err);
  Params p1 = p0;
  for (int i = 0; i < kParams; ++i)
    for (int j = 0; j < kParamSizes[i]; ++j) p1[i][j] -= LEARNING_RATE * host_grad[i][j];
  for (int i = 0; i < kParams; ++i) {
    const std::vector<float> w = download(net.param[i], kParamSizes[i]);
    // The update moves each weight by lr * gradient (at most ~1e-2 of the
    // weight here): errors as the gradient's, scaled down, on top of the
    // weight's own float rounding.
    CHECK(worst_error(w, p1[i]) <= kForwardTolerance);
  }
  const HostForward host_after = host_forward(p1, images);
  const std::vector<float> prob_after = download(net.prob.data, net.prob.size);
  const double loss_after = cross_entropy(prob_after);
  CHECK(worst_error(prob_after, host_after.prob) <= kForwardTolerance);
  CHECK(std::fabs(loss_after - host_after.loss) <= kForwardTolerance * host_after.loss);
  CHECK(loss_after < loss);
  std::printf("SGD (learning rate %g): the updated weights match the host\n", LEARNING_RATE);
  std::printf("training step: loss from %.4f to %.4f, matches the host (%.4f to %.4f)\n", loss,
              loss_after, host.loss, host_after.loss);
  std::printf(
      "training step (backward, update, forward): %.2f s wall, %.2f s CPU, %.3f ms simulated\n",
      wall, cpu, simulated_ms);
  CUBLAS_OK(cublasDestroy(net.blas));
  CUDNN_OK(cudnnDestroy(net.dnn));
  return 0;
}

}  // namespace

int main(int argc, char**) {
  if (argc > 1) {
    std::fprintf(stderr, "usage: lenet (no arguments)\n");
    return 2;
  }
  std::printf("cuDNN %zu, LeNet-5 on %d images of 28x28\n", cudnnGetVersion(), B);
  if (run()) return 1;
  CUDA_OK(cudaDeviceSynchronize());
  std::printf("PASS\n");
  return 0;
}
