// Graph memory nodes: an allocation node's memory is used by the graph's
// kernel and freed by its free node; one freed outside the graph by cudaFree;
// cudaMallocAsync/cudaFreeAsync captured as allocation and free nodes; the
// device's graph memory attributes against the bytes involved.
#include <cstdio>

#include "check.h"

__global__ void fill(int* p, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = base + i;
}

__global__ void sum_into(const int* p, int n, unsigned long long* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, static_cast<unsigned long long>(p[i]));
}

unsigned long long attr(cudaGraphMemAttributeType a) {
  unsigned long long v = ~0ull;
  if (cudaDeviceGetGraphMemAttribute(0, a, &v) != cudaSuccess) return ~0ull;
  return v;
}

int main() {
  const int n = 4096, threads = 256;
  const size_t bytes = n * sizeof(int);
  unsigned long long* total;
  CUDA_OK(cudaMalloc(&total, sizeof *total));
  cudaStream_t s;
  CUDA_OK(cudaStreamCreate(&s));
  CHECK(attr(cudaGraphMemAttrUsedMemCurrent) == 0 && attr(cudaGraphMemAttrReservedMemCurrent) == 0);

  // alloc -> fill -> sum -> free. sum = n*base + n(n-1)/2.
  cudaGraph_t g;
  CUDA_OK(cudaGraphCreate(&g, 0));
  cudaMemAllocNodeParams ap = {};
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location.type = cudaMemLocationTypeDevice;
  ap.poolProps.location.id = 0;
  ap.bytesize = bytes;
  cudaGraphNode_t alloc, filled, summed, freed;
  CUDA_OK(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
  int* p = static_cast<int*>(ap.dptr);
  CHECK(p != nullptr);
  CHECK(attr(cudaGraphMemAttrReservedMemCurrent) >= bytes);
  CHECK(attr(cudaGraphMemAttrUsedMemCurrent) == 0);  // nothing ran yet
  int n_arg = n, base = 7;
  void* fill_args[] = {&p, &n_arg, &base};
  cudaKernelNodeParams kp = {};
  kp.func = reinterpret_cast<void*>(fill);
  kp.gridDim = dim3(n / threads);
  kp.blockDim = dim3(threads);
  kp.kernelParams = fill_args;
  CUDA_OK(cudaGraphAddKernelNode(&filled, g, &alloc, 1, &kp));
  void* sum_args[] = {&p, &n_arg, &total};
  kp.func = reinterpret_cast<void*>(sum_into);
  kp.kernelParams = sum_args;
  CUDA_OK(cudaGraphAddKernelNode(&summed, g, &filled, 1, &kp));
  CUDA_OK(cudaGraphAddMemFreeNode(&freed, g, &summed, 1, p));
  void* freed_ptr = nullptr;
  CUDA_OK(cudaGraphMemFreeNodeGetParams(freed, &freed_ptr));
  CHECK(freed_ptr == p);
  cudaGraphExec_t exec;
  CUDA_OK(cudaGraphInstantiate(&exec, g, 0));
  CUDA_OK(cudaMemset(total, 0, sizeof *total));
  for (int k = 0; k < 3; ++k) CUDA_OK(cudaGraphLaunch(exec, s));
  CUDA_OK(cudaStreamSynchronize(s));
  unsigned long long h_total = 0;
  CUDA_OK(cudaMemcpy(&h_total, total, sizeof h_total, cudaMemcpyDeviceToHost));
  const unsigned long long one = 7ull * n + 1ull * n * (n - 1) / 2;
  CHECK(h_total == 3 * one);
  CHECK(attr(cudaGraphMemAttrUsedMemCurrent) == 0);   // the free node ran
  CHECK(attr(cudaGraphMemAttrUsedMemHigh) == bytes);  // in use once at a time
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(g));
  CHECK(attr(cudaGraphMemAttrReservedMemCurrent) == 0);  // no graph holds it now
  unsigned long long zero = 0;
  CUDA_OK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
  CHECK(attr(cudaGraphMemAttrUsedMemHigh) == 0);
  CUDA_OK(cudaDeviceGraphMemTrim(0));

  // Captured: cudaMallocAsync makes an allocation node, the kernel writes it,
  // a copy reads it back; the allocation outlives the graph's launch and
  // cudaFree releases it.
  int* q = nullptr;
  int h_q[n];
  cudaGraph_t captured;
  CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CUDA_OK(cudaMallocAsync(&q, bytes, s));
  fill<<<n / threads, threads, 0, s>>>(q, n, 100);
  CUDA_OK(cudaMemcpyAsync(h_q, q, bytes, cudaMemcpyDeviceToHost, s));
  CUDA_OK(cudaStreamEndCapture(s, &captured));
  size_t count = 0;
  CUDA_OK(cudaGraphGetNodes(captured, nullptr, &count));
  CHECK(count == 3);
  cudaGraphNode_t nodes[3];
  CUDA_OK(cudaGraphGetNodes(captured, nodes, &count));
  cudaGraphNodeType type;
  CUDA_OK(cudaGraphNodeGetType(nodes[0], &type));
  CHECK(type == cudaGraphNodeTypeMemAlloc);
  CUDA_OK(cudaGraphInstantiate(&exec, captured, 0));
  CUDA_OK(cudaGraphLaunch(exec, s));
  CUDA_OK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i) CHECK(h_q[i] == 100 + i);
  CHECK(attr(cudaGraphMemAttrUsedMemCurrent) == bytes);  // not freed in the graph
  CUDA_OK(cudaFree(q));
  CHECK(attr(cudaGraphMemAttrUsedMemCurrent) == 0);
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(captured));

  // cudaFreeAsync in a capture is a free node.
  CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CUDA_OK(cudaMallocAsync(&q, bytes, s));
  fill<<<n / threads, threads, 0, s>>>(q, n, 0);
  CUDA_OK(cudaFreeAsync(q, s));
  CUDA_OK(cudaStreamEndCapture(s, &captured));
  CUDA_OK(cudaGraphGetNodes(captured, nodes, &count));
  CHECK(count == 3);
  CUDA_OK(cudaGraphNodeGetType(nodes[2], &type));
  CHECK(type == cudaGraphNodeTypeMemFree);
  CUDA_OK(cudaGraphInstantiate(&exec, captured, 0));
  CUDA_OK(cudaGraphLaunch(exec, s));
  CUDA_OK(cudaStreamSynchronize(s));
  CHECK(attr(cudaGraphMemAttrUsedMemCurrent) == 0);
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(captured));
  std::printf("PASS\n");
  return 0;
}
