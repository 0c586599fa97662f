// cuDNN 9, unmodified, on the simulated GPU through its graph (backend) API:
// an FP32 convolution (N=2, C=16, 10x10, K=32, 3x3 filter, pad 1, stride 1) as
// a one-node operation graph per direction (forward, backward data, backward
// filter), in NCHW and in NHWC, then a fused conv + bias + ReLU graph (NHWC).
// For each graph the program runs every engine config the INSTANT and
// FALLBACK heuristics propose, then every engine by its global index
// (0 .. CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT - 1, default knobs): each
// execution plan that finalizes is executed with the workspace it asks for
// and its output checked against a host reference in double precision.
// An engine or plan cuDNN refuses (a CUDNN_STATUS_NOT_SUPPORTED* status at
// finalize, or a finalize that leaves another engine, see run_config) counts
// as not supported by cuDNN; any other error or wrong output counts as failed,
// with one exception explained in run_config (cuDNN's engine 71 on NCHW).
// Usage: cudnn_graph [all|forward|backward|fused|one] (default all); `one` runs
// the NCHW forward graph with the first engine config the INSTANT heuristics
// propose, printing wall and simulated time, and the fused graph with its
// runtime-compiled engine 49 (the performance-mode run).
#include <cudnn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
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

constexpr int N = 2, C = 16, H = 10, W = 10, K = 32, R = 3, S = 3, PAD = 1;
constexpr int P = H, Q = W;  // stride 1, pad 1, 3x3: same size out
constexpr std::size_t kX = N * C * H * W, kW = K * C * R * S, kY = N * K * P * Q;

// Tensor unique ids in the variant packs.
constexpr int64_t kUidX = 'x', kUidW = 'w', kUidY = 'y', kUidBias = 'b', kUidConv = 'c',
                  kUidSum = 's';

// An NCHW tensor of dims {n,c,h,w} reordered to NHWC.
template <typename T>
std::vector<T> to_nhwc(const std::vector<T>& v, int n, int c, int h, int w) {
  std::vector<T> out(v.size());
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < c; ++b)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) out[at4(a, y, x, b, h, w, c)] = v[at4(a, b, y, x, c, h, w)];
  return out;
}

// A reference value with the sum of the magnitudes of its terms, the scale of
// the float rounding any summation order may add.
struct Ref {
  std::vector<double> value, magnitude;
};

// The three convolution passes share one loop over (n, k, c, p, q, r, s):
// each visits the product x[n,c,p+r-PAD,q+s-PAD] * w[k,c,r,s] * dy[n,k,p,q]
// with one factor left out, as y, dx and dw need (cross-correlation).
enum class Pass { forward, backward_data, backward_filter };

// `read_as_nhwc` reads x as if it were NHWC and w as KRSC (what one cuDNN
// engine's kernel is told about NCHW tensors, below).
Ref reference(Pass pass, const std::vector<float>& x, const std::vector<float>& w,
              const std::vector<float>& dy, bool read_as_nhwc = false) {
  const std::size_t size = pass == Pass::forward ? kY : pass == Pass::backward_data ? kX : kW;
  Ref out{std::vector<double>(size, 0), std::vector<double>(size, 0)};
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k)
      for (int c = 0; c < C; ++c)
        for (int p = 0; p < P; ++p)
          for (int q = 0; q < Q; ++q)
            for (int r = 0; r < R; ++r)
              for (int s = 0; s < S; ++s) {
                const int h = p + r - PAD, ww = q + s - PAD;
                if (h < 0 || h >= H || ww < 0 || ww >= W) continue;
                const std::size_t ix = read_as_nhwc ? at4(n, h, ww, c, H, W, C)
                                                    : at4(n, c, h, ww, C, H, W),
                                  iw = read_as_nhwc ? at4(k, r, s, c, R, S, C)
                                                    : at4(k, c, r, s, C, R, S),
                                  iy = at4(n, k, p, q, K, P, Q);
                double t;
                std::size_t i;
                if (pass == Pass::forward) {
                  t = double(x[ix]) * w[iw], i = iy;
                } else if (pass == Pass::backward_data) {
                  t = double(dy[iy]) * w[iw], i = ix;
                } else {
                  t = double(dy[iy]) * x[ix], i = iw;
                }
                out.value[i] += t;
                out.magnitude[i] += std::fabs(t);
              }
  return out;
}

