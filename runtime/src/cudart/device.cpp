// Device management, versions and error reporting.
#include <cstring>

#include "cudart/entry.h"
#include "cudart/error_names.h"
#include "engine/access_policies.h"

using namespace cnuas::cuda;

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
  CUDART_ENTER();
  if (!count) return rt.record(cudaErrorInvalidValue);
  *count = rt.device_count();
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  CUDART_ENTER();
  if (!device) return rt.record(cudaErrorInvalidValue);
  *device = rt.current_device();
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  CUDART_ENTER();
  return rt.set_device(device);
}

cudaError_t cudaInitDevice(int device, unsigned, unsigned) {
  CUDART_ENTER();
  if (device < 0 || device >= rt.device_count()) return rt.record(cudaErrorInvalidDevice);
  return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  CUDART_ENTER();
  if (!prop) return rt.record(cudaErrorInvalidValue);
  if (device < 0 || device >= rt.device_count()) return rt.record(cudaErrorInvalidDevice);
  rt.fill_properties(*prop, device);
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, int attr, int device) {
  CUDART_ENTER();
  return rt.record(rt.attribute(value, attr, device));
}

cudaError_t cudaSetDeviceFlags(unsigned flags) {
  CUDART_ENTER();
  // Scheduling and host-mapping flags: every flag combination CUDA accepts is
  // accepted; the simulated host does not spin, yield or block differently.
  if (flags & ~0x1Fu) return rt.record(cudaErrorInvalidValue);
  rt.device(rt.current_device()).flags = flags;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned* flags) {
  CUDART_ENTER();
  if (!flags) return rt.record(cudaErrorInvalidValue);
  *flags = rt.device(rt.current_device()).flags;
  return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() {
  CUDART_ENTER_STICKY();
  CUDART_CAPTURE_UNSAFE();
  return rt.synchronize_device();
}

// What cuDevicePrimaryCtxReset does to the current device's primary context
// (engine/device_reset.cpp), a sticky fault included.
cudaError_t cudaDeviceReset() {
  CUDART_ENTER();
  rt.reset_device(rt.current_device());
  return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  CUDART_ENTER();
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int* can, int device, int peer) {
  CUDART_ENTER();
  if (!can) return rt.record(cudaErrorInvalidValue);
  if (device < 0 || device >= rt.device_count() || peer < 0 || peer >= rt.device_count())
    return rt.record(cudaErrorInvalidDevice);
  *can = rt.can_access_peer(device, peer) ? 1 : 0;
  return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned flags) {
  CUDART_ENTER_STICKY();
  if (flags != 0) return rt.record(cudaErrorInvalidValue);
  return rt.enable_peer(peer);
}

cudaError_t cudaDeviceDisablePeerAccess(int peer) {
  CUDART_ENTER_STICKY();
  return rt.disable_peer(peer);
}

cudaError_t cudaDeviceSetLimit(int limit, std::size_t value) {
  CUDART_ENTER();
  switch (limit) {
    case 0:
      rt.stack_bytes = value;
      return cudaSuccess;
    case 1:
      rt.printf_fifo_bytes = value;
      return cudaSuccess;
    case 2:
      rt.heap_bytes = value;
      return cudaSuccess;
    case abi::kLimitPersistingL2CacheSize:
      rt.access_policies().set_persisting_limit(rt.current_device(), value);
      return cudaSuccess;
    case abi::kLimitMaxL2FetchGranularity:
      return rt.access_policies().set_fetch_granularity(rt.current_device(), value)
                 ? cudaSuccess
                 : rt.record(cudaErrorInvalidValue);
    default:
      return rt.record(215);  // cudaErrorUnsupportedLimit
  }
}

cudaError_t cudaDeviceGetLimit(std::size_t* value, int limit) {
  CUDART_ENTER();
  if (!value) return rt.record(cudaErrorInvalidValue);
  switch (limit) {
    case 0:
      *value = rt.stack_bytes;
      return cudaSuccess;
    case 1:
      *value = rt.printf_fifo_bytes;
      return cudaSuccess;
    case 2:
      *value = rt.heap_bytes;
      return cudaSuccess;
    case abi::kLimitPersistingL2CacheSize:
      *value = rt.access_policies().persisting_limit(rt.current_device());
      return cudaSuccess;
    case abi::kLimitMaxL2FetchGranularity:
      *value = rt.access_policies().fetch_granularity(rt.current_device());
      return cudaSuccess;
    default:
      return rt.record(215);
  }
}

// Cache preferences are hints CUDA may ignore; the simulated parts have no
// configurable L1/shared split, so they are recorded nowhere.
cudaError_t cudaDeviceSetCacheConfig(int) {
  CUDART_ENTER();
  return cudaSuccess;
}

cudaError_t cudaDeviceGetCacheConfig(int* config) {
  CUDART_ENTER();
  if (!config) return rt.record(cudaErrorInvalidValue);
  *config = 0;
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int* version) {
  if (!version) return cudaErrorInvalidValue;
  *version = 13000;
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* version) {
  if (!version) return cudaErrorInvalidValue;
  *version = 13000;
  return cudaSuccess;
}

cudaError_t cudaGetLastError() {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  return Runtime::get().take_last_error();
}

cudaError_t cudaPeekAtLastError() {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  return Runtime::get().peek_last_error();
}

const char* cudaGetErrorName(cudaError_t error) {
  return error_name(error);
}

const char* cudaGetErrorString(cudaError_t error) {
  return error_description(error);
}

cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp*) {
  CUDART_ENTER();
  if (!device) return rt.record(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

}  // extern "C"
