// Memory spaces and atomics: shared (static and dynamic), constant, global
// variables, vector accesses, generic pointers, cp.async, atomics, barriers.
#include <cuda_pipeline.h>

__constant__ int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
__device__ int counter = 1000;
__device__ float scale_factor = 0.5f;

extern "C" __global__ void block_reverse(const int* in, int* out) {
  __shared__ int tile[256];
  extern __shared__ int dyn[];
  int t = threadIdx.x;
  tile[t] = in[blockIdx.x * blockDim.x + t];
  dyn[t] = tile[t] * 2;
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] =
      tile[blockDim.x - 1 - t] + dyn[(t + 1) % blockDim.x] + table[t & 7];
}

extern "C" __global__ void atomics(int* ints, unsigned* uints, float* floats, double* doubles,
                                   unsigned long long* wide) {
  __shared__ int shared_sum;
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  if (threadIdx.x == 0) shared_sum = 0;
  __syncthreads();
  atomicAdd(&shared_sum, t);
  atomicAdd(&ints[0], 1);
  atomicMax(&ints[1], t * 7 % 101);
  atomicMin(&ints[2], -(t * 13 % 97));
  atomicAnd(&ints[3], ~(1 << (t % 31)));
  atomicOr(&ints[4], 1 << (t % 29));
  atomicXor(&ints[5], t);
  atomicInc(&uints[0], 17u);
  atomicDec(&uints[1], 9u);
  atomicCAS(&ints[6], t - 1, t);  // only succeeds in order: counts a chain
  atomicExch(&ints[7], 42);
  atomicAdd(&floats[0], 0.25f);
  atomicAdd(&doubles[0], 0.125);
  atomicAdd(&wide[0], 1ull << 33);
  atomicAdd(&counter, 1);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(&ints[8], shared_sum);
}

extern "C" __global__ void vectors(const float4* in, float4* out, const double2* din,
                                   double2* dout) {
  int t = threadIdx.x;
  float4 v = __ldg(&in[t]);
  out[t] = make_float4(v.w * scale_factor, v.z, v.y, v.x + table[t & 7]);
  double2 d = din[t];
  dout[t] = make_double2(d.y, d.x);
}

__device__ __noinline__ int through_generic(int* p, int v) {
  *p += v;  // p may point to shared, local or global memory
  return __isShared(p) * 1 + __isLocal(p) * 2 + __isGlobal(p) * 4;
}

extern "C" __global__ void generic(int* g, int* kinds) {
  __shared__ int s[32];
  int l[4] = {0, 0, 0, 0};
  int t = threadIdx.x;
  s[t] = t;
  g[t] = 10 * t;
  l[t & 3] = 100 * t;
  int a = through_generic(&s[t], 1);
  int b = through_generic(&l[t & 3], 2);
  int c = through_generic(&g[t], 3);
  kinds[t * 4 + 0] = a;
  kinds[t * 4 + 1] = b;
  kinds[t * 4 + 2] = c;
  kinds[t * 4 + 3] = s[t] + l[t & 3] + g[t];
}

// cp.async into shared memory, then a barrier and a read back.
extern "C" __global__ void async_copy(const int4* in, int4* out) {
  __shared__ int4 stage[64];
  int t = threadIdx.x;
  __pipeline_memcpy_async(&stage[t], &in[t], sizeof(int4));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  out[t] = stage[63 - t];
}

// __syncthreads_count / _and / _or: bar.red.
extern "C" __global__ void votes(const int* in, int* out) {
  int v = in[threadIdx.x];
  int c = __syncthreads_count(v > 10);
  int a = __syncthreads_and(v > 0);
  int o = __syncthreads_or(v > 90);
  if (threadIdx.x == 0) {
    out[0] = c;
    out[1] = a;
    out[2] = o;
  }
}

// libcu++'s block barrier (mbarrier on sm_90) with memcpy_async completing on it.
#include <cooperative_groups.h>
#include <cuda/barrier>
namespace cg = cooperative_groups;

extern "C" __global__ void split_barrier(const int* in, int* out, int rounds) {
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int s[256];
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  __syncthreads();
  cuda::memcpy_async(block, s, in, sizeof(int) * 256, bar);
  bar.arrive_and_wait();
  int acc = s[255 - threadIdx.x];
  bar.arrive_and_wait();  // everyone has read before anyone overwrites
  for (int r = 0; r < rounds; ++r) {  // several phases: each waits for every warp's arrival
    s[threadIdx.x] = acc + r;
    bar.arrive_and_wait();
    acc = s[(threadIdx.x + 32) % 256];
    bar.arrive_and_wait();
  }
  out[threadIdx.x] = acc;
}

// Thread-block clusters of one CTA: cluster.sync (barrier.cluster.arrive/wait),
// map_shared_rank (mapa), cluster special registers.
extern "C" __global__ void __cluster_dims__(1, 1, 1) cluster_one(int* out) {
  __shared__ int s[64];
  cg::cluster_group cluster = cg::this_cluster();
  s[threadIdx.x] = threadIdx.x * 3;
  cluster.sync();
  int* peer = cluster.map_shared_rank(s, 0);
  out[threadIdx.x] = peer[(threadIdx.x + 1) % 64] + static_cast<int>(cluster.block_rank()) * 1000 +
                     static_cast<int>(cluster.num_blocks()) * 100000 + static_cast<int>(cluster.dim_blocks().x) * 10;
  cluster.sync();
}

// A cluster of four CTAs: each reads its neighbour's shared memory (DSMEM)
// between cluster barriers, and arrives on rank 0's mbarrier-free counter.
extern "C" __global__ void __cluster_dims__(4, 1, 1) cluster_ring(int* out) {
  __shared__ int s[32];
  __shared__ int hits;
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank();
  s[threadIdx.x] = static_cast<int>(rank * 100 + threadIdx.x);
  if (threadIdx.x == 0) hits = 0;
  cluster.sync();
  const unsigned next = (rank + 1) % cluster.num_blocks();
  int* peer = cluster.map_shared_rank(s, next);
  int* rank0_hits = cluster.map_shared_rank(&hits, 0);
  atomicAdd(rank0_hits, 1);
  const int v = peer[(threadIdx.x + 1) % 32];
  cluster.sync();  // nobody leaves while a neighbour may still read its shared memory
  out[blockIdx.x * 32 + threadIdx.x] = v + (rank == 0 ? hits * 10000 : 0) +
                                       static_cast<int>(cluster.query_shared_rank(peer)) * 1000000;
}
