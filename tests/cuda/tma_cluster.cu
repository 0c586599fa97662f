// A thread-block cluster of 4 CTAs (__cluster_dims__) where rank 0 multicasts one 2D tile to the
// CTAs of a CTA mask with cp.async.bulk.tensor ... .multicast::cluster, each receiving CTA's
// mbarrier completing the tile's bytes; then every CTA reads its own copy and, through
// distributed shared memory (mapa + ld.shared::cluster), its right neighbour's. A second launch
// multicasts to ranks 0 and 2 only, with a plain cp.async.bulk multicast of a 256-byte vector.
#include <cuda.h>
#include <cuda_runtime.h>

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

constexpr int kCluster = 4;
constexpr int kTileW = 16, kTileH = 8;  // floats: 64-byte rows, 512 bytes
constexpr unsigned kTileBytes = kTileW * kTileH * 4;
constexpr unsigned kVecBytes = 256;

__device__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

__device__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::
                   : "memory");
}

__device__ float remote_load(const float* local, unsigned rank) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(remote)
               : "r"(smem_addr(local)), "r"(rank));
  float v;
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
  return v;
}

// out[cta][0 .. kTileW*kTileH) = own tile, out[cta][kTileW*kTileH ..) = the right neighbour's,
// then 64 floats of the multicast vector (own copy).
__global__ void __cluster_dims__(kCluster, 1, 1)
    multicast(const __grid_constant__ CUtensorMap map, const float* vec, unsigned short mask, int x,
              int y, float* out) {
  __shared__ alignas(1024) float tile[kTileW * kTileH];
  __shared__ alignas(128) float v[kVecBytes / 4];
  __shared__ alignas(8) uint64_t bar;
  const unsigned rank = cluster_rank();
  const bool receives = (mask >> rank) & 1;
  for (unsigned i = threadIdx.x; i < kTileW * kTileH; i += blockDim.x) tile[i] = -1.0f;
  for (unsigned i = threadIdx.x; i < kVecBytes / 4; i += blockDim.x) v[i] = -1.0f;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar)));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    // Each receiving CTA expects both copies' bytes on its own mbarrier.
    if (receives)
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&bar)),
                   "r"(kTileBytes + kVecBytes)
                   : "memory");
  }
  cluster_sync();  // every mbarrier is initialised before rank 0 issues
  if (rank == 0 && threadIdx.x == 0) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
        ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem_addr(tile)),
        "l"(&map), "r"(x), "r"(y), "r"(smem_addr(&bar)), "h"(mask)
        : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
        " [%0], [%1], %2, [%3], %4;" ::"r"(smem_addr(v)),
        "l"(vec), "r"(kVecBytes), "r"(smem_addr(&bar)), "h"(mask)
        : "memory");
  }
  if (receives) {
    asm volatile(
        "{\n .reg .pred p;\n"
        "WAIT_%=:\n"
        " mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
        " @!p bra WAIT_%=;\n}" ::"r"(smem_addr(&bar))
        : "memory");
  }
  cluster_sync();  // every receiving CTA has its copy before any neighbour reads it
  float* mine = out + blockIdx.x * (2 * kTileW * kTileH + kVecBytes / 4);
  const unsigned right = (rank + 1) % kCluster;
  for (unsigned i = threadIdx.x; i < kTileW * kTileH; i += blockDim.x) {
    mine[i] = tile[i];
    mine[kTileW * kTileH + i] = remote_load(&tile[i], right);
  }
  for (unsigned i = threadIdx.x; i < kVecBytes / 4; i += blockDim.x)
    mine[2 * kTileW * kTileH + i] = v[i];
  cluster_sync();  // neighbours' shared memory stays alive until all reads are done
}

// Clusters given at launch: each CTA publishes its rank in shared memory and reads the rank its
// right neighbour published, through DSMEM.
__global__ void neighbour_ranks(unsigned* out) {
  __shared__ float mine;
  const unsigned rank = cluster_rank();
  unsigned size;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
  if (threadIdx.x == 0) mine = static_cast<float>(rank);
  cluster_sync();
  if (threadIdx.x == 0)
    out[blockIdx.x] = static_cast<unsigned>(remote_load(&mine, (rank + 1) % size)) * 100 + size;
  cluster_sync();
}

cudaError_t launch_clustered(unsigned ctas, unsigned cluster, unsigned* out) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(ctas);
  config.blockDim = dim3(32);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, neighbour_ranks, out);
}

}  // namespace

