// A GEMM in the CUTLASS 3 style for sm_90a: per CTA a 128 x 128 tile of
// D = A x B (f16 in, f32 out), three warpgroups. Warpgroup 0 is the producer
// (setmaxnreg.dec): one elected thread fills a four-stage shared-memory ring
// with bulk copies (cp.async.bulk, completing on the stage's "full" mbarrier
// with expect_tx; TMA tensor copies would do the same from a tensor map).
// Warpgroups 1 and 2 are consumers (setmaxnreg.inc): each waits for a stage,
// issues four m64n128k16 wgmmas on its 64 rows (descriptors with the 128B
// swizzle, start advancing 32 bytes per k16 step), keeps one wgmma group in
// flight (wait_group 1) and releases the previous stage on its "empty"
// mbarrier. The host packs each 128 x 64 tile of A and of B (as N x K) into
// the 16 KiB the ring holds, already swizzled: chunk c of row r at chunk
// c ^ (r % 8), as a TMA box load with the 128B swizzle would write it.
// --mma-sync: the same producer and ring, consumed by ldmatrix + mma.sync m16n8k16 warps
// instead (the sm_80 way), for comparison. --cluster: 128 x 256 tiles in 2 x 2 clusters whose
// CTAs share operand halves by TMA multicast (gemm_cluster below; M, N multiples of 256, 512).
// Usage: wgmma_pipeline [M N K] (multiples of 128, 128, 64; default 256 256 256)
// [--mma-sync | --resident | --cluster] [--no-check]. --resident loads only the first four k-tiles
// and cycles over them (D = sum over k of A[:, k mod 256] B[k mod 256, :]): the tensor cores' own
// throughput, without memory traffic. Checks every element against a host GEMM (exact: small
// inputs).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_fp16.h>

#include "check.h"

constexpr int kTileM = 128, kTileN = 128, kTileK = 64, kStages = 4;
constexpr int kTileBytes = kTileM * kTileK * 2;  // 16 KiB: A and B tiles alike
constexpr int kThreads = 384;

__device__ void mma_m64n128k16(float* d, uint64_t a, uint64_t b) {
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, "
      "%9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, "
      "%27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, "
      "%45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, "
      "%63}, %64, %65, 1, 1, 1, 0, 0;\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63])
      : "l"(a), "l"(b));
}

__device__ void mma_m64n256k16(float* d, uint64_t a, uint64_t b) {
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, "
      "%9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, "
      "%27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, "
      "%45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, "
      "%63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, "
      "%81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, "
      "%99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, "
      "%114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, "
      "%129, 1, 1, 1, 0, 0;\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
        "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]),
        "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]),
        "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
        "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]),
        "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
        "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
        "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]),
        "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]),
        "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]),
        "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
        "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
        "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]),
        "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),
        "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
        "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]),
        "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(a), "l"(b));
}

__device__ uint32_t smem_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// 128B-swizzled K-major operand: 8-row groups 1024 bytes apart (stride), leading unused.
__device__ uint64_t descriptor_128b(uint32_t smem) {
  return (uint64_t(smem >> 4) & 0x3fff) | (uint64_t(1) << 16) | (uint64_t(1024 >> 4) << 32) |
         (uint64_t(1) << 62);
}

__device__ void mbar_init(uint64_t* bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_address(bar)), "r"(count));
}
__device__ void mbar_wait(uint64_t* bar, int parity) {
  asm volatile(
      "{\n.reg .pred done;\nwait_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_%=;\n}\n" ::"r"(smem_address(bar)),
      "r"(parity)
      : "memory");
}
__device__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_address(bar)) : "memory");
}
__device__ void mbar_expect_tx(uint64_t* bar, int bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_address(bar)),
               "r"(bytes)
               : "memory");
}
__device__ void bulk_copy(void* dst, const void* src, int bytes, uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::
          "r"(smem_address(dst)),
      "l"(src), "r"(bytes), "r"(smem_address(bar))
      : "memory");
}

struct alignas(1024) Ring {
  unsigned char a[kStages][kTileBytes];
  unsigned char b[kStages][kTileBytes];
  uint64_t full[kStages], empty[kStages];
};

