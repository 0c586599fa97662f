// The Tensor Memory Accelerator through the driver's tensor maps and inline PTX: tiled 2D/3D loads
// in every swizzle mode with boxes partly outside the tensor (zero and NaN fill), element strides,
// a store and a reduction, plain bulk copies and a bulk reduction, an im2col load of an NHWC
// tensor, and the driver's argument checks. Each shared-memory image is compared with a host
// reference built from the rules in the comments.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "check.h"

namespace {

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                 const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                 const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
using EncodeIm2col = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                  const cuuint64_t*, const cuuint64_t*, const int*, const int*,
                                  cuuint32_t, cuuint32_t, const cuuint32_t*, CUtensorMapInterleave,
                                  CUtensorMapSwizzle, CUtensorMapL2promotion,
                                  CUtensorMapFloatOOBfill);
using ReplaceAddress = CUresult (*)(CUtensorMap*, void*);

constexpr int kSmemBytes = 8192;

__device__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ void bar_init(uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count));
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ void bar_expect(uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
               "r"(bytes)
               : "memory");
}

__device__ void bar_wait(uint64_t* bar, unsigned parity) {
  asm volatile(
      "{\n .reg .pred p;\n"
      "WAIT_%=:\n"
      " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      " @!p bra WAIT_%=;\n}" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}

// Loads one 2D box at (x, y) into shared memory and copies the raw shared bytes out.
__global__ void load_2d(const __grid_constant__ CUtensorMap map, int x, int y, unsigned bytes,
                        unsigned char* out) {
  __shared__ alignas(1024) unsigned char box[kSmemBytes];
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) {
    bar_init(&bar, 1);
    bar_expect(&bar, bytes);
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];" ::"r"(smem_addr(box)),
        "l"(&map), "r"(x), "r"(y), "r"(smem_addr(&bar))
        : "memory");
  }
  __syncthreads();
  bar_wait(&bar, 0);
  for (unsigned i = threadIdx.x; i < bytes; i += blockDim.x) out[i] = box[i];
}

__global__ void load_3d(const __grid_constant__ CUtensorMap map, int x, int y, int z,
                        unsigned bytes, unsigned char* out) {
  __shared__ alignas(1024) unsigned char box[kSmemBytes];
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) {
    bar_init(&bar, 1);
    bar_expect(&bar, bytes);
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(smem_addr(box)),
        "l"(&map), "r"(x), "r"(y), "r"(z), "r"(smem_addr(&bar))
        : "memory");
  }
  __syncthreads();
  bar_wait(&bar, 0);
  for (unsigned i = threadIdx.x; i < bytes; i += blockDim.x) out[i] = box[i];
}

// Fills the shared box from `in` (its raw bytes), then stores (reduce = 0) or add-reduces
// (reduce = 1) it into the tensor at (x, y).
__global__ void store_2d(const __grid_constant__ CUtensorMap map, int x, int y, unsigned bytes,
                         const unsigned char* in, int reduce) {
  __shared__ alignas(1024) unsigned char box[kSmemBytes];
  for (unsigned i = threadIdx.x; i < bytes; i += blockDim.x) box[i] = in[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    if (reduce)
      asm volatile(
          "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"
          " [%0, {%1, %2}], [%3];" ::"l"(&map),
          "r"(x), "r"(y), "r"(smem_addr(box))
          : "memory");
    else
      asm volatile(
          "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"
          " [%0, {%1, %2}], [%3];" ::"l"(&map),
          "r"(x), "r"(y), "r"(smem_addr(box))
          : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
  __syncthreads();
}

// An im2col load of rank 4 ({C, W, H, N}) at (c, w, h, n) with offsets (ow, oh).
__global__ void load_im2col(const __grid_constant__ CUtensorMap map, int c, int w, int h, int n,
                            unsigned short ow, unsigned short oh, unsigned bytes,
                            unsigned char* out) {
  __shared__ alignas(1024) unsigned char box[kSmemBytes];
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) {
    bar_init(&bar, 1);
    bar_expect(&bar, bytes);
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};" ::"r"(smem_addr(box)),
        "l"(&map), "r"(c), "r"(w), "r"(h), "r"(n), "r"(smem_addr(&bar)), "h"(ow), "h"(oh)
        : "memory");
  }
  __syncthreads();
  bar_wait(&bar, 0);
  for (unsigned i = threadIdx.x; i < bytes; i += blockDim.x) out[i] = box[i];
}

