// Conditional nodes whose condition kernels set with cudaGraphSetConditional:
// a WHILE loop counting a device counter down, IF/ELSE on a value the graph
// computes, SWITCH; default values applied at each launch.
#include <cstdio>

#include "check.h"

// The WHILE body: one step of the countdown (adding `weight` to the steps
// taken), and the loop goes on while steps remain.
__global__ void count_down(int* counter, int* steps, int weight,
                           cudaGraphConditionalHandle handle) {
  if (threadIdx.x == 0) {
    const int left = --*counter;
    *steps += weight;
    cudaGraphSetConditional(handle, left > 0);
  }
}

__global__ void set_value(int* p, int v) {
  if (threadIdx.x == 0) *p = v;
}

// Picks the IF body when the input is above the threshold, ELSE otherwise.
__global__ void decide(const int* input, int threshold, cudaGraphConditionalHandle handle) {
  if (threadIdx.x == 0) cudaGraphSetConditional(handle, *input > threshold);
}

__global__ void select_case(const int* input, cudaGraphConditionalHandle handle) {
  if (threadIdx.x == 0) cudaGraphSetConditional(handle, static_cast<unsigned>(*input));
}

cudaError_t add_kernel(cudaGraphNode_t* node, cudaGraph_t g, const cudaGraphNode_t* deps, size_t n,
                       const void* func, void** args) {
  cudaKernelNodeParams p = {};
  p.func = const_cast<void*>(func);
  p.gridDim = dim3(1);
  p.blockDim = dim3(32);
  p.kernelParams = args;
  return cudaGraphAddKernelNode(node, g, deps, n, &p);
}

cudaError_t add_conditional(cudaGraphNode_t* node, cudaGraph_t g, const cudaGraphNode_t* deps,
                            size_t n, cudaGraphConditionalHandle h,
                            cudaGraphConditionalNodeType type, unsigned size, cudaGraph_t* bodies) {
  cudaGraphNodeParams p = {};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = h;
  p.conditional.type = type;
  p.conditional.size = size;
  cudaError_t e = cudaGraphAddNode(node, g, deps, nullptr, n, &p);
  for (unsigned i = 0; e == cudaSuccess && i < size; ++i) bodies[i] = p.conditional.phGraph_out[i];
  return e;
}