// Tolerances, relative to each element's sum of term magnitudes. Engines that
// sum the float products directly (implicit GEMM, GEMM, direct) sum 144
// (forward), 288 (backward data) or 200 (backward filter) products in some
// order: within that many float ulps (6e-8) of the sum of magnitudes, 2e-5 at
// most, below 1e-4. Engines whose numerical notes say FFT or Winograd transform the
// operands and spread each input's rounding over a tile: they get 1e-4 of the
// largest magnitude in the tensor in addition. Engines noted as tensor-core or
// down-converting feed FP32 inputs to TF32 MMAs (10 mantissa bits): with both
// operands truncated each product errs by under 2^-9 of its magnitude, so
// 2e-3. A wrong index or a missing term errs by about a tenth of the
// magnitude, far above all three.
struct Tolerance {
  double relative = 1e-4, global = 0.0;
};

bool matches(const std::vector<float>& got, const Ref& ref, Tolerance tol, double* worst) {
  const double biggest = *std::max_element(ref.magnitude.begin(), ref.magnitude.end());
  bool ok = got.size() == ref.value.size();
  *worst = 0;
  for (std::size_t i = 0; ok && i < got.size(); ++i) {
    const double err = std::fabs(got[i] - ref.value[i]);
    const double scale = ref.magnitude[i] + 1e-30;
    *worst = std::max(*worst, err / std::max(scale, biggest * 1e-3));
    if (!(err <= tol.relative * scale + tol.global * biggest)) ok = false;  // also catches NaN
  }
  return ok;
}

// cuDNN refuses an engine for a graph with a status of the NOT_SUPPORTED category.
bool refused(cudnnStatus_t s) {
  return CUDNN_STATUS_CATEGORY(s) == CUDNN_STATUS_NOT_SUPPORTED;
}

// One backend descriptor, destroyed with its scope.
class Desc {
 public:
  explicit Desc(cudnnBackendDescriptorType_t type) {
    status_ = cudnnBackendCreateDescriptor(type, &d_);
  }
  ~Desc() {
    if (d_) cudnnBackendDestroyDescriptor(d_);
  }
  Desc(const Desc&) = delete;
  Desc& operator=(const Desc&) = delete;
  cudnnBackendDescriptor_t get() const { return d_; }
  cudnnStatus_t status() const { return status_; }

 private:
  cudnnBackendDescriptor_t d_ = nullptr;
  cudnnStatus_t status_;
};

template <typename T>
cudnnStatus_t set(const Desc& d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
                  const T* values, int64_t count = 1) {
  return cudnnBackendSetAttribute(d.get(), name, type, count, values);
}

cudnnStatus_t set_desc(const Desc& d, cudnnBackendAttributeName_t name, const Desc& value) {
  cudnnBackendDescriptor_t v = value.get();
  return cudnnBackendSetAttribute(d.get(), name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &v);
}

// Where a tensor's elements lie: NCHW (w fastest, then h, c, n) or NHWC (c fastest).
enum class Layout { nchw, nhwc };

// A packed FP32 tensor of logical dims {n,c,h,w} in `layout`; a virtual one
// lives only inside a fused graph.
int make_tensor(Desc* t, int64_t uid, int64_t a, int64_t b, int64_t c, int64_t d,
                Layout layout = Layout::nchw, bool is_virtual = false) {
  const int64_t dims[] = {a, b, c, d};
  const int64_t nchw[] = {b * c * d, c * d, d, 1}, nhwc[] = {b * c * d, 1, d * b, b};
  const int64_t* strides = layout == Layout::nchw ? nchw : nhwc;
  const int64_t alignment = 16;  // cudaMalloc's pointers are 256-byte aligned
  const cudnnDataType_t type = CUDNN_DATA_FLOAT;
  CUDNN_OK(t->status());
  CUDNN_OK(set(*t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, &type));
  CUDNN_OK(set(*t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, dims, 4));
  CUDNN_OK(set(*t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, strides, 4));
  CUDNN_OK(set(*t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, &uid));
  CUDNN_OK(set(*t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, &alignment));
  if (is_virtual) CUDNN_OK(set(*t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, &is_virtual));
  CUDNN_OK(cudnnBackendFinalize(t->get()));
  return 0;
}

