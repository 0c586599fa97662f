// cuCtxCreate with CUDA 13's CUctxCreateParams (cuCtxCreate_v4): a zero-filled
// struct asks for nothing optional and creates the context as NULL does;
// malformed parameters are CUDA_ERROR_INVALID_VALUE; execution affinity (an
// MPS feature) and CIG (a graphics client) are refused as the driver refuses
// them on a machine without either.
#include <cstring>

#include "cu_check.h"

int main() {
  CUctxCreateParams params;
  std::memset(&params, 0, sizeof params);
  CUcontext ctx = nullptr;
  CHECK(cuCtxCreate(&ctx, &params, 0, 0) == CUDA_ERROR_NOT_INITIALIZED);
  CU_OK(cuInit(0));
  CUdevice dev;
  CU_OK(cuDeviceGet(&dev, 0));

  CU_OK(cuCtxCreate(&ctx, &params, 0, dev));
  CHECK(ctx != nullptr);
  CUcontext current = nullptr;
  CU_OK(cuCtxGetCurrent(&current));
  CHECK(current == ctx);
  CUdevice of_ctx = -1;
  CU_OK(cuCtxGetDevice(&of_ctx));
  CHECK(of_ctx == dev);
  // The context works: 256 bytes set to 0x5a on the device come back.
  CUdeviceptr buffer;
  CU_OK(cuMemAlloc(&buffer, 256));
  CU_OK(cuMemsetD8(buffer, 0x5a, 256));
  unsigned char host[256];
  CU_OK(cuMemcpyDtoH(host, buffer, sizeof host));
  for (unsigned char b : host) CHECK(b == 0x5a);
  CU_OK(cuMemFree(buffer));
  CU_OK(cuCtxDestroy(ctx));

  CUcontext with_null = nullptr;
  CU_OK(cuCtxCreate(&with_null, nullptr, 0, dev));
  CHECK(with_null != nullptr);

  CUexecAffinityParam affinity;
  affinity.type = CU_EXEC_AFFINITY_TYPE_SM_COUNT;
  affinity.param.smCount.val = 8;
  params.numExecAffinityParams = -1;
  CHECK(cuCtxCreate(&ctx, &params, 0, dev) == CUDA_ERROR_INVALID_VALUE);
  params.numExecAffinityParams = 1;  // a count without an array
  CHECK(cuCtxCreate(&ctx, &params, 0, dev) == CUDA_ERROR_INVALID_VALUE);
  params.execAffinityParams = &affinity;
  CHECK(cuCtxCreate(&ctx, &params, 0, dev) == CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY);
  affinity.type = CU_EXEC_AFFINITY_TYPE_MAX;
  CHECK(cuCtxCreate(&ctx, &params, 0, dev) == CUDA_ERROR_INVALID_VALUE);
  std::memset(&params, 0, sizeof params);
  CUctxCigParam cig;
  cig.sharedDataType = CIG_DATA_TYPE_D3D12_COMMAND_QUEUE;
  cig.sharedData = &cig;
  params.cigParams = &cig;
  CHECK(cuCtxCreate(&ctx, &params, 0, dev) == CUDA_ERROR_NOT_SUPPORTED);
  std::printf("PASS\n");
  return 0;
}
