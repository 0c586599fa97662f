// Host threads and kernels working on the same host-visible data at the same
// time, with system-scope atomics, as a heterogeneous graph code does.
//
// 1. Counters: while a kernel adds to a counter in managed memory with
//    atomicAdd_system (int, unsigned long long, float), a host thread adds to
//    the same counter with host atomics until the launch has returned. No
//    update may be lost: the total is the kernel's adds plus the host's.
// 2. SSSP: a frontier-based shortest-path search where, every round, the GPU
//    and two host threads take frontier nodes from one shared head counter and
//    relax their edges with atomicMin on the costs, pushing improved nodes on
//    one shared next-frontier queue; the host threads start once the kernel
//    has begun (it says so through a flag). Costs in managed memory (argument
//    "managed", the default) or mapped pinned memory ("mapped"); checked
//    against a host-only Dijkstra.
//
// The engine runs a kernel on the host thread that launches it; its atomics
// on host memory must be atomic with respect to the program's other threads.
#include <atomic>
#include <cstring>
#include <queue>
#include <thread>
#include <vector>

#include "check.h"

// ---- host atomics on memory the GPU also updates ----
static int host_fetch_min(int* p, int v) {
  int old = __atomic_load_n(p, __ATOMIC_SEQ_CST);
  while (v < old &&
         !__atomic_compare_exchange_n(p, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  return old;
}

static void host_add_float(float* p, float v) {
  unsigned* bits = reinterpret_cast<unsigned*>(p);
  unsigned old = __atomic_load_n(bits, __ATOMIC_SEQ_CST), want;
  do {
    float f;
    std::memcpy(&f, &old, 4);
    f += v;
    std::memcpy(&want, &f, 4);
  } while (
      !__atomic_compare_exchange_n(bits, &old, want, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
}

// ---- 1. counters ----
struct Counters {
  int i32;
  unsigned long long u64;
  float f32;
};

__global__ void add_everywhere(Counters* c, int repeats) {
  for (int k = 0; k < repeats; ++k) {
    atomicAdd_system(&c->i32, 1);
    atomicAdd_system(&c->u64, 1ull << 32 | 1ull);  // carries across the 32-bit halves
    atomicAdd_system(&c->f32, 1.0f);
  }
}

static int counters() {
  Counters* c = nullptr;
  CUDA_OK(cudaMallocManaged(&c, sizeof(Counters)));
  std::memset(c, 0, sizeof *c);
  std::atomic<bool> launched{false};
  long long host_adds = 0;
  std::thread host([&] {
    // Adds until the launch has returned, so that it overlaps the kernel's execution.
    while (!launched.load() && host_adds < (8 << 20)) {
      __atomic_fetch_add(&c->i32, 1, __ATOMIC_SEQ_CST);
      __atomic_fetch_add(&c->u64, 1ull << 32 | 1ull, __ATOMIC_SEQ_CST);
      host_add_float(&c->f32, 1.0f);
      ++host_adds;
    }
  });
  const int blocks = 64, threads = 128, repeats = 256;
  add_everywhere<<<blocks, threads>>>(c, repeats);
  launched = true;
  host.join();
  CUDA_OK(cudaDeviceSynchronize());
  // Every add of 1 is exact in float below 2^24.
  const long long total = static_cast<long long>(blocks) * threads * repeats + host_adds;
  std::printf("counters: %lld kernel adds, %lld host adds\n", total - host_adds, host_adds);
  CHECK(total < (1 << 24));
  CHECK(c->i32 == total);
  CHECK(c->u64 == (static_cast<unsigned long long>(total) << 32 | total));
  CHECK(c->f32 == static_cast<float>(total));
  CUDA_OK(cudaFree(c));
  return 0;
}

// ---- 2. heterogeneous SSSP ----
struct Graph {
  int n = 0;
  int *row = nullptr, *col = nullptr, *weight = nullptr;  // CSR, in managed memory
};

struct Shared {  // what GPU and host share every round
  int head, tail, gpu_started, pad;
};

__device__ void relax_node(const Graph g, int u, int* cost, int* queued, int* next, Shared* s) {
  const int du = atomicAdd_system(&cost[u], 0);
  for (int e = g.row[u]; e < g.row[u + 1]; ++e) {
    const int v = g.col[e], nd = du + g.weight[e];
    if (nd < atomicMin_system(&cost[v], nd) && atomicExch_system(&queued[v], 1) == 0)
      next[atomicAdd_system(&s->tail, 1)] = v;
  }
}

__global__ void relax_gpu(const Graph g, const int* frontier, int size, int* cost, int* queued,
                          int* next, Shared* s) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    __threadfence_system();
    atomicExch_system(&s->gpu_started, 1);
  }
  // Each thread takes nodes from the shared head until the frontier is used up.
  for (int i = atomicAdd_system(&s->head, 1); i < size; i = atomicAdd_system(&s->head, 1))
    relax_node(g, frontier[i], cost, queued, next, s);
}

static void relax_host(const Graph& g, const int* frontier, int size, int* cost, int* queued,
                       int* next, Shared* s) {
  while (!__atomic_load_n(&s->gpu_started, __ATOMIC_SEQ_CST)) std::this_thread::yield();
  for (int i = __atomic_fetch_add(&s->head, 1, __ATOMIC_SEQ_CST); i < size;
       i = __atomic_fetch_add(&s->head, 1, __ATOMIC_SEQ_CST)) {
    const int u = frontier[i];
    const int du = __atomic_load_n(&cost[u], __ATOMIC_SEQ_CST);
    for (int e = g.row[u]; e < g.row[u + 1]; ++e) {
      const int v = g.col[e], nd = du + g.weight[e];
      if (nd < host_fetch_min(&cost[v], nd) &&
          __atomic_exchange_n(&queued[v], 1, __ATOMIC_SEQ_CST) == 0)
        next[__atomic_fetch_add(&s->tail, 1, __ATOMIC_SEQ_CST)] = v;
    }
  }
}

static std::vector<int> dijkstra(const std::vector<int>& row, const std::vector<int>& col,
                                 const std::vector<int>& weight) {
  const int n = static_cast<int>(row.size()) - 1;
  std::vector<int> d(n, 1 << 30);
  using Item = std::pair<int, int>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> q;
  d[0] = 0;
  q.push({0, 0});
  while (!q.empty()) {
    const auto [du, u] = q.top();
    q.pop();
    if (du != d[u]) continue;
    for (int e = row[u]; e < row[u + 1]; ++e)
      if (du + weight[e] < d[col[e]]) q.push({d[col[e]] = du + weight[e], col[e]});
  }
  return d;
}

template <class T>
static T* host_visible(std::size_t count, bool mapped) {
  void* p = nullptr;
  if (mapped) {
    if (cudaHostAlloc(&p, count * sizeof(T), cudaHostAllocMapped) != cudaSuccess) return nullptr;
  } else if (cudaMallocManaged(&p, count * sizeof(T)) != cudaSuccess) {
    return nullptr;
  }
  return static_cast<T*>(p);
}

static int sssp(bool mapped) {
  // A graph of n nodes: a chain 0 -> 1 -> ... (every node reachable) plus
  // pseudo-random edges; weights 1..64 from a fixed linear congruential sequence.
  const int n = 3000, extra = 6;
  std::vector<int> row(n + 1), col, weight;
  unsigned lcg = 12345;
  auto next_random = [&] { return (lcg = lcg * 1103515245u + 12345u) >> 8; };
  for (int u = 0; u < n; ++u) {
    row[u] = static_cast<int>(col.size());
    if (u + 1 < n) col.push_back(u + 1), weight.push_back(64);
    for (int k = 0; k < extra; ++k)
      col.push_back(static_cast<int>(next_random() % n)),
          weight.push_back(static_cast<int>(1 + next_random() % 64));
  }
  row[n] = static_cast<int>(col.size());
  const std::vector<int> want = dijkstra(row, col, weight);

  Graph g;
  g.n = n;
  g.row = host_visible<int>(row.size(), mapped);
  g.col = host_visible<int>(col.size(), mapped);
  g.weight = host_visible<int>(weight.size(), mapped);
  int* cost = host_visible<int>(n, mapped);
  int* queued = host_visible<int>(n, mapped);
  int* q[2] = {host_visible<int>(n, mapped), host_visible<int>(n, mapped)};
  Shared* s = host_visible<Shared>(1, mapped);
  CHECK(g.row && g.col && g.weight && cost && queued && q[0] && q[1] && s);
  std::memcpy(g.row, row.data(), row.size() * sizeof(int));
  std::memcpy(g.col, col.data(), col.size() * sizeof(int));
  std::memcpy(g.weight, weight.data(), weight.size() * sizeof(int));
  for (int v = 0; v < n; ++v) cost[v] = 1 << 30, queued[v] = 0;
  cost[0] = 0;
  q[0][0] = 0;
  int size = 1, rounds = 0;
  while (size > 0) {
    int* frontier = q[rounds % 2];
    int* next = q[(rounds + 1) % 2];
    for (int i = 0; i < size; ++i) queued[frontier[i]] = 0;
    *s = Shared{0, 0, 0, 0};
    std::thread helpers[2];
    for (std::thread& h : helpers)
      h = std::thread(relax_host, std::cref(g), frontier, size, cost, queued, next, s);
    relax_gpu<<<8, 64>>>(g, frontier, size, cost, queued, next, s);
    CUDA_OK(cudaGetLastError());
    for (std::thread& h : helpers) h.join();
    CUDA_OK(cudaDeviceSynchronize());
    size = s->tail;
    ++rounds;
    CHECK(size <= n);
  }
  int wrong = 0;
  for (int v = 0; v < n; ++v)
    if (cost[v] != want[v]) {
      if (wrong++ < 5) std::fprintf(stderr, "node %d: cost %d, want %d\n", v, cost[v], want[v]);
    }
  std::printf("sssp (%s): %d rounds, %d wrong node costs\n", mapped ? "mapped" : "managed", rounds,
              wrong);
  CHECK(wrong == 0);
  return 0;
}

int main(int argc, char** argv) {
  const bool mapped = argc > 1 && std::strcmp(argv[1], "mapped") == 0;
  if (counters() != 0) return 1;
  for (int run = 0; run < 3; ++run)
    if (sssp(mapped) != 0) return 1;
  std::printf("PASS\n");
  return 0;
}