// 2-D cross-correlation, FP32 compute, pad 1 on every side, stride and dilation 1.
int make_convolution(Desc* conv) {
  const int64_t spatial = 2, pad[] = {PAD, PAD}, one[] = {1, 1};
  const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  CUDNN_OK(conv->status());
  CUDNN_OK(set(*conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, &spatial));
  CUDNN_OK(set(*conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, &compute));
  CUDNN_OK(set(*conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, &mode));
  CUDNN_OK(set(*conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, pad, 2));
  CUDNN_OK(set(*conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, pad, 2));
  CUDNN_OK(set(*conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, one, 2));
  CUDNN_OK(set(*conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, one, 2));
  CUDNN_OK(cudnnBackendFinalize(conv->get()));
  return 0;
}

// The attributes of one direction's operation node: its type, alpha, beta,
// convolution, and the three tensors as (attribute, x-, w- or y-shaped).
struct Direction {
  const char* name;
  Pass pass;
  cudnnBackendDescriptorType_t op_type;
  cudnnBackendAttributeName_t alpha, beta, conv, x_like, w_like, y_like;
  int64_t output_uid;
};

const Direction kForward{"forward",
                         Pass::forward,
                         CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
                         CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
                         CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
                         CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
                         CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
                         CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
                         CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
                         kUidY};
const Direction kBackwardData{"backward data",
                              Pass::backward_data,
                              CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
                              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
                              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA,
                              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
                              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
                              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
                              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY,
                              kUidX};
const Direction kBackwardFilter{"backward filter",
                                Pass::backward_filter,
                                CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW,
                                CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY,
                                kUidW};

// The device buffers the graphs read and write, by tensor uid.
struct Buffers {
  float *x = nullptr, *w = nullptr, *y = nullptr, *bias = nullptr;
  float* by_uid(int64_t uid) const {
    return uid == kUidX ? x : uid == kUidW ? w : uid == kUidY ? y : bias;
  }
};

// What happened to the engines of one graph.
struct Tally {
  int matched = 0, unsupported = 0, misread = 0, failed = 0;
};

// Builds the operation graph of one direction: a single convolution node.
int make_graph(cudnnHandle_t handle, const Direction& dir, Layout layout, Desc* graph) {
  Desc x(CUDNN_BACKEND_TENSOR_DESCRIPTOR), w(CUDNN_BACKEND_TENSOR_DESCRIPTOR),
      y(CUDNN_BACKEND_TENSOR_DESCRIPTOR), conv(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR),
      op(dir.op_type);
  if (make_tensor(&x, kUidX, N, C, H, W, layout) || make_tensor(&w, kUidW, K, C, R, S, layout) ||
      make_tensor(&y, kUidY, N, K, P, Q, layout) || make_convolution(&conv))
    return 1;
  const float alpha = 1.0f, beta = 0.0f;
  CUDNN_OK(op.status());
  CUDNN_OK(set(op, dir.alpha, CUDNN_TYPE_FLOAT, &alpha));
  CUDNN_OK(set(op, dir.beta, CUDNN_TYPE_FLOAT, &beta));
  CUDNN_OK(set_desc(op, dir.conv, conv));
  CUDNN_OK(set_desc(op, dir.x_like, x));
  CUDNN_OK(set_desc(op, dir.w_like, w));
  CUDNN_OK(set_desc(op, dir.y_like, y));
  CUDNN_OK(cudnnBackendFinalize(op.get()));
  CUDNN_OK(graph->status());
  CUDNN_OK(set(*graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, &handle));
  CUDNN_OK(set_desc(*graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, op));
  CUDNN_OK(cudnnBackendFinalize(graph->get()));
  return 0;
}

