// An explicitly built diamond graph (memset and host-to-device copy, two
// independent kernels, a join kernel, a copy back, a host node) against a host
// reference; the order its nodes ran in; the queries, a clone, the DOT file,
// and that independent branches overlap on the platform.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "check.h"

// Appends `id` to the launch's log (log[0] counts the entries).
__device__ void log_node(int* log, int id) {
  if (blockIdx.x == 0 && threadIdx.x == 0) log[1 + atomicAdd(log, 1)] = id;
}

__global__ void scale(float* out, const float* in, float a, int n, int* log, int id) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * in[i];
  log_node(log, id);
}

__global__ void add_one(float* out, const float* in, int n, int* log, int id) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1.0f;
  log_node(log, id);
}

__global__ void multiply(float* out, const float* a, const float* b, int n, int* log, int id) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] * b[i];
  log_node(log, id);
}

// A kernel long enough to be seen next to a copy: `rounds` dependent steps per thread.
__global__ void spin(float* v, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = v[i];
  for (int r = 0; r < rounds; ++r) x = x * 0.999f + 1.0f;
  v[i] = x;
}

struct HostCheck {
  const float* y;
  int n;
  double sum;
  int calls;
};

// The host node: runs after the copy back, so it sees this launch's results.
void sum_results(void* p) {
  auto* h = static_cast<HostCheck*>(p);
  h->sum = 0;
  for (int i = 0; i < h->n; ++i) h->sum += h->y[i];
  ++h->calls;
}

int count_of(const std::string& text, const std::string& what) {
  int k = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++k;
  return k;
}

