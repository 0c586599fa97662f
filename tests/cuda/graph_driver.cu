// Graphs through the driver API on a module loaded from PTX: a graph built
// node by node (copy in, two kernels, copy out), launched twice; a stream
// capture of cuLaunchKernel whose kernel node gets new parameters in the
// executable graph. Usage: graph_driver KERNELS.ptx
#include <cuda.h>

#include <cstdio>
#include <vector>

#include "cu_check.h"

int main(int argc, char** argv) {
  CHECK(argc == 2);
  CU_OK(cuInit(0));
  CUdevice dev;
  CU_OK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU_OK(cuCtxCreate(&ctx, nullptr, 0, dev));
  CUmodule module;
  CU_OK(cuModuleLoad(&module, argv[1]));
  CUfunction saxpy;
  CU_OK(cuModuleGetFunction(&saxpy, module, "saxpy"));

  const int n = 3000;
  std::vector<float> x(n), y(n), out(n);
  for (int i = 0; i < n; ++i) x[i] = 0.5f * (i % 11), y[i] = 2.0f - (i % 5);
  CUdeviceptr dx, dy;
  CU_OK(cuMemAlloc(&dx, n * sizeof(float)));
  CU_OK(cuMemAlloc(&dy, n * sizeof(float)));
  CU_OK(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
  CUstream stream;
  CU_OK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

  // y <- host y; y = a x + y twice; host out <- y: out = y + 2 a x.
  CUgraph graph;
  CU_OK(cuGraphCreate(&graph, 0));
  CUDA_MEMCPY3D in = {};
  in.srcMemoryType = CU_MEMORYTYPE_HOST;
  in.srcHost = y.data();
  in.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  in.dstDevice = dy;
  in.WidthInBytes = n * sizeof(float);
  in.Height = 1;
  in.Depth = 1;
  CUgraphNode copy_in, k1, k2, copy_out;
  CU_OK(cuGraphAddMemcpyNode(&copy_in, graph, nullptr, 0, &in, ctx));
  float a = 1.5f;
  int n_arg = n;
  void* args[] = {&a, &dx, &dy, &n_arg};
  CUDA_KERNEL_NODE_PARAMS kp = {};
  kp.func = saxpy;
  kp.gridDimX = (n + 255) / 256;
  kp.gridDimY = kp.gridDimZ = 1;
  kp.blockDimX = 256;
  kp.blockDimY = kp.blockDimZ = 1;
  kp.kernelParams = args;
  CU_OK(cuGraphAddKernelNode(&k1, graph, &copy_in, 1, &kp));
  CU_OK(cuGraphAddKernelNode(&k2, graph, &k1, 1, &kp));
  CUDA_MEMCPY3D back = {};
  back.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  back.srcDevice = dy;
  back.dstMemoryType = CU_MEMORYTYPE_HOST;
  back.dstHost = out.data();
  back.WidthInBytes = n * sizeof(float);
  back.Height = 1;
  back.Depth = 1;
  CU_OK(cuGraphAddMemcpyNode(&copy_out, graph, &k2, 1, &back, ctx));
  size_t count = 0;
  CU_OK(cuGraphGetNodes(graph, nullptr, &count));
  CHECK(count == 4);
  CU_OK(cuGraphGetEdges(graph, nullptr, nullptr, nullptr, &count));
  CHECK(count == 3);
  CUgraphNodeType type;
  CU_OK(cuGraphNodeGetType(k2, &type));
  CHECK(type == CU_GRAPH_NODE_TYPE_KERNEL);
  CUgraphExec exec;
  CU_OK(cuGraphInstantiate(&exec, graph, 0));
  for (int launch = 0; launch < 2; ++launch) {  // the copy in restores y each time
    CU_OK(cuGraphLaunch(exec, stream));
    CU_OK(cuStreamSynchronize(stream));
    for (int i = 0; i < n; ++i) CHECK(out[i] == y[i] + 2 * (a * x[i]));
  }
  CU_OK(cuGraphExecDestroy(exec));
  CU_OK(cuGraphDestroy(graph));

  // Capture: one cuLaunchKernel becomes one kernel node; its a changes to -1
  // in the executable graph only.
  CU_OK(cuMemcpyHtoD(dy, y.data(), n * sizeof(float)));
  CU_OK(cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL));
  CU_OK(cuLaunchKernel(saxpy, kp.gridDimX, 1, 1, 256, 1, 1, 0, stream, args, nullptr));
  CUstreamCaptureStatus status;
  CU_OK(cuStreamIsCapturing(stream, &status));
  CHECK(status == CU_STREAM_CAPTURE_STATUS_ACTIVE);
  CU_OK(cuStreamEndCapture(stream, &graph));
  CUgraphNode node;
  count = 1;
  CU_OK(cuGraphGetNodes(graph, &node, &count));
  CHECK(count == 1);
  CU_OK(cuGraphInstantiate(&exec, graph, 0));
  float minus_one = -1.0f;
  void* new_args[] = {&minus_one, &dx, &dy, &n_arg};
  kp.kernelParams = new_args;
  CU_OK(cuGraphExecKernelNodeSetParams(exec, node, &kp));
  CU_OK(cuGraphLaunch(exec, stream));
  CU_OK(cuStreamSynchronize(stream));
  CU_OK(cuMemcpyDtoH(out.data(), dy, n * sizeof(float)));
  for (int i = 0; i < n; ++i) CHECK(out[i] == y[i] - x[i]);
  CU_OK(cuGraphExecDestroy(exec));
  CU_OK(cuGraphDestroy(graph));
  std::printf("PASS\n");
  return 0;
}