// Plain bulk copies: global -> shared (mbarrier), shared -> global, then a bulk min-reduction of
// the same shared bytes into `red`.
__global__ void bulk_round_trip(const int* in, int* out, int* red, unsigned bytes) {
  __shared__ alignas(128) int buf[1024];
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) {
    bar_init(&bar, 1);
    bar_expect(&bar, bytes);
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
        "[%3];" ::"r"(smem_addr(buf)),
        "l"(in), "r"(bytes), "r"(smem_addr(&bar))
        : "memory");
  }
  __syncthreads();
  bar_wait(&bar, 0);
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(out),
                 "r"(smem_addr(buf)), "r"(bytes)
                 : "memory");
    asm volatile(
        "cp.reduce.async.bulk.global.shared::cta.bulk_group.min.s32 [%0], [%1], %2;" ::"l"(red),
        "r"(smem_addr(buf)), "r"(bytes)
        : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

// The shared-memory byte offset of unswizzled byte `o` (the hardware's pattern: the 16-byte chunk
// index, address bits 4.., is XORed with the 128-byte row index, bits 7..; one bit for 32B
// swizzle, two for 64B, three for 128B). The box starts 1024-byte aligned, so offsets are
// addresses modulo the pattern.
unsigned swizzle(int mode, unsigned o) {
  const unsigned bits = mode == 1 ? 1 : mode == 2 ? 2 : mode == 3 ? 3 : 0;
  const unsigned mask = ((1u << bits) - 1) << 4;
  return o ^ ((o >> 3) & mask);
}

bool is_nan_bits(uint32_t v) {
  return (v & 0x7f800000u) == 0x7f800000u && (v & 0x7fffffu) != 0;
}

}  // namespace