// a_tiles: (M / 128) x (K / 64) packed tiles; b_tiles: (N / 128) x (K / 64).
// resident: only the first kStages k-tiles are loaded and the K loop cycles over them in
// shared memory (no memory traffic after the first stages: the tensor cores' own rate).
__global__ void __launch_bounds__(kThreads)
    gemm(const unsigned char* a_tiles, const unsigned char* b_tiles, float* d, int n, int k,
         bool resident) {
  extern __shared__ unsigned char raw[];
  Ring& ring =
      *reinterpret_cast<Ring*>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
  const int group = threadIdx.x / 128, k_tiles = k / kTileK;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&ring.full[s], 1);
      mbar_init(&ring.empty[s], 256);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  const unsigned char* a = a_tiles + size_t(blockIdx.y) * k_tiles * kTileBytes;
  const unsigned char* b = b_tiles + size_t(blockIdx.x) * k_tiles * kTileBytes;
  if (group == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (threadIdx.x == 0) {
      for (int t = 0; t < (resident ? kStages : k_tiles); ++t) {
        const int s = t % kStages, phase = (t / kStages) & 1;
        mbar_wait(&ring.empty[s], phase ^ 1);  // a fresh barrier passes parity 1 at once
        mbar_expect_tx(&ring.full[s], 2 * kTileBytes);
        bulk_copy(ring.a[s], a + size_t(t) * kTileBytes, kTileBytes, &ring.full[s]);
        bulk_copy(ring.b[s], b + size_t(t) * kTileBytes, kTileBytes, &ring.full[s]);
      }
    }
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
  float acc[64];
  for (int e = 0; e < 64; ++e) acc[e] = 0;
  const uint32_t rows = (group - 1) * 64 * 128;  // this warpgroup's 64 rows of the A tile
  for (int t = 0; t < k_tiles; ++t) {
    const int s = t % kStages;
    if (!resident || t < kStages) mbar_wait(&ring.full[s], (t / kStages) & 1);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    for (int step = 0; step < kTileK / 16; ++step)
      mma_m64n128k16(acc, descriptor_128b(smem_address(ring.a[s]) + rows + 32 * step),
                     descriptor_128b(smem_address(ring.b[s]) + 32 * step));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
    if (t > 0 && !resident) mbar_arrive(&ring.empty[(t - 1) % kStages]);  // its wgmmas are done
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
  const int row0 = blockIdx.y * kTileM + (group - 1) * 64 + 16 * warp + lane / 4;
  for (int e = 0; e < 64; ++e) {
    const int row = row0 + 8 * ((e / 2) % 2),
              col = blockIdx.x * kTileN + 8 * (e / 4) + 2 * (lane % 4) + e % 2;
    d[size_t(row) * n + col] = acc[e];
  }
}

// The same ring, consumed the sm_80 way for comparison: each of the 8 consumer warps
// computes 32 x 64 of the tile with ldmatrix (from the swizzled stage) and mma.sync
// m16n8k16, and releases a stage as soon as its mma.syncs have read it.
__device__ void ldmatrix_x4(uint32_t* r, uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}
__device__ void mma_sync(float* d, const uint32_t* a, const uint32_t* b) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// Byte offset of (row r, 16-byte chunk c) in a 128B-swizzled 128 x 64 tile.
__device__ uint32_t swizzled(int r, int c) {
  return (r / 8) * 1024 + (r % 8) * 128 + ((c ^ (r % 8)) * 16);
}

__global__ void __launch_bounds__(kThreads)
    gemm_mma_sync(const unsigned char* a_tiles, const unsigned char* b_tiles, float* d, int n,
                  int k) {
  extern __shared__ unsigned char raw[];
  Ring& ring =
      *reinterpret_cast<Ring*>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
  const int k_tiles = k / kTileK;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&ring.full[s], 1);
      mbar_init(&ring.empty[s], 256);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x < 128) {
    if (threadIdx.x == 0) {
      const unsigned char* a = a_tiles + size_t(blockIdx.y) * k_tiles * kTileBytes;
      const unsigned char* b = b_tiles + size_t(blockIdx.x) * k_tiles * kTileBytes;
      for (int t = 0; t < k_tiles; ++t) {
        const int s = t % kStages;
        mbar_wait(&ring.empty[s], ((t / kStages) & 1) ^ 1);
        mbar_expect_tx(&ring.full[s], 2 * kTileBytes);
        bulk_copy(ring.a[s], a + size_t(t) * kTileBytes, kTileBytes, &ring.full[s]);
        bulk_copy(ring.b[s], b + size_t(t) * kTileBytes, kTileBytes, &ring.full[s]);
      }
    }
    return;
  }
  const int warp = threadIdx.x / 32 - 4, lane = threadIdx.x % 32;
  const int wm = warp % 4, wn = warp / 4;  // 32 rows x 64 columns of the tile
  float acc[2][8][4] = {};
  for (int t = 0; t < k_tiles; ++t) {
    const int s = t % kStages;
    mbar_wait(&ring.full[s], (t / kStages) & 1);
    const uint32_t a_base = smem_address(ring.a[s]), b_base = smem_address(ring.b[s]);
    for (int step = 0; step < kTileK / 16; ++step) {
      uint32_t af[2][4], bf[4][4];
      for (int i = 0; i < 2; ++i) {
        const int r = 32 * wm + 16 * i + lane % 8 + 8 * ((lane / 8) % 2);
        ldmatrix_x4(af[i], a_base + swizzled(r, 2 * step + lane / 16));
      }
      for (int j = 0; j < 4; ++j) {
        const int r = 64 * wn + 16 * j + lane % 8 + 8 * (lane / 16);
        ldmatrix_x4(bf[j], b_base + swizzled(r, 2 * step + (lane / 8) % 2));
      }
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 8; ++j) mma_sync(acc[i][j], af[i], &bf[j / 2][2 * (j % 2)]);
    }
    mbar_arrive(&ring.empty[s]);
  }
  const int g = lane / 4, q = lane % 4;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 8; ++j)
      for (int e = 0; e < 4; ++e) {
        const int row = blockIdx.y * kTileM + 32 * wm + 16 * i + g + 8 * (e / 2);
        const int col = blockIdx.x * kTileN + 64 * wn + 8 * j + 2 * q + e % 2;
        d[size_t(row) * n + col] = acc[i][j][e];
      }
}

