// One executable graph launched many times while its kernel node's
// parameters change (cudaGraphExecKernelNodeSetParams), updated from a graph
// of the same shape (cudaGraphExecUpdate, also from a new capture) and
// refused one of another shape; launch attributes; a disabled node; a user
// object's destructor.
#include <cstdio>

#include "check.h"

__global__ void add_scaled(float* acc, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) acc[i] += a * x[i];
}

__global__ void add_constant(float* acc, float c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) acc[i] += c;
}

void destroy_counter(void* p) {
  ++*static_cast<int*>(p);
}

int main() {
  const int n = 1024, threads = 128;
  float h_x[n], h_acc[n];
  for (int i = 0; i < n; ++i) h_x[i] = static_cast<float>(i % 7) - 3.0f;
  float *x, *acc;
  CUDA_OK(cudaMalloc(&x, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&acc, n * sizeof(float)));
  CUDA_OK(cudaMemcpy(x, h_x, sizeof h_x, cudaMemcpyHostToDevice));
  CUDA_OK(cudaMemset(acc, 0, n * sizeof(float)));
  cudaStream_t s;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  // acc += a * x, then acc += c.
  cudaGraph_t graph;
  CUDA_OK(cudaGraphCreate(&graph, 0));
  float a = 1.0f, c = 0.5f;
  int n_arg = n;
  void* args[] = {&acc, &x, &a, &n_arg};
  void* cargs[] = {&acc, &c, &n_arg};
  cudaKernelNodeParams kp = {};
  kp.func = reinterpret_cast<void*>(add_scaled);
  kp.gridDim = dim3(n / threads);
  kp.blockDim = dim3(threads);
  kp.kernelParams = args;
  cudaGraphNode_t scaled, constant;
  CUDA_OK(cudaGraphAddKernelNode(&scaled, graph, nullptr, 0, &kp));
  cudaKernelNodeParams cp = kp;
  cp.func = reinterpret_cast<void*>(add_constant);
  cp.kernelParams = cargs;
  CUDA_OK(cudaGraphAddKernelNode(&constant, graph, &scaled, 1, &cp));
  // Launch attributes: the first kernel runs cooperatively (same results); a
  // cluster of 3 does not divide its grid of 8 CTAs.
  cudaKernelNodeAttrValue attr = {};
  attr.cooperative = 1;
  CUDA_OK(cudaGraphKernelNodeSetAttribute(scaled, cudaKernelNodeAttributeCooperative, &attr));
  cudaKernelNodeAttrValue back = {};
  CUDA_OK(cudaGraphKernelNodeGetAttribute(scaled, cudaKernelNodeAttributeCooperative, &back));
  CHECK(back.cooperative == 1);
  // An L2 access policy window reads back as set.
  cudaKernelNodeAttrValue window = {};
  window.accessPolicyWindow.base_ptr = acc;
  window.accessPolicyWindow.num_bytes = n * sizeof(float);
  window.accessPolicyWindow.hitRatio = 0.5f;
  window.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  window.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  CUDA_OK(
      cudaGraphKernelNodeSetAttribute(scaled, cudaKernelNodeAttributeAccessPolicyWindow, &window));
  CUDA_OK(
      cudaGraphKernelNodeGetAttribute(scaled, cudaKernelNodeAttributeAccessPolicyWindow, &back));
  CHECK(back.accessPolicyWindow.base_ptr == acc &&
        back.accessPolicyWindow.num_bytes == n * sizeof(float) &&
        back.accessPolicyWindow.hitRatio == 0.5f &&
        back.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting &&
        back.accessPolicyWindow.missProp == cudaAccessPropertyStreaming);
  attr.clusterDim.x = 3;
  attr.clusterDim.y = attr.clusterDim.z = 1;
  CHECK(cudaGraphKernelNodeSetAttribute(scaled, cudaKernelNodeAttributeClusterDimension, &attr) ==
        cudaErrorInvalidClusterSize);
  cudaGetLastError();
  cudaGraphExec_t exec;
  CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));

  // Launch k uses a = k + 1 (set on the executable graph only), c = 0.5:
  // after L launches acc = x * L(L+1)/2 + 0.5 L.
  const int launches = 40;
  for (int k = 0; k < launches; ++k) {
    a = static_cast<float>(k + 1);
    CUDA_OK(cudaGraphExecKernelNodeSetParams(exec, scaled, &kp));
    CUDA_OK(cudaGraphLaunch(exec, s));
  }
  CUDA_OK(cudaStreamSynchronize(s));
  CUDA_OK(cudaMemcpy(h_acc, acc, sizeof h_acc, cudaMemcpyDeviceToHost));
  const float tri = launches * (launches + 1) / 2.0f;
  for (int i = 0; i < n; ++i) CHECK(h_acc[i] == h_x[i] * tri + 0.5f * launches);
  // The source graph kept its own parameters (a was 1 when the node was added).
  cudaKernelNodeParams got = {};
  CUDA_OK(cudaGraphKernelNodeGetParams(scaled, &got));
  CHECK(*static_cast<float*>(got.kernelParams[2]) == 1.0f);

  // cudaGraphExecUpdate from a graph of the same shape: a = -2, c = 4.
  cudaGraph_t same;
  CUDA_OK(cudaGraphCreate(&same, 0));
  a = -2.0f;
  c = 4.0f;
  cudaGraphNode_t s1, s2;
  CUDA_OK(cudaGraphAddKernelNode(&s1, same, nullptr, 0, &kp));
  CUDA_OK(cudaGraphAddKernelNode(&s2, same, &s1, 1, &cp));
  cudaGraphExecUpdateResultInfo info;
  CUDA_OK(cudaGraphExecUpdate(exec, same, &info));
  CHECK(info.result == cudaGraphExecUpdateSuccess);
  CUDA_OK(cudaMemset(acc, 0, n * sizeof(float)));
  CUDA_OK(cudaGraphLaunch(exec, s));
  CUDA_OK(cudaStreamSynchronize(s));
  CUDA_OK(cudaMemcpy(h_acc, acc, sizeof h_acc, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(h_acc[i] == -2.0f * h_x[i] + 4.0f);

  // Another shape (the second node without its edge) is refused and says so.
  cudaGraph_t other;
  CUDA_OK(cudaGraphCreate(&other, 0));
  cudaGraphNode_t o1, o2;
  CUDA_OK(cudaGraphAddKernelNode(&o1, other, nullptr, 0, &kp));
  CUDA_OK(cudaGraphAddKernelNode(&o2, other, nullptr, 0, &cp));
  CHECK(cudaGraphExecUpdate(exec, other, &info) == cudaErrorGraphExecUpdateFailure);
  CHECK(info.result == cudaGraphExecUpdateErrorTopologyChanged && info.errorNode == o2);
  cudaGetLastError();

  // A disabled node does not run: only acc += c.
  CUDA_OK(cudaGraphNodeSetEnabled(exec, scaled, 0));
  unsigned enabled = 1;
  CUDA_OK(cudaGraphNodeGetEnabled(exec, scaled, &enabled));
  CHECK(enabled == 0);
  CUDA_OK(cudaMemset(acc, 0, n * sizeof(float)));
  CUDA_OK(cudaGraphLaunch(exec, s));
  CUDA_OK(cudaGraphNodeSetEnabled(exec, scaled, 1));
  CUDA_OK(cudaStreamSynchronize(s));
  CUDA_OK(cudaMemcpy(h_acc, acc, sizeof h_acc, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(h_acc[i] == 4.0f);

  // Capture, instantiate, capture again with other arguments, update: the
  // pattern of iterative solvers that re-capture each step.
  cudaGraphExec_t captured_exec = nullptr;
  CUDA_OK(cudaMemset(acc, 0, n * sizeof(float)));
  for (int step = 1; step <= 3; ++step) {
    cudaGraph_t g;
    CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    add_scaled<<<n / threads, threads, 0, s>>>(acc, x, static_cast<float>(step), n);
    add_constant<<<n / threads, threads, 0, s>>>(acc, static_cast<float>(10 * step), n);
    CUDA_OK(cudaStreamEndCapture(s, &g));
    if (!captured_exec) {
      CUDA_OK(cudaGraphInstantiate(&captured_exec, g, 0));
    } else {
      CUDA_OK(cudaGraphExecUpdate(captured_exec, g, &info));
    }
    CUDA_OK(cudaGraphLaunch(captured_exec, s));
    CUDA_OK(cudaGraphDestroy(g));
  }
  CUDA_OK(cudaStreamSynchronize(s));
  CUDA_OK(cudaMemcpy(h_acc, acc, sizeof h_acc, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) CHECK(h_acc[i] == 6.0f * h_x[i] + 60.0f);  // (1+2+3), 10(1+2+3)

  // A user object retained by a graph lives as long as the graph and the
  // executable graphs made from it; its destructor runs once, when the last
  // reference goes.
  int destroyed = 0;
  cudaUserObject_t object;
  CUDA_OK(cudaUserObjectCreate(&object, &destroyed, destroy_counter, 1,
                               cudaUserObjectNoDestructorSync));
  CUDA_OK(cudaGraphRetainUserObject(same, object, 1, cudaGraphUserObjectMove));  // our reference
  cudaGraphExec_t holder;
  CUDA_OK(cudaGraphInstantiate(&holder, same, 0));
  CUDA_OK(cudaGraphDestroy(same));
  CHECK(destroyed == 0);  // the executable graph still holds it
  CUDA_OK(cudaGraphLaunch(holder, s));
  CUDA_OK(cudaGraphExecDestroy(holder));
  CUDA_OK(cudaStreamSynchronize(s));
  CHECK(destroyed == 1);
  CHECK(cudaUserObjectRelease(object, 1) == cudaErrorInvalidValue);  // gone
  cudaGetLastError();

  CUDA_OK(cudaGraphExecDestroy(captured_exec));
  CUDA_OK(cudaGraphExecDestroy(exec));
  CUDA_OK(cudaGraphDestroy(other));
  CUDA_OK(cudaGraphDestroy(graph));
  std::printf("PASS\n");
  return 0;
}