// The fused graph y = relu(conv(x, w) + bias): the convolution's output and the
// sum are virtual tensors, bias is {1,K,1,1} broadcast over n, p, q.
int make_fused_graph(cudnnHandle_t handle, Layout layout, Desc* graph) {
  Desc x(CUDNN_BACKEND_TENSOR_DESCRIPTOR), w(CUDNN_BACKEND_TENSOR_DESCRIPTOR),
      conv_out(CUDNN_BACKEND_TENSOR_DESCRIPTOR), bias(CUDNN_BACKEND_TENSOR_DESCRIPTOR),
      sum(CUDNN_BACKEND_TENSOR_DESCRIPTOR), y(CUDNN_BACKEND_TENSOR_DESCRIPTOR),
      conv(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR),
      conv_op(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR),
      add(CUDNN_BACKEND_POINTWISE_DESCRIPTOR), relu(CUDNN_BACKEND_POINTWISE_DESCRIPTOR),
      add_op(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR),
      relu_op(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
  if (make_tensor(&x, kUidX, N, C, H, W, layout) || make_tensor(&w, kUidW, K, C, R, S, layout) ||
      make_tensor(&conv_out, kUidConv, N, K, P, Q, layout, true) ||
      make_tensor(&bias, kUidBias, 1, K, 1, 1, layout) ||
      make_tensor(&sum, kUidSum, N, K, P, Q, layout, true) ||
      make_tensor(&y, kUidY, N, K, P, Q, layout) || make_convolution(&conv))
    return 1;
  const float alpha = 1.0f, beta = 0.0f;
  CUDNN_OK(conv_op.status());
  CUDNN_OK(set(conv_op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, &alpha));
  CUDNN_OK(set(conv_op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, &beta));
  CUDNN_OK(set_desc(conv_op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, conv));
  CUDNN_OK(set_desc(conv_op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, x));
  CUDNN_OK(set_desc(conv_op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, w));
  CUDNN_OK(set_desc(conv_op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, conv_out));
  CUDNN_OK(cudnnBackendFinalize(conv_op.get()));
  const cudnnDataType_t precision = CUDNN_DATA_FLOAT;
  const cudnnPointwiseMode_t add_mode = CUDNN_POINTWISE_ADD, relu_mode = CUDNN_POINTWISE_RELU_FWD;
  for (auto [pw, mode] : {std::pair{&add, add_mode}, std::pair{&relu, relu_mode}}) {
    CUDNN_OK(pw->status());
    CUDNN_OK(set(*pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, &mode));
    CUDNN_OK(set(*pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, &precision));
    CUDNN_OK(cudnnBackendFinalize(pw->get()));
  }
  CUDNN_OK(add_op.status());
  CUDNN_OK(set_desc(add_op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, add));
  CUDNN_OK(set_desc(add_op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, conv_out));
  CUDNN_OK(set_desc(add_op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, bias));
  CUDNN_OK(set_desc(add_op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, sum));
  CUDNN_OK(cudnnBackendFinalize(add_op.get()));
  CUDNN_OK(relu_op.status());
  CUDNN_OK(set_desc(relu_op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, relu));
  CUDNN_OK(set_desc(relu_op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, sum));
  CUDNN_OK(set_desc(relu_op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y));
  CUDNN_OK(cudnnBackendFinalize(relu_op.get()));
  cudnnBackendDescriptor_t ops[] = {conv_op.get(), add_op.get(), relu_op.get()};
  CUDNN_OK(graph->status());
  CUDNN_OK(set(*graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, &handle));
  CUDNN_OK(set(*graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, ops, 3));
  CUDNN_OK(cudnnBackendFinalize(graph->get()));
  return 0;
}

// An engine's global index, the tolerance its numerical notes call for, and
// its notes as words.
int describe_engine(cudnnBackendDescriptor_t engine, int64_t* index, Tolerance* tol,
                    std::string* notes) {
  int64_t count = 0;
  CUDNN_OK(cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1,
                                    &count, index));
  cudnnBackendNumericalNote_t note[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  CUDNN_OK(cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
                                    CUDNN_TYPE_NUMERICAL_NOTE, CUDNN_NUMERICAL_NOTE_TYPE_COUNT,
                                    &count, note));
  static const char* names[] = {"tensor-core",  "down-convert",     "reduced-precision",
                                "fft",          "nondeterministic", "winograd",
                                "winograd-4x4", "winograd-6x6",     "winograd-13x13",
                                "strict-nan"};
  *tol = Tolerance{};
  notes->clear();
  for (int64_t i = 0; i < count; ++i) {
    const int n = static_cast<int>(note[i]);
    if (n >= 0 && n < CUDNN_NUMERICAL_NOTE_TYPE_COUNT) *notes += std::string(" ") + names[n];
    switch (note[i]) {
      case CUDNN_NUMERICAL_NOTE_TENSOR_CORE:
      case CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS:
      case CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION:
        tol->relative = std::max(tol->relative, 2e-3);
        break;
      case CUDNN_NUMERICAL_NOTE_FFT:
      case CUDNN_NUMERICAL_NOTE_WINOGRAD:
      case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4:
      case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_6x6:
      case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13:
        tol->global = 1e-4;
        break;
      default:
        break;
    }
  }
  // Whether cuDNN compiles the engine at run time (NVRTC).
  cudnnBackendBehaviorNote_t behavior[CUDNN_BEHAVIOR_NOTE_TYPE_COUNT];
  CUDNN_OK(cudnnBackendGetAttribute(engine, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE,
                                    CUDNN_TYPE_BEHAVIOR_NOTE, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT,
                                    &count, behavior));
  for (int64_t i = 0; i < count; ++i)
    if (behavior[i] == CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION) *notes += " runtime-compiled";
  return 0;
}