// --cluster: the CUTLASS 3 schedule for H100 (128 x 256 tiles in 2 x 2 clusters, TMA multicast).
// CTA (x, y) of a cluster (rank x + 2y) computes a 128 x 256 tile of D: consumers are two
// warpgroups of m64n256k16 wgmmas. The two CTAs of a cluster row share their A tile, the two of
// a column their B tile: each producer loads one half of each (A: 64 of its 128 rows, B: 128 of
// its 256) and multicasts it to itself and the sharing peer, so every CTA's stage fills from
// four copies while each CTA reads only half of its operands from L2. A stage may be refilled
// only when the three CTAs that write into it (itself and its two peers) have consumed it: each
// consumer warp releases a stage on its own "empty" mbarrier and on both peers' (remote arrives
// through mapa), and each "empty" counts 3 x 8 warps.
constexpr int kClusterTileN = 256;
constexpr int kClusterStageBytes = kTileBytes + 2 * kTileBytes;  // A 16 KiB + B 32 KiB

struct alignas(1024) ClusterRing {
  unsigned char a[kStages][kTileBytes];
  unsigned char b[kStages][2 * kTileBytes];
  uint64_t full[kStages], empty[kStages];
};

__device__ uint32_t peer_address(uint32_t local, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(local), "r"(rank));
  return r;
}
__device__ void mbar_arrive_cluster(uint32_t cluster_address) {
  asm volatile(
      "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];\n" ::"r"(cluster_address)
      : "memory");
}
__device__ void bulk_multicast(void* dst, const void* src, int bytes, uint64_t* bar,
                               uint16_t mask) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], "
      "[%1], %2, [%3], %4;\n" ::"r"(smem_address(dst)),
      "l"(src), "r"(bytes), "r"(smem_address(bar)), "h"(mask)
      : "memory");
}
__device__ void cluster_barrier() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}

