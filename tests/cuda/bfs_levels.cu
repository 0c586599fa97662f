// Breadth-first search with one thread per node, the way the classic GPU
// benchmark does it: per level one kernel expands the frontier (a mask), a
// second commits the newly reached nodes and raises a "changed" flag, and the
// host copies the flag back and loops until it stays down. Checked against a
// host BFS.
// Usage: bfs_levels [nodes] [extra_edges_per_node] (default 1 Mi nodes, 4).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <queue>
#include <vector>

#include "check.h"

__global__ void expand(const int* row_ptr, const int* adj, bool* frontier, bool* next,
                       const bool* visited, int* cost, int n) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || !frontier[v]) return;
  frontier[v] = false;
  for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
    const int u = adj[e];
    if (!visited[u]) {
      cost[u] = cost[v] + 1;
      next[u] = true;
    }
  }
}

__global__ void commit(bool* frontier, bool* next, bool* visited, bool* changed, int n) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || !next[v]) return;
  frontier[v] = true;
  visited[v] = true;
  *changed = true;
  next[v] = false;
}

static double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1 << 20;
  const int extra = argc > 2 ? std::atoi(argv[2]) : 4;
  CHECK(n > 1 && extra >= 0);

  // A ring (so every node is reached) plus `extra` pseudo-random edges per
  // node (a 32-bit LCG), stored as CSR.
  std::vector<int> row_ptr(n + 1), adj;
  unsigned seed = 12345;
  for (int v = 0; v < n; ++v) {
    row_ptr[v] = static_cast<int>(adj.size());
    adj.push_back((v + 1) % n);
    for (int k = 0; k < extra; ++k) {
      seed = seed * 1664525u + 1013904223u;
      adj.push_back(static_cast<int>((seed >> 8) % static_cast<unsigned>(n)));
    }
  }
  row_ptr[n] = static_cast<int>(adj.size());

  int *d_row_ptr, *d_adj, *d_cost;
  bool *d_frontier, *d_next, *d_visited, *d_changed;
  CUDA_OK(cudaMalloc(&d_row_ptr, (n + 1) * sizeof(int)));
  CUDA_OK(cudaMalloc(&d_adj, adj.size() * sizeof(int)));
  CUDA_OK(cudaMalloc(&d_cost, n * sizeof(int)));
  CUDA_OK(cudaMalloc(&d_frontier, n));
  CUDA_OK(cudaMalloc(&d_next, n));
  CUDA_OK(cudaMalloc(&d_visited, n));
  CUDA_OK(cudaMalloc(&d_changed, 1));
  CUDA_OK(cudaMemcpy(d_row_ptr, row_ptr.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_adj, adj.data(), adj.size() * sizeof(int), cudaMemcpyHostToDevice));
  std::vector<int> cost(n, -1);
  cost[0] = 0;
  CUDA_OK(cudaMemcpy(d_cost, cost.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(d_frontier, 0, n));
  CUDA_OK(cudaMemset(d_next, 0, n));
  CUDA_OK(cudaMemset(d_visited, 0, n));
  const bool yes = true;
  CUDA_OK(cudaMemcpy(d_frontier, &yes, 1, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemcpy(d_visited, &yes, 1, cudaMemcpyHostToDevice));

  const int block = 256, grid = (n + block - 1) / block;
  int levels = 0;
  bool changed = true;
  auto t0 = std::chrono::steady_clock::now();
  while (changed) {
    changed = false;
    CUDA_OK(cudaMemcpy(d_changed, &changed, 1, cudaMemcpyHostToDevice));
    expand<<<grid, block>>>(d_row_ptr, d_adj, d_frontier, d_next, d_visited, d_cost, n);
    commit<<<grid, block>>>(d_frontier, d_next, d_visited, d_changed, n);
    CUDA_OK(cudaMemcpy(&changed, d_changed, 1, cudaMemcpyDeviceToHost));
    ++levels;
  }
  const double wall = seconds_since(t0);
  CUDA_OK(cudaMemcpy(cost.data(), d_cost, n * sizeof(int), cudaMemcpyDeviceToHost));

  // Host BFS: the same levels.
  std::vector<int> expect(n, -1);
  std::queue<int> queue;
  expect[0] = 0;
  queue.push(0);
  int depth = 0;
  while (!queue.empty()) {
    const int v = queue.front();
    queue.pop();
    depth = expect[v] > depth ? expect[v] : depth;
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e)
      if (expect[adj[e]] < 0) expect[adj[e]] = expect[v] + 1, queue.push(adj[e]);
  }
  int wrong = 0;
  for (int v = 0; v < n; ++v) wrong += cost[v] != expect[v];
  std::printf(
      "bfs: %d nodes, %d edges, %d levels (%d launches) in %.3f s wall "
      "(%.1f launches/s)\n",
      n, static_cast<int>(adj.size()), levels, 2 * levels, wall, 2 * levels / wall);
  // One pass per depth, plus the last one that finds nothing new.
  CHECK(levels == depth + 1);
  CHECK(wrong == 0);
  std::printf("PASS\n");
  return 0;
}
