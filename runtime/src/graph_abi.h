// The CUDA 13 graph ABI: handles and structures of the graph and stream
// capture calls, laid out as a program compiled against the CUDA 13 headers
// passes them (runtime and driver forms). Written from the documented ABI.
#pragma once

#include "cuda_abi.h"

extern "C" {

struct CUgraphNode_st;
struct CUuserObject_st;
typedef CUgraphNode_st* cudaGraphNode_t;
typedef CUuserObject_st* cudaUserObject_t;
typedef unsigned long long cudaGraphConditionalHandle;

enum : int {
  cudaErrorOperatingSystem = 304,
  cudaErrorStreamCaptureUnjoined = 904,
  cudaErrorStreamCaptureIsolation = 905,
  cudaErrorCapturedEvent = 907,
  cudaErrorStreamCaptureWrongThread = 908,
  cudaErrorGraphExecUpdateFailure = 910,
};

enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2
};

struct cudaGraphEdgeData {
  unsigned char from_port, to_port, type;
  unsigned char reserved[5];
};

struct cudaKernelNodeParams {
  void* func;
  dim3 gridDim, blockDim;
  unsigned sharedMemBytes;
  void** kernelParams;
  void** extra;
};
struct cudaMemsetParams {
  void* dst;
  size_t pitch;
  unsigned value, elementSize;
  size_t width, height;
};
struct cudaHostNodeParams {
  cudaHostFn_t fn;
  void* userData;
};
struct cudaMemcpyNodeParams {
  int flags;
  int reserved[3];
  cudaMemcpy3DParms copyParams;
};
struct cudaChildGraphNodeParams {
  cudaGraph_t graph;
  int ownership;  // cudaGraphChildGraphOwnershipClone (0) or Move (1)
};
struct cudaMemLocation {
  int type, id;
};
struct cudaMemAccessDesc {
  cudaMemLocation location;
  int flags;
};
struct cudaMemPoolProps {
  int allocType, handleTypes;
  cudaMemLocation location;
  void* win32SecurityAttributes;
  size_t maxSize;
  unsigned short usage;
  unsigned char reserved[54];
};
struct cudaMemAllocNodeParams {
  cudaMemPoolProps poolProps;
  const cudaMemAccessDesc* accessDescs;
  size_t accessDescCount;
  size_t bytesize;
  void* dptr;
};
struct cudaConditionalNodeParams {
  cudaGraphConditionalHandle handle;
  int type;  // cudaGraphConditionalNodeType
  unsigned size;
  cudaGraph_t* phGraph_out;
};
struct cudaGraphNodeParams {
  int type;  // cudaGraphNodeType
  int reserved0[3];
  union {
    long long reserved1[29];
    cudaKernelNodeParams kernel;
    cudaMemcpyNodeParams memcpy;
    cudaMemsetParams memset;
    cudaHostNodeParams host;
    cudaChildGraphNodeParams graph;
    cudaEvent_t eventWait;
    cudaEvent_t eventRecord;
    cudaMemAllocNodeParams alloc;
    void* free;
    cudaConditionalNodeParams conditional;
  };
  long long reserved2;
};
struct cudaGraphInstantiateParams {
  unsigned long long flags;
  cudaStream_t uploadStream;
  cudaGraphNode_t errNode_out;
  int result_out;  // cudaGraphInstantiateResult
};
struct cudaGraphExecUpdateResultInfo {
  int result;  // cudaGraphExecUpdateResult
  cudaGraphNode_t errorNode;
  cudaGraphNode_t errorFromNode;
};

// ---- driver forms ----
typedef CUgraph_st* CUgraph;
typedef CUgraphNode_st* CUgraphNode;
typedef CUgraphExec_st* CUgraphExec;
struct CUDA_KERNEL_NODE_PARAMS_v2 {
  CUfunction func;
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void** kernelParams;
  void** extra;
  void* kern;  // CUkernel, used when func is NULL
  CUcontext ctx;
};
struct CUDA_MEMSET_NODE_PARAMS {
  CUdeviceptr dst;
  size_t pitch;
  unsigned value, elementSize;
  size_t width, height;
};
struct CUDA_HOST_NODE_PARAMS {
  cudaHostFn_t fn;
  void* userData;
};
struct CUDA_MEMCPY3D {
  size_t srcXInBytes, srcY, srcZ, srcLOD;
  int srcMemoryType;  // CUmemorytype: host 1, device 2, array 3, unified 4
  const void* srcHost;
  CUdeviceptr srcDevice;
  void* srcArray;
  void* reserved0;
  size_t srcPitch, srcHeight;
  size_t dstXInBytes, dstY, dstZ, dstLOD;
  int dstMemoryType;
  void* dstHost;
  CUdeviceptr dstDevice;
  void* dstArray;
  void* reserved1;
  size_t dstPitch, dstHeight;
  size_t WidthInBytes, Height, Depth;
};

}  // extern "C"

static_assert(sizeof(cudaGraphNodeParams) == 256, "cudaGraphNodeParams must match CUDA 13");
static_assert(sizeof(cudaKernelNodeParams) == 56, "cudaKernelNodeParams must match CUDA 13");
static_assert(sizeof(cudaMemsetParams) == 40, "cudaMemsetParams must match CUDA 13");
static_assert(sizeof(cudaMemAllocNodeParams) == 120, "cudaMemAllocNodeParams must match CUDA 13");
static_assert(sizeof(cudaConditionalNodeParams) == 24, "cudaConditionalNodeParams: CUDA 13");
static_assert(sizeof(cudaMemcpyNodeParams) == 176, "cudaMemcpyNodeParams must match CUDA 13");
static_assert(sizeof(cudaGraphInstantiateParams) == 32, "cudaGraphInstantiateParams: CUDA 13");
static_assert(sizeof(cudaGraphExecUpdateResultInfo) == 24, "cudaGraphExecUpdateResultInfo");
static_assert(sizeof(cudaGraphEdgeData) == 8, "cudaGraphEdgeData must match CUDA 13");
static_assert(sizeof(CUDA_KERNEL_NODE_PARAMS_v2) == 72, "CUDA_KERNEL_NODE_PARAMS_v2: CUDA 13");
static_assert(sizeof(CUDA_MEMCPY3D) == 200, "CUDA_MEMCPY3D must match CUDA 13");