__global__ void __cluster_dims__(2, 2, 1) __launch_bounds__(kThreads)
    gemm_cluster(const unsigned char* a_tiles, const unsigned char* b_tiles, float* d, int n,
                 int k) {
  extern __shared__ unsigned char raw[];
  ClusterRing& ring =
      *reinterpret_cast<ClusterRing*>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
  const int group = threadIdx.x / 128, k_tiles = k / kTileK;
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  const uint32_t cx = rank % 2, cy = rank / 2;
  const uint32_t row_peer = (cx ^ 1) + 2 * cy, column_peer = cx + 2 * (cy ^ 1);
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbar_init(&ring.full[s], 1);
      mbar_init(&ring.empty[s], 3 * 8);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  cluster_barrier();  // every CTA's barriers exist before a peer's copy or arrive reaches them
  if (group == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (threadIdx.x == 0) {
      // This CTA's half of the A tile (rows 64 cx..) and of the B tile (packed tile 2 x + cy).
      const unsigned char* a =
          a_tiles + size_t(blockIdx.y) * k_tiles * kTileBytes + cx * (kTileBytes / 2);
      const unsigned char* b = b_tiles + size_t(2 * blockIdx.x + cy) * k_tiles * kTileBytes;
      const uint16_t a_mask = uint16_t(3u << (2 * cy)), b_mask = uint16_t((1u | 4u) << cx);
      for (int t = 0; t < k_tiles; ++t) {
        const int s = t % kStages, phase = (t / kStages) & 1;
        mbar_wait(&ring.empty[s], phase ^ 1);
        mbar_expect_tx(&ring.full[s], kClusterStageBytes);
        bulk_multicast(ring.a[s] + cx * (kTileBytes / 2), a + size_t(t) * kTileBytes,
                       kTileBytes / 2, &ring.full[s], a_mask);
        bulk_multicast(ring.b[s] + cy * kTileBytes, b + size_t(t) * kTileBytes, kTileBytes,
                       &ring.full[s], b_mask);
      }
    }
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    float acc[128];
    for (int e = 0; e < 128; ++e) acc[e] = 0;
    const uint32_t rows = (group - 1) * 64 * 128;
    const bool leader = threadIdx.x % 32 == 0;
    for (int t = 0; t < k_tiles; ++t) {
      const int s = t % kStages;
      mbar_wait(&ring.full[s], (t / kStages) & 1);
      asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
      for (int step = 0; step < kTileK / 16; ++step)
        mma_m64n256k16(acc, descriptor_128b(smem_address(ring.a[s]) + rows + 32 * step),
                       descriptor_128b(smem_address(ring.b[s]) + 32 * step));
      asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
      if (t > 0 && leader) {
        const uint32_t empty = smem_address(&ring.empty[(t - 1) % kStages]);
        for (uint32_t r : {rank, row_peer, column_peer})
          mbar_arrive_cluster(peer_address(empty, r));
      }
    }
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    const int warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;
    const int row0 = blockIdx.y * kTileM + (group - 1) * 64 + 16 * warp + lane / 4;
    for (int e = 0; e < 128; e += 2) {  // elements e, e + 1 are adjacent columns: one 8-byte store
      const int row = row0 + 8 * ((e / 2) % 2),
                col = blockIdx.x * kClusterTileN + 8 * (e / 4) + 2 * (lane % 4);
      *reinterpret_cast<float2*>(&d[size_t(row) * n + col]) = make_float2(acc[e], acc[e + 1]);
    }
  }
  cluster_barrier();  // no CTA leaves while a peer may still write into it or arrive on it
}

static uint16_t f16(float v) {
  const __half h = __float2half(v);
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}
static float value(int r, int c, int salt) {  // small multiples of 1/4: exact sums
  return static_cast<float>(((r * 5 + c * 3 + salt) % 7) - 3) * 0.25f;
}