int main() {
  EncodeTiled encode_tiled = nullptr;
  EncodeIm2col encode_im2col = nullptr;
  ReplaceAddress replace_address = nullptr;
  cudaDriverEntryPointQueryResult q;
  CUDA_OK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled",
                                           reinterpret_cast<void**>(&encode_tiled), 12000,
                                           cudaEnableDefault, &q));
  CHECK(q == cudaDriverEntryPointSuccess && encode_tiled);
  CUDA_OK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeIm2col",
                                           reinterpret_cast<void**>(&encode_im2col), 12000,
                                           cudaEnableDefault, &q));
  CHECK(q == cudaDriverEntryPointSuccess && encode_im2col);
  CUDA_OK(cudaGetDriverEntryPointByVersion("cuTensorMapReplaceAddress",
                                           reinterpret_cast<void**>(&replace_address), 12000,
                                           cudaEnableDefault, &q));
  CHECK(q == cudaDriverEntryPointSuccess && replace_address);
  int attr = 0;
  CUDA_OK(cudaDeviceGetAttribute(&attr, static_cast<cudaDeviceAttr>(127), 0));
  CHECK(attr == 1);  // cudaDevAttrTensorMapAccessSupported (sm_90)

  // A 2D float tensor of W = 48 by H = 40, row pitch 48 * 4 = 192 bytes; element (r, c) = r*1000+c.
  constexpr int W = 48, H = 40;
  std::vector<float> host(W * H);
  for (int r = 0; r < H; ++r)
    for (int c = 0; c < W; ++c) host[r * W + c] = static_cast<float>(r * 1000 + c);
  float* tensor = nullptr;
  CUDA_OK(cudaMalloc(&tensor, host.size() * sizeof(float)));
  CUDA_OK(cudaMemcpy(tensor, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice));
  unsigned char* out = nullptr;
  CUDA_OK(cudaMalloc(&out, kSmemBytes));
  std::vector<unsigned char> got(kSmemBytes);

  const cuuint64_t dims2[2] = {W, H};
  const cuuint64_t strides2[1] = {W * sizeof(float)};
  const cuuint32_t ones[5] = {1, 1, 1, 1, 1};
  alignas(64) CUtensorMap map;

  // --- Driver argument checks: each breaks one documented rule.
  {
    const cuuint32_t box[2] = {16, 8};
    auto tiled = [&](CUtensorMap* m, CUtensorMapDataType t, cuuint32_t rank, void* a,
                     const cuuint64_t* s, const cuuint32_t* b, const cuuint32_t* es,
                     CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                     CUtensorMapFloatOOBfill fill) {
      return encode_tiled(m, t, rank, a, dims2, s, b, es, il, sw,
                          CU_TENSOR_MAP_L2_PROMOTION_L2_128B, fill);
    };
    const auto F32 = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    const auto NONE = CU_TENSOR_MAP_INTERLEAVE_NONE;
    const auto SW0 = CU_TENSOR_MAP_SWIZZLE_NONE;
    const auto ZERO = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
    CHECK(tiled(&map, F32, 2, tensor, strides2, box, ones, NONE, SW0, ZERO) == CUDA_SUCCESS);
    CHECK(tiled(&map, F32, 0, tensor, strides2, box, ones, NONE, SW0, ZERO) ==
          CUDA_ERROR_INVALID_VALUE);  // rank 0
    CHECK(tiled(&map, F32, 6, tensor, strides2, box, ones, NONE, SW0, ZERO) ==
          CUDA_ERROR_INVALID_VALUE);  // rank above 5
    CHECK(tiled(&map, F32, 2, reinterpret_cast<char*>(tensor) + 8, strides2, box, ones, NONE, SW0,
                ZERO) == CUDA_ERROR_INVALID_VALUE);  // address not 16-byte aligned
    const cuuint64_t odd_stride[1] = {200};
    CHECK(tiled(&map, F32, 2, tensor, odd_stride, box, ones, NONE, SW0, ZERO) ==
          CUDA_ERROR_INVALID_VALUE);  // stride not a multiple of 16
    const cuuint32_t box_zero[2] = {16, 0}, box_big[2] = {16, 257}, box_narrow[2] = {2, 8};
    CHECK(tiled(&map, F32, 2, tensor, strides2, box_zero, ones, NONE, SW0, ZERO) ==
          CUDA_ERROR_INVALID_VALUE);  // box dimension 0
    CHECK(tiled(&map, F32, 2, tensor, strides2, box_big, ones, NONE, SW0, ZERO) ==
          CUDA_ERROR_INVALID_VALUE);  // box dimension above 256
    CHECK(tiled(&map, F32, 2, tensor, strides2, box_narrow, ones, NONE, SW0, ZERO) ==
          CUDA_ERROR_INVALID_VALUE);         // inner box 8 bytes, not a multiple of 16
    const cuuint32_t box_wide[2] = {64, 8};  // 256 bytes, more than the 128B swizzle span
    CHECK(tiled(&map, F32, 2, tensor, strides2, box_wide, ones, NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                ZERO) == CUDA_ERROR_INVALID_VALUE);
    CHECK(tiled(&map, F32, 2, tensor, strides2, box, ones, NONE, CU_TENSOR_MAP_SWIZZLE_32B, ZERO) ==
          CUDA_ERROR_INVALID_VALUE);  // 64-byte inner box with the 32B swizzle
    const cuuint32_t es_nine[2] = {1, 9};
    CHECK(tiled(&map, F32, 2, tensor, strides2, box, es_nine, NONE, SW0, ZERO) ==
          CUDA_ERROR_INVALID_VALUE);  // element stride above 8
    CHECK(tiled(&map, CU_TENSOR_MAP_DATA_TYPE_INT32, 2, tensor, strides2, box, ones, NONE, SW0,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA) ==
          CUDA_ERROR_INVALID_VALUE);  // NaN fill of an integer type
    CHECK(tiled(&map, F32, 2, tensor, strides2, box, ones, CU_TENSOR_MAP_INTERLEAVE_16B, SW0,
                ZERO) == CUDA_ERROR_INVALID_VALUE);  // interleave needs rank 3 or more
    CHECK(tiled(reinterpret_cast<CUtensorMap*>(reinterpret_cast<char*>(&map) + 16), F32, 2, tensor,
                strides2, box, ones, NONE, SW0,
                ZERO) == CUDA_ERROR_INVALID_VALUE);  // the map itself not 64-byte aligned
    const cuuint64_t dims3[3] = {8, 5, 2};
    const cuuint64_t strides3[2] = {32, 160};
    const int lo[1] = {0}, hi[1] = {0}, far[2] = {-200, 0}, zero2[2] = {0, 0};
    CHECK(encode_im2col(&map, F32, 2, tensor, dims3, strides3, lo, hi, 8, 4, ones, NONE, SW0,
                        CU_TENSOR_MAP_L2_PROMOTION_NONE,
                        ZERO) == CUDA_ERROR_INVALID_VALUE);  // im2col takes rank 3 to 5
    const cuuint64_t dims4[4] = {8, 5, 5, 2};
    const cuuint64_t strides4[3] = {32, 160, 800};
    CHECK(encode_im2col(&map, F32, 4, tensor, dims4, strides4, far, zero2, 8, 4, ones, NONE, SW0,
                        CU_TENSOR_MAP_L2_PROMOTION_NONE,
                        ZERO) == CUDA_ERROR_INVALID_VALUE);  // rank 4 corners lie in [-128, 127]
    CHECK(encode_im2col(&map, F32, 4, tensor, dims4, strides4, zero2, zero2, 0, 4, ones, NONE, SW0,
                        CU_TENSOR_MAP_L2_PROMOTION_NONE,
                        ZERO) == CUDA_ERROR_INVALID_VALUE);  // channelsPerPixel 0
    CHECK(encode_im2col(&map, F32, 4, tensor, dims4, strides4, zero2, zero2, 8, 1025, ones, NONE,
                        SW0, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                        ZERO) == CUDA_ERROR_INVALID_VALUE);  // pixelsPerColumn above 1024
    alignas(64) CUtensorMap garbage;
    std::memset(&garbage, 0x5a, sizeof garbage);
    CHECK(replace_address(&garbage, tensor) == CUDA_ERROR_INVALID_VALUE);
  }

  // --- 2D tiled loads: each swizzle mode, boxes inside, across the far corner and before the
  // origin, zero and NaN fill. Reference: box element (r, c) is tensor (y + r, x + c) when
  // 0 <= x + c < W and 0 <= y + r < H, else the fill; it sits at unswizzled byte
  // (r * box_w + c) * 4 and at swizzle(that) in shared memory.
  struct Case {
    CUtensorMapSwizzle swizzle;
    unsigned box_w, box_h;
    int x, y;
    CUtensorMapFloatOOBfill fill;
  };
  const Case cases[] = {
      {CU_TENSOR_MAP_SWIZZLE_NONE, 16, 8, 4, 3, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE},
      {CU_TENSOR_MAP_SWIZZLE_32B, 8, 16, 40, 30, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE},
      {CU_TENSOR_MAP_SWIZZLE_64B, 16, 16, -4, -2, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE},
      {CU_TENSOR_MAP_SWIZZLE_128B, 32, 16, 24, 28, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE},
      {CU_TENSOR_MAP_SWIZZLE_128B, 32, 8, 1, 0, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE},
      {CU_TENSOR_MAP_SWIZZLE_128B, 32, 16, 30, 35,
       CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA},
  };
  for (const Case& k : cases) {
    const cuuint32_t box[2] = {k.box_w, k.box_h};
    CHECK(encode_tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, tensor, dims2, strides2, box, ones,
                       CU_TENSOR_MAP_INTERLEAVE_NONE, k.swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                       k.fill) == CUDA_SUCCESS);
    const unsigned bytes = k.box_w * k.box_h * 4;
    CUDA_OK(cudaMemset(out, 0xee, kSmemBytes));
    load_2d<<<1, 128>>>(map, k.x, k.y, bytes, out);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDeviceToHost));
    for (unsigned r = 0; r < k.box_h; ++r)
      for (unsigned c = 0; c < k.box_w; ++c) {
        const int gx = k.x + static_cast<int>(c), gy = k.y + static_cast<int>(r);
        const bool in = gx >= 0 && gx < W && gy >= 0 && gy < H;
        uint32_t v;
        std::memcpy(&v, got.data() + swizzle(k.swizzle, (r * k.box_w + c) * 4), 4);
        if (in) {
          float f;
          std::memcpy(&f, &v, 4);
          if (f != host[gy * W + gx]) {
            std::printf("swizzle %d box (%d,%d) element (%u,%u): %g, expected %g\n", k.swizzle, k.x,
                        k.y, r, c, f, host[gy * W + gx]);
            CHECK(false);
          }
        } else if (k.fill == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) {
          CHECK(v == 0);
        } else {
          CHECK(is_nan_bits(v));
        }
      }
  }

  // cuTensorMapReplaceAddress: the same map over a second tensor holding the negated values.
  {
    std::vector<float> neg(host.size());
    for (std::size_t i = 0; i < host.size(); ++i) neg[i] = -host[i];
    float* other = nullptr;
    CUDA_OK(cudaMalloc(&other, neg.size() * sizeof(float)));
    CUDA_OK(cudaMemcpy(other, neg.data(), neg.size() * sizeof(float), cudaMemcpyHostToDevice));
    const cuuint32_t box[2] = {16, 4};
    CHECK(encode_tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, tensor, dims2, strides2, box, ones,
                       CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                       CU_TENSOR_MAP_L2_PROMOTION_NONE,
                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS);
    CHECK(replace_address(&map, reinterpret_cast<char*>(other) + 8) == CUDA_ERROR_INVALID_VALUE);
    CHECK(replace_address(&map, other) == CUDA_SUCCESS);
    load_2d<<<1, 64>>>(map, 16, 2, 16 * 4 * 4, out);
    CUDA_OK(cudaMemcpy(got.data(), out, 256, cudaMemcpyDeviceToHost));
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 16; ++c) {
        float f;
        std::memcpy(&f, got.data() + (r * 16 + c) * 4, 4);
        CHECK(f == -host[(2 + r) * W + 16 + c]);
      }
    CUDA_OK(cudaFree(other));
  }

  // --- 3D tiled load with an element stride of 2 along H: a {8, 4, 2} box at (x, y, z) = (4, 2, 3)
  // of a D = 4, H = 6, W = 16 tensor reads rows y, y + 2 (ceil(4 / 2) = 2 rows) of planes z and
  // z + 1; plane 4 is past the end and reads zeros. Element (z, y, x) = z * 10000 + y * 100 + x.
  {
    constexpr int X = 16, Y = 6, Z = 4;
    std::vector<float> t3(X * Y * Z);
    for (int z = 0; z < Z; ++z)
      for (int y = 0; y < Y; ++y)
        for (int x = 0; x < X; ++x)
          t3[(z * Y + y) * X + x] = static_cast<float>(z * 10000 + y * 100 + x);
    float* d3 = nullptr;
    CUDA_OK(cudaMalloc(&d3, t3.size() * sizeof(float)));
    CUDA_OK(cudaMemcpy(d3, t3.data(), t3.size() * sizeof(float), cudaMemcpyHostToDevice));
    const cuuint64_t dims3[3] = {X, Y, Z};
    const cuuint64_t strides3[2] = {X * 4, X * Y * 4};
    const cuuint32_t box[3] = {8, 4, 2};
    const cuuint32_t es[3] = {1, 2, 1};
    CHECK(encode_tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, d3, dims3, strides3, box, es,
                       CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_32B,
                       CU_TENSOR_MAP_L2_PROMOTION_NONE,
                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS);
    const unsigned bytes = 8 * 2 * 2 * 4;  // 128
    load_3d<<<1, 64>>>(map, 4, 2, 3, bytes, out);
    CUDA_OK(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDeviceToHost));
    for (int pz = 0; pz < 2; ++pz)
      for (int py = 0; py < 2; ++py)
        for (int px = 0; px < 8; ++px) {
          const int z = 3 + pz, y = 2 + 2 * py, x = 4 + px;
          const float want = z < Z ? t3[(z * Y + y) * X + x] : 0.0f;
          float f;
          std::memcpy(&f, got.data() + swizzle(1, ((pz * 2 + py) * 8 + px) * 4), 4);
          CHECK(f == want);
        }
    CUDA_OK(cudaFree(d3));
  }

  // --- Store and add-reduction of a 2D int32 box {16, 8} with 64B swizzle at (40, 36) of a
  // W = 48, H = 40 int tensor: only the 8 x 4 elements inside the tensor change. The shared box
  // is given in its swizzled image: box element (r, c) = 7 * r + c at swizzle((r * 16 + c) * 4).
  {
    std::vector<int> g(W * H);
    for (int i = 0; i < W * H; ++i) g[i] = 3 * i;
    int* dg = nullptr;
    CUDA_OK(cudaMalloc(&dg, g.size() * sizeof(int)));
    CUDA_OK(cudaMemcpy(dg, g.data(), g.size() * sizeof(int), cudaMemcpyHostToDevice));
    std::vector<unsigned char> image(16 * 8 * 4);
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 16; ++c) {
        const int v = 7 * r + c;
        std::memcpy(image.data() + swizzle(2, (r * 16 + c) * 4), &v, 4);
      }
    unsigned char* din = nullptr;
    CUDA_OK(cudaMalloc(&din, image.size()));
    CUDA_OK(cudaMemcpy(din, image.data(), image.size(), cudaMemcpyHostToDevice));
    const cuuint32_t box[2] = {16, 8};
    CHECK(encode_tiled(&map, CU_TENSOR_MAP_DATA_TYPE_INT32, 2, dg, dims2, strides2, box, ones,
                       CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_64B,
                       CU_TENSOR_MAP_L2_PROMOTION_NONE,
                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS);
    for (int reduce = 0; reduce < 2; ++reduce) {
      store_2d<<<1, 128>>>(map, 40, 36, static_cast<unsigned>(image.size()), din, reduce);
      CUDA_OK(cudaGetLastError());
      std::vector<int> after(g.size());
      CUDA_OK(cudaMemcpy(after.data(), dg, after.size() * sizeof(int), cudaMemcpyDeviceToHost));
      for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
          const bool in_box = x >= 40 && y >= 36;  // x < 56 and y < 44 hold for every element
          const int boxed = 7 * (y - 36) + (x - 40);
          // The store writes the box value; the reduction then adds it once more.
          const int want = in_box ? (reduce ? 2 * boxed : boxed) : 3 * (y * W + x);
          if (after[y * W + x] != want) {
            std::printf("%s at (%d, %d): %d, expected %d\n", reduce ? "reduce" : "store", y, x,
                        after[y * W + x], want);
            CHECK(false);
          }
        }
    }
    CUDA_OK(cudaFree(dg));
    CUDA_OK(cudaFree(din));
  }

  // --- Plain bulk copies: 512 bytes in and out, and min(red[i], in[i]) for red[i] = 60 - i.
  {
    constexpr int N = 128;
    std::vector<int> in(N), red(N);
    for (int i = 0; i < N; ++i) in[i] = i * i - 40 * i, red[i] = 60 - i;
    int *din = nullptr, *dout = nullptr, *dred = nullptr;
    CUDA_OK(cudaMalloc(&din, N * 4));
    CUDA_OK(cudaMalloc(&dout, N * 4));
    CUDA_OK(cudaMalloc(&dred, N * 4));
    CUDA_OK(cudaMemcpy(din, in.data(), N * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dred, red.data(), N * 4, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(dout, 0, N * 4));
    bulk_round_trip<<<1, 32>>>(din, dout, dred, N * 4);
    CUDA_OK(cudaGetLastError());
    std::vector<int> o(N), rd(N);
    CUDA_OK(cudaMemcpy(o.data(), dout, N * 4, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(rd.data(), dred, N * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; ++i) {
      CHECK(o[i] == in[i]);
      CHECK(rd[i] == (in[i] < red[i] ? in[i] : red[i]));
    }
    CUDA_OK(cudaFree(din));
    CUDA_OK(cudaFree(dout));
    CUDA_OK(cudaFree(dred));
  }

  // --- im2col on an NHWC float tensor N = 2, H = 5, W = 5, C = 8 (element (n, h, w, c) =
  // n * 1000 + h * 100 + w * 10 + c), 3x3 filter with padding 1: the base pixels run over
  // w, h in [lower, dim - 1 + upper] = [-1, 3], W fastest, then H, then N. 16 pixels from base
  // (w, h, n) = (-1, -1, 0) with the filter offset (ow, oh) = (1, 2): pixel p reads
  // (n, h + 2, w + 1, c) for its base (w, h, n), zeros outside the tensor.
  {
    constexpr int N = 2, Hh = 5, Ww = 5, C = 8;
    std::vector<float> t(N * Hh * Ww * C);
    for (int n = 0; n < N; ++n)
      for (int h = 0; h < Hh; ++h)
        for (int w = 0; w < Ww; ++w)
          for (int c = 0; c < C; ++c)
            t[((n * Hh + h) * Ww + w) * C + c] =
                static_cast<float>(n * 1000 + h * 100 + w * 10 + c);
    float* dt = nullptr;
    CUDA_OK(cudaMalloc(&dt, t.size() * sizeof(float)));
    CUDA_OK(cudaMemcpy(dt, t.data(), t.size() * sizeof(float), cudaMemcpyHostToDevice));
    const cuuint64_t dims4[4] = {C, Ww, Hh, N};
    const cuuint64_t strides4[3] = {C * 4, Ww * C * 4, Hh * Ww * C * 4};
    const int lower[2] = {-1, -1}, upper[2] = {-1, -1};
    constexpr unsigned kPixels = 16;
    CHECK(encode_im2col(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, dt, dims4, strides4, lower, upper,
                        C, kPixels, ones, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                        CU_TENSOR_MAP_L2_PROMOTION_NONE,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS);
    const unsigned bytes = kPixels * C * 4;
    load_im2col<<<1, 128>>>(map, 0, -1, -1, 0, 1, 2, bytes, out);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(got.data(), out, bytes, cudaMemcpyDeviceToHost));
    int w = -1, h = -1, n = 0;
    for (unsigned p = 0; p < kPixels; ++p) {
      for (int c = 0; c < C; ++c) {
        const int rw = w + 1, rh = h + 2;
        const bool in = rw >= 0 && rw < Ww && rh >= 0 && rh < Hh && n < N;
        const float want = in ? t[((n * Hh + rh) * Ww + rw) * C + c] : 0.0f;
        float f;
        std::memcpy(&f, got.data() + (p * C + c) * 4, 4);
        if (f != want) {
          std::printf("im2col pixel %u (base w %d h %d n %d) channel %d: %g, expected %g\n", p, w,
                      h, n, c, f, want);
          CHECK(false);
        }
      }
      if (++w > Ww - 1 - 1) {
        w = -1;
        if (++h > Hh - 1 - 1) h = -1, ++n;
      }
    }
    CUDA_OK(cudaFree(dt));
  }

  CUDA_OK(cudaFree(tensor));
  CUDA_OK(cudaFree(out));
  std::printf("PASS\n");
  return 0;
}