int main() {
  EncodeTiled encode_tiled = nullptr;
  cudaDriverEntryPointQueryResult q;
  CUDA_OK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled",
                                           reinterpret_cast<void**>(&encode_tiled), 12000,
                                           cudaEnableDefault, &q));
  CHECK(q == cudaDriverEntryPointSuccess && encode_tiled);

  // A 64 x 32 float tensor, element (r, c) = r * 100 + c; the tile is the 16 x 8 box at (x, y).
  constexpr int W = 64, H = 32;
  std::vector<float> host(W * H);
  for (int r = 0; r < H; ++r)
    for (int c = 0; c < W; ++c) host[r * W + c] = static_cast<float>(r * 100 + c);
  float* tensor = nullptr;
  CUDA_OK(cudaMalloc(&tensor, host.size() * 4));
  CUDA_OK(cudaMemcpy(tensor, host.data(), host.size() * 4, cudaMemcpyHostToDevice));
  std::vector<float> vec(kVecBytes / 4);
  for (std::size_t i = 0; i < vec.size(); ++i) vec[i] = 0.5f * static_cast<float>(i) + 7.0f;
  float* dvec = nullptr;
  CUDA_OK(cudaMalloc(&dvec, kVecBytes));
  CUDA_OK(cudaMemcpy(dvec, vec.data(), kVecBytes, cudaMemcpyHostToDevice));

  const cuuint64_t dims[2] = {W, H};
  const cuuint64_t strides[1] = {W * 4};
  const cuuint32_t box[2] = {kTileW, kTileH};
  const cuuint32_t ones[2] = {1, 1};
  alignas(64) CUtensorMap map;
  CHECK(encode_tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, tensor, dims, strides, box, ones,
                     CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                     CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS);

  constexpr int kPerCta = 2 * kTileW * kTileH + kVecBytes / 4;
  constexpr int kClusters = 2;
  float* out = nullptr;
  CUDA_OK(cudaMalloc(&out, kClusters * kCluster * kPerCta * 4));
  std::vector<float> got(kClusters * kCluster * kPerCta);
  const int x = 8, y = 4;
  for (unsigned short mask : {static_cast<unsigned short>(0xf), static_cast<unsigned short>(0x5)}) {
    multicast<<<kClusters * kCluster, 64>>>(map, dvec, mask, x, y, out);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(got.data(), out, got.size() * 4, cudaMemcpyDeviceToHost));
    // Expected: a receiving CTA holds the tile (element (r, c) at r * 16 + c) and the vector;
    // one outside the mask keeps its -1 fill. Each CTA's second half is its right neighbour's
    // first half. Both clusters of the grid behave alike.
    for (int cta = 0; cta < kClusters * kCluster; ++cta) {
      const int rank = cta % kCluster;
      for (int half = 0; half < 2; ++half) {
        const int holder = half == 0 ? rank : (rank + 1) % kCluster;
        const bool has = (mask >> holder) & 1;
        for (int r = 0; r < kTileH; ++r)
          for (int c = 0; c < kTileW; ++c) {
            const float want = has ? host[(y + r) * W + x + c] : -1.0f;
            const float v = got[cta * kPerCta + half * kTileW * kTileH + r * kTileW + c];
            if (v != want) {
              std::printf("mask %#x CTA %d half %d (%d,%d): %g, expected %g\n", mask, cta, half, r,
                          c, v, want);
              CHECK(false);
            }
          }
      }
      for (int i = 0; i < static_cast<int>(kVecBytes / 4); ++i)
        CHECK(got[cta * kPerCta + 2 * kTileW * kTileH + i] ==
              (((mask >> rank) & 1) ? vec[i] : -1.0f));
    }
  }
  // Cluster sizes: 8 CTAs is portable; 16 needs the kernel's non-portable opt-in, and is refused
  // (cudaErrorInvalidClusterSize) without it. CTA i of a cluster of n reports
  // ((i % n + 1) % n) * 100 + n.
  {
    unsigned* dranks = nullptr;
    CUDA_OK(cudaMalloc(&dranks, 32 * sizeof(unsigned)));
    std::vector<unsigned> ranks(32);
    for (unsigned n : {8u, 16u}) {
      if (n == 16) {
        CHECK(launch_clustered(32, 16, dranks) == cudaErrorInvalidClusterSize);
        CHECK(cudaGetLastError() == cudaErrorInvalidClusterSize);
        CUDA_OK(cudaFuncSetAttribute(neighbour_ranks,
                                     cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
      }
      CUDA_OK(launch_clustered(32, n, dranks));
      CUDA_OK(cudaMemcpy(ranks.data(), dranks, 32 * sizeof(unsigned), cudaMemcpyDeviceToHost));
      for (unsigned i = 0; i < 32; ++i) CHECK(ranks[i] == ((i % n + 1) % n) * 100 + n);
    }
    CUDA_OK(cudaFree(dranks));
  }

  CUDA_OK(cudaFree(tensor));
  CUDA_OK(cudaFree(dvec));
  CUDA_OK(cudaFree(out));
  std::printf("PASS\n");
  return 0;
}