int main() {
  int* d;  // [0] counter, [1] steps, [2] input, [3] branch taken, [4] switch result
  CUDA_OK(cudaMalloc(&d, 8 * sizeof(int)));
  CUDA_OK(cudaMemset(d, 0, 8 * sizeof(int)));
  int *counter = d, *steps = d + 1, *input = d + 2, *taken = d + 3, *chosen = d + 4;
  cudaStream_t s;
  CUDA_OK(cudaStreamCreate(&s));

  // WHILE: set counter = 5, then loop { counter--, steps += weight } while
  // counter > 0. The handle's default 1 enters the loop; applied at every launch.
  {
    cudaGraph_t graphs[2];
    cudaGraphConditionalHandle handles[2];
    int start = 5, weights[2] = {1, 10};
    void* set_args[] = {&counter, &start};
    void* step_args[2][4] = {{&counter, &steps, &weights[0], &handles[0]},
                             {&counter, &steps, &weights[1], &handles[1]}};
    for (int v = 0; v < 2; ++v) {  // the same shape, two weights
      cudaGraph_t& g = graphs[v];
      CUDA_OK(cudaGraphCreate(&g, 0));
      CUDA_OK(cudaGraphConditionalHandleCreate(&handles[v], g, 1, cudaGraphCondAssignDefault));
      cudaGraphNode_t init, loop, step;
      CUDA_OK(add_kernel(&init, g, nullptr, 0, reinterpret_cast<void*>(set_value), set_args));
      cudaGraph_t body;
      CUDA_OK(add_conditional(&loop, g, &init, 1, handles[v], cudaGraphCondTypeWhile, 1, &body));
      CUDA_OK(
          add_kernel(&step, body, nullptr, 0, reinterpret_cast<void*>(count_down), step_args[v]));
      cudaGraphNodeType type;
      CUDA_OK(cudaGraphNodeGetType(loop, &type));
      CHECK(type == cudaGraphNodeTypeConditional);
    }
    cudaGraphExec_t exec;
    CUDA_OK(cudaGraphInstantiate(&exec, graphs[0], 0));
    CUDA_OK(cudaGraphLaunch(exec, s));
    CUDA_OK(cudaGraphLaunch(exec, s));  // the loop's last pass left 0: the default re-enters it
    CUDA_OK(cudaStreamSynchronize(s));
    int h_d[2];
    CUDA_OK(cudaMemcpy(h_d, d, sizeof h_d, cudaMemcpyDeviceToHost));
    CHECK(h_d[0] == 0);      // counted down to zero
    CHECK(h_d[1] == 2 * 5);  // five passes of weight 1 per launch
    // An update while launches wait to run: the launch issued before it
    // keeps weight 1 for all its passes (its body is issued as it runs),
    // the one after has weight 10 (and the second graph's handle, which its
    // kernel sets).
    CUDA_OK(cudaGraphLaunch(exec, s));
    cudaGraphExecUpdateResultInfo info;
    CUDA_OK(cudaGraphExecUpdate(exec, graphs[1], &info));
    CUDA_OK(cudaGraphLaunch(exec, s));
    CUDA_OK(cudaStreamSynchronize(s));
    CUDA_OK(cudaMemcpy(h_d, d, sizeof h_d, cudaMemcpyDeviceToHost));
    CHECK(h_d[1] == 2 * 5 + 5 * 1 + 5 * 10);
    CUDA_OK(cudaGraphExecDestroy(exec));
    for (cudaGraph_t g : graphs) CUDA_OK(cudaGraphDestroy(g));
  }

  // IF/ELSE: decide() compares the input with 10; the IF body writes 1, the ELSE body 2.
  {
    cudaGraph_t g;
    CUDA_OK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CUDA_OK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
    int threshold = 10, one = 1, two = 2;
    void* decide_args[] = {&input, &threshold, &h};
    cudaGraphNode_t pick, branch, n_if, n_else;
    CUDA_OK(add_kernel(&pick, g, nullptr, 0, reinterpret_cast<void*>(decide), decide_args));
    cudaGraph_t bodies[2];
    CUDA_OK(add_conditional(&branch, g, &pick, 1, h, cudaGraphCondTypeIf, 2, bodies));
    void* if_args[] = {&taken, &one};
    void* else_args[] = {&taken, &two};
    CUDA_OK(add_kernel(&n_if, bodies[0], nullptr, 0, reinterpret_cast<void*>(set_value), if_args));
    CUDA_OK(
        add_kernel(&n_else, bodies[1], nullptr, 0, reinterpret_cast<void*>(set_value), else_args));
    cudaGraphExec_t exec;
    CUDA_OK(cudaGraphInstantiate(&exec, g, 0));
    const int inputs[] = {3, 42, 10, 11};
    const int expect[] = {2, 1, 2, 1};  // > 10 takes IF
    for (int k = 0; k < 4; ++k) {
      CUDA_OK(cudaMemcpy(input, &inputs[k], sizeof(int), cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemset(taken, 0, sizeof(int)));
      CUDA_OK(cudaGraphLaunch(exec, s));
      CUDA_OK(cudaStreamSynchronize(s));
      int got = 0;
      CUDA_OK(cudaMemcpy(&got, taken, sizeof got, cudaMemcpyDeviceToHost));
      CHECK(got == expect[k]);
    }
    CUDA_OK(cudaGraphExecDestroy(exec));
    CUDA_OK(cudaGraphDestroy(g));
  }

  // SWITCH with three cases; a value past the last case runs no body.
  {
    cudaGraph_t g;
    CUDA_OK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CUDA_OK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
    void* select_args[] = {&input, &h};
    cudaGraphNode_t pick, sw;
    CUDA_OK(add_kernel(&pick, g, nullptr, 0, reinterpret_cast<void*>(select_case), select_args));
    cudaGraph_t bodies[3];
    CUDA_OK(add_conditional(&sw, g, &pick, 1, h, cudaGraphCondTypeSwitch, 3, bodies));
    int values[3] = {100, 200, 300};
    void* case_args[3][2] = {{&chosen, &values[0]}, {&chosen, &values[1]}, {&chosen, &values[2]}};
    for (int c = 0; c < 3; ++c) {
      cudaGraphNode_t node;
      CUDA_OK(add_kernel(&node, bodies[c], nullptr, 0, reinterpret_cast<void*>(set_value),
                         case_args[c]));
    }
    cudaGraphExec_t exec;
    CUDA_OK(cudaGraphInstantiate(&exec, g, 0));
    for (int v = 0; v < 4; ++v) {
      CUDA_OK(cudaMemcpy(input, &v, sizeof v, cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemset(chosen, 0, sizeof(int)));
      CUDA_OK(cudaGraphLaunch(exec, s));
      CUDA_OK(cudaStreamSynchronize(s));
      int got = -1;
      CUDA_OK(cudaMemcpy(&got, chosen, sizeof got, cudaMemcpyDeviceToHost));
      CHECK(got == (v < 3 ? values[v] : 0));
    }
    CUDA_OK(cudaGraphExecDestroy(exec));
    CUDA_OK(cudaGraphDestroy(g));
  }

  // A conditional node in the middle of a stream capture, its body captured
  // into the node's body graph (the pattern CUDA documents): the capture's
  // graph from cudaStreamGetCaptureInfo, the node after the capture's
  // position, the capture moved after the node.
  {
    cudaStream_t body_stream;
    CUDA_OK(cudaStreamCreate(&body_stream));
    cudaGraph_t g;
    cudaStreamCaptureStatus status;
    CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CUDA_OK(cudaStreamGetCaptureInfo(s, &status, nullptr, &g, nullptr, nullptr, nullptr));
    cudaGraphConditionalHandle h;
    CUDA_OK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
    decide<<<1, 32, 0, s>>>(input, 10, h);
    const cudaGraphNode_t* deps = nullptr;
    size_t ndeps = 0;
    CUDA_OK(cudaStreamGetCaptureInfo(s, &status, nullptr, nullptr, &deps, nullptr, &ndeps));
    CHECK(ndeps == 1);
    cudaGraphNode_t branch;
    cudaGraph_t body;
    CUDA_OK(add_conditional(&branch, g, deps, ndeps, h, cudaGraphCondTypeIf, 1, &body));
    CUDA_OK(cudaStreamUpdateCaptureDependencies(s, &branch, nullptr, 1,
                                                cudaStreamSetCaptureDependencies));
    set_value<<<1, 32, 0, s>>>(chosen, 7);  // after the conditional node, whatever it ran
    cudaGraph_t captured;
    CUDA_OK(cudaStreamEndCapture(s, &captured));
    CHECK(captured == g);
    CUDA_OK(cudaStreamBeginCaptureToGraph(body_stream, body, nullptr, nullptr, 0,
                                          cudaStreamCaptureModeGlobal));
    set_value<<<1, 32, 0, body_stream>>>(taken, 3);
    cudaGraph_t same_body;
    CUDA_OK(cudaStreamEndCapture(body_stream, &same_body));
    CHECK(same_body == body);
    size_t count = 0;
    CUDA_OK(cudaGraphGetNodes(g, nullptr, &count));
    CHECK(count == 3);  // decide, the conditional, the last kernel
    CUDA_OK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &count));
    CHECK(count == 2);
    cudaGraphExec_t exec;
    CUDA_OK(cudaGraphInstantiate(&exec, g, 0));
    const int inputs[] = {50, 5};
    for (int k = 0; k < 2; ++k) {
      CUDA_OK(cudaMemcpy(input, &inputs[k], sizeof(int), cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemset(taken, 0, 2 * sizeof(int)));  // taken and chosen
      CUDA_OK(cudaGraphLaunch(exec, s));
      CUDA_OK(cudaStreamSynchronize(s));
      int got[2];
      CUDA_OK(cudaMemcpy(got, taken, sizeof got, cudaMemcpyDeviceToHost));
      CHECK(got[0] == (inputs[k] > 10 ? 3 : 0) && got[1] == 7);
    }
    CUDA_OK(cudaGraphExecDestroy(exec));
    CUDA_OK(cudaGraphDestroy(g));
    CUDA_OK(cudaStreamDestroy(body_stream));
  }

  // A handle no conditional node uses makes instantiation fail and say why.
  {
    cudaGraph_t g;
    CUDA_OK(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle h;
    CUDA_OK(cudaGraphConditionalHandleCreate(&h, g, 0, 0));
    cudaGraphNode_t empty;
    CUDA_OK(cudaGraphAddEmptyNode(&empty, g, nullptr, 0));
    cudaGraphExec_t exec;
    cudaGraphInstantiateParams ip = {};
    CHECK(cudaGraphInstantiateWithParams(&exec, g, &ip) == cudaErrorInvalidValue);
    CHECK(ip.result_out == cudaGraphInstantiateConditionalHandleUnused);
    cudaGetLastError();
    CUDA_OK(cudaGraphDestroy(g));
  }
  std::printf("PASS\n");
  return 0;
}