// Packs rows x K (row-major, leading dimension k) into 128 x 64 swizzled tiles.
static std::vector<unsigned char> pack(int rows, int k, int salt, bool transposed) {
  std::vector<unsigned char> out(size_t(rows) * k * 2);
  const int k_tiles = k / kTileK;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < k; ++c) {
      const float v = transposed ? value(c, r, salt) : value(r, c, salt);
      const int tile = (r / kTileM) * k_tiles + c / kTileK, tr = r % kTileM, kb = 2 * (c % kTileK);
      const size_t off = size_t(tile) * kTileBytes + (tr / 8) * 1024 + (tr % 8) * 128 +
                         (((kb / 16) ^ (tr % 8)) * 16) + kb % 16;
      const uint16_t h = f16(v);
      std::memcpy(&out[off], &h, 2);
    }
  return out;
}

int main(int argc, char** argv) {
  int m = 256, n = 256, k = 256;
  bool check = true, mma_sync_kernel = false, resident = false, cluster = false;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--no-check")
      check = false;
    else if (arg == "--mma-sync")
      mma_sync_kernel = true;
    else if (arg == "--resident")
      resident = true;
    else if (arg == "--cluster")
      cluster = true;
    else
      args.push_back(arg);
  }
  if (args.size() == 3)
    m = std::atoi(args[0].c_str()), n = std::atoi(args[1].c_str()), k = std::atoi(args[2].c_str());
  CHECK(m % kTileM == 0 && n % kTileN == 0 && k % kTileK == 0 && m > 0 && n > 0 && k > 0);
  CHECK(!cluster || (m % (2 * kTileM) == 0 && n % (2 * kClusterTileN) == 0));
  const std::vector<unsigned char> a = pack(m, k, 1, false), b = pack(n, k, 2, true);
  unsigned char *da = nullptr, *db = nullptr;
  float* dd = nullptr;
  CUDA_OK(cudaMalloc(&da, a.size()));
  CUDA_OK(cudaMalloc(&db, b.size()));
  CUDA_OK(cudaMalloc(&dd, size_t(m) * n * sizeof(float)));
  CUDA_OK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(db, b.data(), b.size(), cudaMemcpyHostToDevice));
  const int smem = (cluster ? sizeof(ClusterRing) : sizeof(Ring)) + 1024;
  CHECK(int(resident) + int(mma_sync_kernel) + int(cluster) <= 1);
  CUDA_OK(cudaFuncSetAttribute(gemm_cluster, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CUDA_OK(cudaFuncSetAttribute(gemm, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CUDA_OK(cudaFuncSetAttribute(gemm_mma_sync, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  cudaEvent_t start, stop;
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&stop));
  CUDA_OK(cudaEventRecord(start));
  const dim3 grid(n / (cluster ? kClusterTileN : kTileN), m / kTileM);
  if (cluster)
    gemm_cluster<<<grid, kThreads, smem>>>(da, db, dd, n, k);
  else if (mma_sync_kernel)
    gemm_mma_sync<<<grid, kThreads, smem>>>(da, db, dd, n, k);
  else
    gemm<<<grid, kThreads, smem>>>(da, db, dd, n, k, resident);
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaEventRecord(stop));
  CUDA_OK(cudaEventSynchronize(stop));
  float ms = 0;
  CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
  std::printf("%s GEMM %dx%dx%d: %.6f ms, %.1f TFLOPS\n",
              mma_sync_kernel ? "mma.sync"
              : resident      ? "wgmma (resident operands)"
              : cluster       ? "wgmma (2x2 clusters, TMA multicast)"
                              : "wgmma",
              m, n, k, ms, 2.0 * m * n * k / (ms * 1e-3) / 1e12);
  if (check) {
    std::vector<float> got(size_t(m) * n);
    CUDA_OK(cudaMemcpy(got.data(), dd, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int r = 0; r < m; ++r)
      for (int c = 0; c < n; ++c) {
        double want = 0;
        for (int i = 0; i < k; ++i) {
          const int kk = resident ? i % (kStages * kTileK) : i;  // resident: the first stages
          want += double(value(r, kk, 1)) * value(kk, c, 2);
        }
        if (got[size_t(r) * n + c] != want && ++bad <= 3)
          std::fprintf(stderr, "D[%d][%d] = %g, expected %g\n", r, c, got[size_t(r) * n + c], want);
      }
    CHECK(bad == 0);
  }
  std::printf("PASS\n");
  return 0;
}