// What one graph computes: the uids of its non-virtual tensors (its variant
// pack, which some engines want exact), which one it writes, and the
// reference; for the NCHW forward graph also the convolution of the inputs
// read as NHWC/KRSC (see run_config).
struct Check {
  const char* name;
  std::vector<int64_t> uids;
  int64_t output_uid;
  std::size_t output_size;
  const Ref* ref;
  const Ref* misread = nullptr;
};

// Finalizes a plan for `config`, executes it and checks the output. A plan
// cuDNN refuses is "not supported"; an error or a wrong output is "failed".
// `wanted` is the engine's global index when the config was built from one
// (-1 for a heuristics config): cuDNN 9.19 finalizes some engines or engine
// configs it refuses for the graph with success, logs the refusal as a
// warning (CUDNN_LOGLEVEL_DBG=2) and leaves the descriptor as another engine
// (mostly engine 0); such an index is counted as not supported.
int run_config(cudnnHandle_t handle, cudnnBackendDescriptor_t config, const Buffers& buffers,
               const Check& check, const char* label, int64_t wanted, Tally* tally) {
  Desc engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  CUDNN_OK(engine.status());
  cudnnBackendDescriptor_t engine_out = engine.get();
  int64_t count = 0;
  CUDNN_OK(cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_ENGINE,
                                    CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count, &engine_out));
  int64_t index = -1;
  Tolerance tol;
  std::string notes;
  if (describe_engine(engine.get(), &index, &tol, &notes)) return 1;
  if (wanted >= 0 && index != wanted) {
    std::printf("%s %s: not supported by cuDNN (its finalize left engine %lld)\n", check.name,
                label, static_cast<long long>(index));
    ++tally->unsupported;
    return 0;
  }

  Desc plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
  CUDNN_OK(plan.status());
  CUDNN_OK(set(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, &handle));
  CUDNN_OK(
      set(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, &config));
  cudnnStatus_t s = cudnnBackendFinalize(plan.get());
  if (refused(s)) {
    std::printf("%s %s (engine %lld%s): not supported by cuDNN: %s\n", check.name, label,
                static_cast<long long>(index), notes.c_str(), cudnnGetErrorString(s));
    ++tally->unsupported;
    return 0;
  }
  double worst = 0, misread_worst = 0;
  bool ok = false, misread = false;
  int64_t workspace = 0;
  void* ws = nullptr;
  if (s == CUDNN_STATUS_SUCCESS)
    s = cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                 CUDNN_TYPE_INT64, 1, &count, &workspace);
  if (s == CUDNN_STATUS_SUCCESS && workspace > 0) CUDA_OK(cudaMalloc(&ws, workspace));
  if (s == CUDNN_STATUS_SUCCESS) {
    Desc pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    const std::vector<int64_t>& uids = check.uids;
    std::vector<void*> pointers;
    for (int64_t uid : uids) pointers.push_back(buffers.by_uid(uid));
    CUDNN_OK(pack.status());
    CUDNN_OK(set(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, uids.data(),
                 static_cast<int64_t>(uids.size())));
    CUDNN_OK(set(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, pointers.data(),
                 static_cast<int64_t>(pointers.size())));
    CUDNN_OK(set(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, &ws));
    CUDNN_OK(cudnnBackendFinalize(pack.get()));
    float* out = buffers.by_uid(check.output_uid);
    CUDA_OK(cudaMemset(out, 0xff, check.output_size * sizeof(float)));  // NaN if left unwritten
    s = cudnnBackendExecute(handle, plan.get(), pack.get());
    if (s == CUDNN_STATUS_SUCCESS) {
      CUDA_OK(cudaDeviceSynchronize());
      const std::vector<float> got = to_host(out, check.output_size);
      ok = matches(got, *check.ref, tol, &worst);
      // cuDNN 9.19's runtime-compiled engine 71 (NVRTC, fort_native_sm80
      // convFwd, TF32) is not refused for NCHW tensors but hands its kernel
      // the NCHW x with NHWC strides (the tensor descriptor among its launch
      // parameters, seen in a debugger for a 2x3x10x10 x: 300,1,30,3) and
      // launches no transpose, only one for the output. The simulator must
      // then compute exactly the convolution of x read as NHWC and w as KRSC,
      // checked here with the same tolerance (the same engine matches the host
      // on the NHWC graph). Any other wrong output is a failure.
      if (!ok && check.misread) misread = matches(got, *check.misread, tol, &misread_worst);
    }
  }
  cudaFree(ws);
  if (s != CUDNN_STATUS_SUCCESS) {
    std::printf("%s %s (engine %lld%s): FAILED: %s\n", check.name, label,
                static_cast<long long>(index), notes.c_str(), cudnnGetErrorString(s));
    ++tally->failed;
  } else if (!ok && misread) {
    std::printf(
        "%s %s (engine %lld%s): cuDNN's kernel reads the NCHW input as NHWC: matches the host "
        "convolution of that reading (worst relative error %.2g)\n",
        check.name, label, static_cast<long long>(index), notes.c_str(), misread_worst);
    ++tally->misread;
  } else if (!ok) {
    std::printf("%s %s (engine %lld%s): FAILED: wrong result (worst relative error %.3g)\n",
                check.name, label, static_cast<long long>(index), notes.c_str(), worst);
    ++tally->failed;
  } else {
    std::printf(
        "%s %s (engine %lld%s): matches the host (worst relative error %.2g, workspace %lld "
        "bytes)\n",
        check.name, label, static_cast<long long>(index), notes.c_str(), worst,
        static_cast<long long>(workspace));
    ++tally->matched;
  }
  return 0;
}