int main() {
  const int n = 2048, threads = 256;
  float *x = nullptr, *y = nullptr;
  CUDA_OK(cudaMallocHost(&x, n * sizeof(float)));
  CUDA_OK(cudaMallocHost(&y, n * sizeof(float)));
  float *dx, *db, *dc, *dy;
  int* log;
  CUDA_OK(cudaMalloc(&dx, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&db, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&dc, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&dy, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&log, 16 * sizeof(int)));
  CUDA_OK(cudaMemset(log, 0x7f, 16 * sizeof(int)));  // the memset node must clear it

  cudaGraph_t graph;
  CUDA_OK(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t m, c, k1, k2, k3, d, h;
  cudaMemsetParams mp = {};
  mp.dst = log;
  mp.value = 0;
  mp.elementSize = 4;
  mp.width = 16;
  mp.height = 1;
  CUDA_OK(cudaGraphAddMemsetNode(&m, graph, nullptr, 0, &mp));
  CUDA_OK(cudaGraphAddMemcpyNode1D(&c, graph, nullptr, 0, dx, x, n * sizeof(float),
                                   cudaMemcpyHostToDevice));
  const cudaGraphNode_t roots[] = {m, c};
  float two = 2.0f;
  int n_arg = n, id1 = 1, id2 = 2, id3 = 3;
  void* k1_args[] = {&db, &dx, &two, &n_arg, &log, &id1};
  cudaKernelNodeParams kp = {};
  kp.func = reinterpret_cast<void*>(scale);
  kp.gridDim = dim3(n / threads);
  kp.blockDim = dim3(threads);
  kp.kernelParams = k1_args;
  CUDA_OK(cudaGraphAddKernelNode(&k1, graph, roots, 2, &kp));
  void* k2_args[] = {&dc, &dx, &n_arg, &log, &id2};
  kp.func = reinterpret_cast<void*>(add_one);
  kp.kernelParams = k2_args;
  CUDA_OK(cudaGraphAddKernelNode(&k2, graph, roots, 2, &kp));
  // K3 through the generic form, after K1 and K2.
  void* k3_args[] = {&dy, &db, &dc, &n_arg, &log, &id3};
  cudaGraphNodeParams gp = {};
  gp.type = cudaGraphNodeTypeKernel;
  gp.kernel.func = reinterpret_cast<void*>(multiply);
  gp.kernel.gridDim = dim3(n / threads);
  gp.kernel.blockDim = dim3(threads);
  gp.kernel.kernelParams = k3_args;
  const cudaGraphNode_t branches[] = {k1, k2};
  CUDA_OK(cudaGraphAddNode(&k3, graph, branches, nullptr, 2, &gp));
  CUDA_OK(cudaGraphAddMemcpyNode1D(&d, graph, &k3, 1, y, dy, n * sizeof(float),
                                   cudaMemcpyDeviceToHost));
  HostCheck check = {y, n, 0.0, 0};
  cudaHostNodeParams hp = {sum_results, &check};
  CUDA_OK(cudaGraphAddHostNode(&h, graph, &d, 1, &hp));

  // Structure: 7 nodes; edges M,C->K1, M,C->K2, K1,K2->K3, K3->D, D->H.
  size_t count = 0;
  CUDA_OK(cudaGraphGetNodes(graph, nullptr, &count));
  CHECK(count == 7);
  CUDA_OK(cudaGraphGetRootNodes(graph, nullptr, &count));
  CHECK(count == 2);
  CUDA_OK(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &count));
  CHECK(count == 8);
  std::vector<cudaGraphNode_t> from(count), to(count);
  CUDA_OK(cudaGraphGetEdges(graph, from.data(), to.data(), nullptr, &count));
  int into_k3 = 0;
  for (size_t i = 0; i < count; ++i)
    if (to[i] == k3) into_k3 += (from[i] == k1 || from[i] == k2) ? 1 : 100;
  CHECK(into_k3 == 2);
  CUDA_OK(cudaGraphNodeGetDependencies(k3, nullptr, nullptr, &count));
  CHECK(count == 2);
  CUDA_OK(cudaGraphNodeGetDependentNodes(m, nullptr, nullptr, &count));
  CHECK(count == 2);
  cudaGraphNodeType type;
  CUDA_OK(cudaGraphNodeGetType(h, &type));
  CHECK(type == cudaGraphNodeTypeHost);
  CUDA_OK(cudaGraphNodeGetType(m, &type));
  CHECK(type == cudaGraphNodeTypeMemset);
  cudaKernelNodeParams got = {};
  CUDA_OK(cudaGraphKernelNodeGetParams(k1, &got));
  CHECK(got.func == reinterpret_cast<void*>(scale) && got.gridDim.x == n / threads);
  CHECK(*static_cast<float*>(got.kernelParams[2]) == 2.0f);
  // An edge that exists cannot be added twice; one that does not cannot be removed.
  CHECK(cudaGraphAddDependencies(graph, &k1, &k3, nullptr, 1) == cudaErrorInvalidValue);
  CHECK(cudaGraphRemoveDependencies(graph, &m, &k3, nullptr, 1) == cudaErrorInvalidValue);
  cudaGetLastError();

  // DOT: one box per node, one arrow per edge, the kernels by name.
  const char* dot_path = "graph_dag.dot";
  CUDA_OK(cudaGraphDebugDotPrint(graph, dot_path, 0));
  std::ifstream dot_file(dot_path);
  std::stringstream dot;
  dot << dot_file.rdbuf();
  const std::string text = dot.str();
  CHECK(text.rfind("digraph", 0) == 0);
  CHECK(count_of(text, "shape=box") == 7);
  CHECK(count_of(text, "->") == 8);
  CHECK(count_of(text, "_Z5scalePfPKffiPii") == 1 && count_of(text, "memset") == 1);
  std::remove(dot_path);

  cudaGraphExec_t exec;
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
  cudaStream_t s;
  CUDA_OK(cudaStreamCreate(&s));
  double total = 0;
  for (int launch = 0; launch < 3; ++launch) {
    for (int i = 0; i < n; ++i) x[i] = 0.25f * ((i + launch) % 17);
    CUDA_OK(cudaGraphLaunch(exec, s));
    CUDA_OK(cudaStreamSynchronize(s));
    double expect = 0;
    for (int i = 0; i < n; ++i) {
      const float want = (2.0f * x[i]) * (x[i] + 1.0f);  // K3 = K1 * K2
      CHECK(y[i] == want);
      expect += want;
    }
    CHECK(check.calls == launch + 1 && check.sum == expect);
    total += expect;
    // The log: the memset cleared it, then K1 and K2 (either order), then K3.
    int hlog[16];
    CUDA_OK(cudaMemcpy(hlog, log, sizeof hlog, cudaMemcpyDeviceToHost));
    CHECK(hlog[0] == 3);
    CHECK((hlog[1] == 1 && hlog[2] == 2) || (hlog[1] == 2 && hlog[2] == 1));
    CHECK(hlog[3] == 3);
  }
  CHECK(total > 0);

  // A clone has the same structure; a node is found in it; the original is untouched.
  cudaGraph_t copy;
  CUDA_OK(cudaGraphClone(&copy, graph));
  cudaGraphNode_t k3_copy;
  CUDA_OK(cudaGraphNodeFindInClone(&k3_copy, k3, copy));
  CHECK(k3_copy != k3);
  CUDA_OK(cudaGraphNodeGetDependencies(k3_copy, nullptr, nullptr, &count));
  CHECK(count == 2);
  CUDA_OK(cudaGraphDestroyNode(k3_copy));
  CUDA_OK(cudaGraphGetNodes(copy, nullptr, &count));
  CHECK(count == 6);
  CUDA_OK(cudaGraphGetEdges(copy, nullptr, nullptr, nullptr, &count));
  CHECK(count == 5);  // K1->K3, K2->K3 and K3->D went with K3
  CUDA_OK(cudaGraphGetNodes(graph, nullptr, &count));
  CHECK(count == 7);
  CUDA_OK(cudaGraphDestroy(copy));

  // Overlap: a 256 KiB host-to-device copy and a long kernel, independent in
  // one graph and chained in another. Chained they take the sum of their
  // times; independent, the copy crosses PCIe while the kernel runs, so the
  // graph takes less than the sum and no less than the longer one.
  const size_t big = 256u << 10;
  char *hbig, *dbig;
  float* dspin;
  CUDA_OK(cudaMallocHost(&hbig, big));
  CUDA_OK(cudaMalloc(&dbig, big));
  CUDA_OK(cudaMalloc(&dspin, 65536 * sizeof(float)));
  int rounds = 2000;
  void* spin_args[] = {&dspin, &rounds};
  kp = {};
  kp.func = reinterpret_cast<void*>(spin);
  kp.gridDim = dim3(65536 / threads);
  kp.blockDim = dim3(threads);
  kp.kernelParams = spin_args;
  float ms[4];
  cudaEvent_t t0, t1;
  CUDA_OK(cudaEventCreate(&t0));
  CUDA_OK(cudaEventCreate(&t1));
  // Graphs: 0 the copy alone, 1 the kernel alone, 2 both independent, 3 copy then kernel.
  for (int shape = 0; shape < 4; ++shape) {
    cudaGraph_t g;
    CUDA_OK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t copy_node = nullptr, kernel_node;
    if (shape != 1)
      CUDA_OK(cudaGraphAddMemcpyNode1D(&copy_node, g, nullptr, 0, dbig, hbig, big,
                                       cudaMemcpyHostToDevice));
    if (shape != 0)
      CUDA_OK(cudaGraphAddKernelNode(&kernel_node, g, shape == 3 ? &copy_node : nullptr,
                                     shape == 3 ? 1 : 0, &kp));
    cudaGraphExec_t e;
    CUDA_OK(cudaGraphInstantiate(&e, g, 0));
    CUDA_OK(cudaEventRecord(t0, s));
    CUDA_OK(cudaGraphLaunch(e, s));
    CUDA_OK(cudaEventRecord(t1, s));
    CUDA_OK(cudaEventSynchronize(t1));
    CUDA_OK(cudaEventElapsedTime(&ms[shape], t0, t1));
    CUDA_OK(cudaGraphExecDestroy(e));
    CUDA_OK(cudaGraphDestroy(g));
  }
  std::printf("copy %.4f ms, kernel %.4f ms, independent %.4f ms, chained %.4f ms\n", ms[0], ms[1],
              ms[2], ms[3]);
  CHECK(ms[0] > 0.1f * ms[1] && ms[1] > 0.1f * ms[0]);  // comparable, so overlap shows
  CHECK(ms[3] >= 0.999f * (ms[0] + ms[1]));
  CHECK(ms[2] < 0.9f * ms[3]);
  CHECK(ms[2] >= 0.999f * std::max(ms[0], ms[1]));

  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(graph));
  CHECK(cudaGraphDestroy(graph) == cudaErrorInvalidValue);
  std::printf("PASS\n");
  return 0;
}
