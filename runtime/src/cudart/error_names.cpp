#include "cudart/error_names.h"

namespace cnuas::cuda {
namespace {

struct ErrorText {
  int code;
  const char* name;
  const char* driver_name;
  const char* description;
};

// Runtime and driver codes coincide for the errors the simulator returns.
constexpr ErrorText kErrors[] = {
    {0, "cudaSuccess", "CUDA_SUCCESS", "no error"},
    {1, "cudaErrorInvalidValue", "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "cudaErrorMemoryAllocation", "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "cudaErrorInitializationError", "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {9, "cudaErrorInvalidConfiguration", "CUDA_ERROR_INVALID_VALUE",
     "invalid configuration argument"},
    {12, "cudaErrorInvalidPitchValue", "CUDA_ERROR_INVALID_VALUE", "invalid pitch argument"},
    {13, "cudaErrorInvalidSymbol", "CUDA_ERROR_NOT_FOUND", "invalid device symbol"},
    {17, "cudaErrorInvalidDevicePointer", "CUDA_ERROR_INVALID_VALUE", "invalid device pointer"},
    {18, "cudaErrorInvalidTexture", "CUDA_ERROR_INVALID_VALUE", "invalid texture reference"},
    {20, "cudaErrorInvalidChannelDescriptor", "CUDA_ERROR_INVALID_VALUE",
     "invalid channel descriptor"},
    {21, "cudaErrorInvalidMemcpyDirection", "CUDA_ERROR_INVALID_VALUE",
     "invalid copy direction for memcpy"},
    {52, "cudaErrorMissingConfiguration", "CUDA_ERROR_INVALID_VALUE",
     "__global__ function call is not configured"},
    {98, "cudaErrorInvalidDeviceFunction", "CUDA_ERROR_INVALID_HANDLE", "invalid device function"},
    {100, "cudaErrorNoDevice", "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "cudaErrorInvalidDevice", "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {200, "cudaErrorInvalidKernelImage", "CUDA_ERROR_INVALID_IMAGE",
     "device kernel image is invalid"},
    {201, "cudaErrorDeviceUninitialized", "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {209, "cudaErrorNoKernelImageForDevice", "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {214, "cudaErrorECCUncorrectable", "CUDA_ERROR_ECC_UNCORRECTABLE",
     "uncorrectable ECC error encountered"},
    {215, "cudaErrorUnsupportedLimit", "CUDA_ERROR_UNSUPPORTED_LIMIT", "unsupported limit"},
    {217, "cudaErrorPeerAccessUnsupported", "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
     "peer access is not supported between these two devices"},
    {218, "cudaErrorInvalidPtx", "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {304, "cudaErrorOperatingSystem", "CUDA_ERROR_OPERATING_SYSTEM",
     "OS call failed or operation not supported on this OS"},
    {400, "cudaErrorInvalidResourceHandle", "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {401, "cudaErrorIllegalState", "CUDA_ERROR_ILLEGAL_STATE",
     "the operation cannot be performed in the present state"},
    {500, "cudaErrorSymbolNotFound", "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {600, "cudaErrorNotReady", "CUDA_ERROR_NOT_READY", "device not ready"},
    {700, "cudaErrorIllegalAddress", "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {701, "cudaErrorLaunchOutOfResources", "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {702, "cudaErrorLaunchTimeout", "CUDA_ERROR_LAUNCH_TIMEOUT",
     "the launch timed out and was terminated"},
    {704, "cudaErrorPeerAccessAlreadyEnabled", "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
     "peer access is already enabled"},
    {705, "cudaErrorPeerAccessNotEnabled", "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED",
     "peer access has not been enabled"},
    {710, "cudaErrorAssert", "CUDA_ERROR_ASSERT", "device-side assert triggered"},
    {712, "cudaErrorHostMemoryAlreadyRegistered", "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
     "part or all of the requested memory range is already mapped"},
    {713, "cudaErrorHostMemoryNotRegistered", "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
     "pointer does not correspond to a registered memory region"},
    {716, "cudaErrorMisalignedAddress", "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
    {719, "cudaErrorLaunchFailure", "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {720, "cudaErrorCooperativeLaunchTooLarge", "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
     "too many blocks in cooperative launch"},
    {800, "cudaErrorNotPermitted", "CUDA_ERROR_NOT_PERMITTED", "operation not permitted"},
    {801, "cudaErrorNotSupported", "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {900, "cudaErrorStreamCaptureUnsupported", "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED",
     "operation not permitted when stream is capturing"},
    {901, "cudaErrorStreamCaptureInvalidated", "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED",
     "operation failed due to a previous error during capture"},
    {903, "cudaErrorStreamCaptureUnmatched", "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED",
     "capture was not initiated in this stream"},
    {904, "cudaErrorStreamCaptureUnjoined", "CUDA_ERROR_STREAM_CAPTURE_UNJOINED",
     "capture sequence contains a fork that was not joined to the primary stream"},
    {905, "cudaErrorStreamCaptureIsolation", "CUDA_ERROR_STREAM_CAPTURE_ISOLATION",
     "dependency created on uncaptured work in another stream"},
    {906, "cudaErrorStreamCaptureImplicit", "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT",
     "operation would make the legacy stream depend on a capturing blocking stream"},
    {907, "cudaErrorCapturedEvent", "CUDA_ERROR_CAPTURED_EVENT",
     "operation not permitted on an event last recorded in a capturing stream"},
    {908, "cudaErrorStreamCaptureWrongThread", "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD",
     "attempt to terminate a thread-local capture sequence from another thread"},
    {910, "cudaErrorGraphExecUpdateFailure", "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE",
     "the graph update was not performed because it included changes which violated "
     "constraints specific to instantiated graph update"},
    {999, "cudaErrorUnknown", "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const ErrorText* lookup(int code) {
  for (const ErrorText& e : kErrors)
    if (e.code == code) return &e;
  return nullptr;
}

}  // namespace

const char* error_name(int code) {
  const ErrorText* e = lookup(code);
  return e ? e->name : "cudaErrorUnknown";
}

const char* error_description(int code) {
  const ErrorText* e = lookup(code);
  return e ? e->description : "unrecognized error code";
}

const char* driver_error_name(int code) {
  const ErrorText* e = lookup(code);
  return e ? e->driver_name : "CUDA_ERROR_UNKNOWN";
}

}  // namespace cnuas::cuda