// The engine configs a heuristics mode proposes for `graph` (at most 64).
int heuristics(const Desc& graph, cudnnBackendHeurMode_t mode,
               std::vector<cudnnBackendDescriptor_t>* configs) {
  Desc heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
  CUDNN_OK(heur.status());
  CUDNN_OK(set_desc(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph));
  CUDNN_OK(set(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, &mode));
  CUDNN_OK(cudnnBackendFinalize(heur.get()));
  int64_t count = 0;
  CUDNN_OK(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                    CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr));
  count = std::min<int64_t>(count, 64);
  configs->assign(count, nullptr);
  for (auto& c : *configs)
    CUDNN_OK(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &c));
  int64_t returned = 0;
  CUDNN_OK(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                    CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &returned,
                                    configs->data()));
  for (int64_t i = returned; i < count; ++i) cudnnBackendDestroyDescriptor((*configs)[i]);
  configs->resize(returned);
  return 0;
}

// Runs engine `index` of `graph` with its default knobs.
int run_engine(cudnnHandle_t handle, const Desc& graph, int64_t index, const Buffers& buffers,
               const Check& check, Tally* tally) {
  Desc engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  CUDNN_OK(engine.status());
  CUDNN_OK(set_desc(engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, graph));
  CUDNN_OK(set(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, &index));
  const cudnnStatus_t s = cudnnBackendFinalize(engine.get());
  char label[32];
  std::snprintf(label, sizeof label, "index %lld", static_cast<long long>(index));
  if (s != CUDNN_STATUS_SUCCESS) {
    std::printf("%s %s: %s: %s\n", check.name, label,
                refused(s) ? "not supported by cuDNN" : "FAILED", cudnnGetErrorString(s));
    ++(refused(s) ? tally->unsupported : tally->failed);
    return 0;
  }
  Desc config(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  CUDNN_OK(config.status());
  CUDNN_OK(set_desc(config, CUDNN_ATTR_ENGINECFG_ENGINE, engine));
  CUDNN_OK(cudnnBackendFinalize(config.get()));
  return run_config(handle, config.get(), buffers, check, label, index, tally);
}

// Runs every engine of `graph`: each config the INSTANT and FALLBACK
// heuristics propose, then each global index with its default knobs.
int run_all_engines(cudnnHandle_t handle, const Desc& graph, const Buffers& buffers,
                    const Check& check, Tally* tally) {
  for (auto [mode, mode_name] : {std::pair{CUDNN_HEUR_MODE_INSTANT, "instant"},
                                 std::pair{CUDNN_HEUR_MODE_FALLBACK, "fallback"}}) {
    std::vector<cudnnBackendDescriptor_t> configs;
    if (heuristics(graph, mode, &configs)) return 1;
    std::printf("%s heuristics %s: %zu engine configs\n", check.name, mode_name, configs.size());
    for (std::size_t i = 0; i < configs.size(); ++i) {
      char label[48];
      std::snprintf(label, sizeof label, "%s config %zu", mode_name, i);
      const int failed = run_config(handle, configs[i], buffers, check, label, -1, tally);
      if (failed) return 1;
    }
    for (auto c : configs) cudnnBackendDestroyDescriptor(c);
  }
  int64_t engines = 0, count = 0;
  CUDNN_OK(cudnnBackendGetAttribute(graph.get(), CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT,
                                    CUDNN_TYPE_INT64, 1, &count, &engines));
  std::printf("%s graph: %lld engines\n", check.name, static_cast<long long>(engines));
  for (int64_t i = 0; i < engines; ++i)
    if (run_engine(handle, graph, i, buffers, check, tally)) return 1;
  return 0;
}

void print_tally(const char* name, const Tally& t) {
  std::printf("graph %s: %d engines match the host, %d not supported by cuDNN, ", name, t.matched,
              t.unsupported);
  if (t.misread) std::printf("%d read the NCHW input as NHWC (cuDNN), ", t.misread);
  std::printf("%d failed\n", t.failed);
}

// y = relu(conv(x, w) + bias[k]); the bias adds its magnitude to each element's scale.
Ref fused_reference(const std::vector<float>& x, const std::vector<float>& w,
                    const std::vector<float>& bias) {
  Ref y = reference(Pass::forward, x, w, {});
  for (std::size_t i = 0; i < kY; ++i) {
    const float b = bias[(i / (P * Q)) % K];
    y.value[i] = std::max(y.value[i] + b, 0.0);
    y.magnitude[i] += std::fabs(b);
  }
  return y;
}

// The performance-mode run: the forward graph with the first engine config
// the INSTANT heuristics propose, timed in wall and simulated time.
int time_one(cudnnHandle_t handle, const Buffers& buffers, const Check& check) {
  Desc graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  if (make_graph(handle, kForward, Layout::nchw, &graph)) return 1;
  std::vector<cudnnBackendDescriptor_t> configs;
  if (heuristics(graph, CUDNN_HEUR_MODE_INSTANT, &configs)) return 1;
  CHECK(!configs.empty());
  cudaEvent_t start, stop;
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&stop));
  Tally tally;
  const auto wall_start = std::chrono::steady_clock::now();
  CUDA_OK(cudaEventRecord(start));
  const int failed = run_config(handle, configs[0], buffers, check, "instant config 0", -1, &tally);
  CUDA_OK(cudaEventRecord(stop));
  CUDA_OK(cudaEventSynchronize(stop));
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  float simulated_ms = 0;
  CUDA_OK(cudaEventElapsedTime(&simulated_ms, start, stop));
  for (auto c : configs) cudnnBackendDestroyDescriptor(c);
  CHECK(!failed && tally.matched == 1);
  std::printf("forward graph %dx%dx%dx%d, %d filters 3x3: %.2f s wall, %.3f ms simulated\n", N, C,
              H, W, K, wall, simulated_ms);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "all";
  if (what != "all" && what != "forward" && what != "backward" && what != "fused" &&
      what != "one") {
    std::fprintf(stderr, "usage: cudnn_graph [all|forward|backward|fused|one]\n");
    return 2;
  }
  std::printf("cuDNN %zu\n", cudnnGetVersion());
  cudnnHandle_t handle;
  CUDNN_OK(cudnnCreate(&handle));
  const std::vector<float> x = random_vector(kX, 1), w = random_vector(kW, 2),
                           dy = random_vector(kY, 3), bias = random_vector(K, 4);
  const Buffers buffers{to_device(x), to_device(w), to_device(dy), to_device(bias)};
  CHECK(buffers.x && buffers.w && buffers.y && buffers.bias);
  const std::vector<int64_t> conv_uids = {kUidX, kUidW, kUidY};

  if (what == "one") {
    const Ref ref = reference(Pass::forward, x, w, dy);
    if (time_one(handle, buffers, Check{"forward", conv_uids, kUidY, kY, &ref})) return 1;
  }
  int failed = 0, without_match = 0;
  const bool forward = what == "all" || what == "forward",
             backward = what == "all" || what == "backward";
  // Every direction in NCHW (the case the legacy test runs) and in NHWC, where
  // cuDNN's runtime-compiled (NVRTC) engines apply. Each starts from the
  // inputs: a direction writes a tensor another reads.
  for (const Layout layout : {Layout::nchw, Layout::nhwc}) {
    const bool nhwc = layout == Layout::nhwc;
    const auto in_layout = [nhwc](const auto& v, int a, int b, int c, int d) {
      return nhwc ? to_nhwc(v, a, b, c, d) : v;
    };
    for (const Direction* dir : {&kForward, &kBackwardData, &kBackwardFilter}) {
      if (dir->pass == Pass::forward ? !forward : !backward) continue;
      const std::vector<float> xl = in_layout(x, N, C, H, W), wl = in_layout(w, K, C, R, S),
                               dyl = in_layout(dy, N, K, P, Q);
      CUDA_OK(cudaMemcpy(buffers.x, xl.data(), kX * sizeof(float), cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemcpy(buffers.w, wl.data(), kW * sizeof(float), cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemcpy(buffers.y, dyl.data(), kY * sizeof(float), cudaMemcpyHostToDevice));
      const Ref nchw_ref = reference(dir->pass, x, w, dy);
      Ref ref = nchw_ref;
      std::size_t size = kY;
      if (dir->pass == Pass::forward) {
        ref = {in_layout(nchw_ref.value, N, K, P, Q), in_layout(nchw_ref.magnitude, N, K, P, Q)};
      } else if (dir->pass == Pass::backward_data) {
        ref = {in_layout(nchw_ref.value, N, C, H, W), in_layout(nchw_ref.magnitude, N, C, H, W)};
        size = kX;
      } else {
        ref = {in_layout(nchw_ref.value, K, C, R, S), in_layout(nchw_ref.magnitude, K, C, R, S)};
        size = kW;
      }
      const Ref misread = reference(Pass::forward, x, w, dy, true);
      const std::string name = std::string(dir->name) + (nhwc ? " NHWC" : " NCHW");
      Desc graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
      if (make_graph(handle, *dir, layout, &graph)) return 1;
      Tally tally;
      if (run_all_engines(handle, graph, buffers,
                          Check{name.c_str(), conv_uids, dir->output_uid, size, &ref,
                                dir->pass == Pass::forward && !nhwc ? &misread : nullptr},
                          &tally))
        return 1;
      print_tally(name.c_str(), tally);
      failed += tally.failed;
      without_match += tally.matched == 0;
    }
  }
  if (what == "all" || what == "fused" || what == "one") {
    // cuDNN's runtime-fusion engines take NHWC only; in NCHW cuDNN 9.19 lets
    // one of them (engine 49) finalize its engine config while logging
    // NOT_SUPPORTED_LAYOUT, then calls NVRTC it never loaded when the plan
    // is finalized (a null function pointer inside cuDNN): the fused graph is NHWC.
    const Ref nchw = fused_reference(x, w, bias);
    const Ref ref{to_nhwc(nchw.value, N, K, P, Q), to_nhwc(nchw.magnitude, N, K, P, Q)};
    const std::vector<float> x_nhwc = to_nhwc(x, N, C, H, W), w_nhwc = to_nhwc(w, K, C, R, S);
    CUDA_OK(cudaMemcpy(buffers.x, x_nhwc.data(), kX * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(buffers.w, w_nhwc.data(), kW * sizeof(float), cudaMemcpyHostToDevice));
    Desc graph(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    if (make_fused_graph(handle, Layout::nhwc, &graph)) return 1;
    Tally tally;
    const Check check{"conv+bias+relu NHWC", {kUidX, kUidW, kUidBias, kUidY}, kUidY, kY, &ref};
    // `one` runs engine 49 alone: compiled with NVRTC, TF32 tensor cores.
    if (what == "one" ? run_engine(handle, graph, 49, buffers, check, &tally)
                      : run_all_engines(handle, graph, buffers, check, &tally))
      return 1;
    print_tally("conv+bias+relu NHWC", tally);
    failed += tally.failed;
    without_match += tally.matched == 0;
  }
  CHECK(failed == 0);
  CHECK(without_match == 0);
  CUDNN_OK(cudnnDestroy(handle));
  CUDA_OK(cudaDeviceSynchronize());
  std::printf("PASS\n");
  return 0;
}
