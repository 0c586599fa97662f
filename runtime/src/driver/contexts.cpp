// Devices and primary contexts as a CUDA runtime manages them: identity
// (UUID, context ID), the primary context's state and flags.
#include <cstring>

#include "driver/driver_internal.h"
#include "engine/access_policies.h"

using namespace cnuas::cuda;
using namespace cnuas::cuda::driver;

extern "C" {

// The bytes cudaDeviceProp::uuid holds for the device.
CUresult cuDeviceGetUuid_v2(void* uuid, CUdevice device) {
  DRIVER_ENTER();
  if (!uuid) return kInvalidValue;
  if (device < 0 || device >= rt.device_count()) return kInvalidDevice;
  cudaDeviceProp p;
  rt.fill_properties(p, device);
  std::memcpy(uuid, p.uuid.bytes, 16);
  return kSuccess;
}

CUresult cuDeviceGetUuid(void* uuid, CUdevice device) {
  return cuDeviceGetUuid_v2(uuid, device);
}

// A context's ID, unique in the process: here one per device, from 1.
CUresult cuCtxGetId(CUcontext context, unsigned long long* id) {
  DRIVER_ENTER();
  if (!id) return kInvalidValue;
  const int d = context ? device_of(context) : rt.context_device();
  if (d < 0 || d >= rt.device_count()) return kInvalidContext;
  *id = static_cast<unsigned long long>(d) + 1;
  return kSuccess;
}

// The primary context is active from the first time it is retained or made
// current; its flags (scheduling, CU_CTX_MAP_HOST...) are kept and reported.
CUresult cuDevicePrimaryCtxGetState(CUdevice device, unsigned* flags, int* active) {
  DRIVER_ENTER();
  if (!flags || !active) return kInvalidValue;
  if (device < 0 || device >= rt.device_count()) return kInvalidDevice;
  *flags = rt.device(device).flags;
  *active = 1;
  return kSuccess;
}

CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice device, unsigned flags) {
  DRIVER_ENTER();
  if (device < 0 || device >= rt.device_count()) return kInvalidDevice;
  if (flags & ~0x1Fu) return kInvalidValue;  // scheduling (0x7), map host (0x8), lmem (0x10)
  rt.device(device).flags = flags;
  return kSuccess;
}

CUresult cuCtxGetFlags(unsigned* flags) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  if (!flags) return kInvalidValue;
  *flags = rt.device(context_device).flags;
  return kSuccess;
}

// Contexts here are CUDA 3.2-style (and later) contexts.
CUresult cuCtxGetApiVersion(CUcontext context, unsigned* version) {
  DRIVER_ENTER();
  if (!version) return kInvalidValue;
  const int d = context ? device_of(context) : rt.context_device();
  if (d < 0 || d >= rt.device_count()) return kInvalidContext;
  *version = 3020;
  return kSuccess;
}

// CUlimit: stack, printf FIFO, heap and the persisting L2 set-aside are the
// runtime's (cudaDeviceSetLimit); the others read as on a GPU's ordinary
// context: the device runtime's defaults, not a CUDA-in-graphics (CIG) context.
CUresult cuCtxGetLimit(std::size_t* value, int limit) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  if (!value) return kInvalidValue;
  switch (limit) {
    case 0:
      *value = rt.stack_bytes;
      return kSuccess;
    case 1:
      *value = rt.printf_fifo_bytes;
      return kSuccess;
    case 2:
      *value = rt.heap_bytes;
      return kSuccess;
    case 3:  // CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH
      *value = 2;
      return kSuccess;
    case 4:  // CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT
      *value = 2048;
      return kSuccess;
    case 5:  // CU_LIMIT_MAX_L2_FETCH_GRANULARITY
      *value = rt.access_policies().fetch_granularity(context_device);
      return kSuccess;
    case 6:  // CU_LIMIT_PERSISTING_L2_CACHE_SIZE
      *value = rt.access_policies().persisting_limit(context_device);
      return kSuccess;
    case 8:  // CU_LIMIT_CIG_ENABLED
    case 9:  // CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED
      *value = 0;
      return kSuccess;
    default:
      return kUnsupportedLimit;
  }
}

CUresult cuCtxSetLimit(int limit, std::size_t value) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  switch (limit) {
    case 0:
      rt.stack_bytes = value;
      return kSuccess;
    case 1:
      rt.printf_fifo_bytes = value;
      return kSuccess;
    case 2:
      rt.heap_bytes = value;
      return kSuccess;
    case 5:
      return rt.access_policies().set_fetch_granularity(context_device, value) ? kSuccess
                                                                               : kInvalidValue;
    case 6:
      rt.access_policies().set_persisting_limit(context_device, value);
      return kSuccess;
    default:
      return kUnsupportedLimit;
  }
}

// Frees the device and managed memory of the device's primary context and
// destroys its streams and events (engine/device_reset.cpp); the context stays
// usable and the next call starts from that clean state. Unlike other calls it
// works while a kernel's fault sticks: resetting clears it.
CUresult cuDevicePrimaryCtxReset_v2(CUdevice device) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  if (!Runtime::initialized()) return kNotInitialized;
  Runtime& rt = Runtime::get();
  if (rt.timeline().in_effect()) return kNotPermitted;
  if (device < 0 || device >= rt.device_count()) return kInvalidDevice;
  rt.reset_device(device);
  return kSuccess;
}

// The name before CUDA 11.0; the same call.
CUresult cuDevicePrimaryCtxReset(CUdevice device) {
  return cuDevicePrimaryCtxReset_v2(device);
}

// The 7.0 form, before primary contexts had a reference count to release.
CUresult cuDevicePrimaryCtxRelease(CUdevice device) {
  return cuDevicePrimaryCtxRelease_v2(device);
}

// CUDA 13's form: synchronize a given context, or the current one (NULL).
CUresult cuCtxSynchronize_v2(CUcontext context) {
  DRIVER_ENTER();
  const int d = context ? device_of(context) : rt.context_device();
  if (d < 0 || d >= rt.device_count()) return kInvalidContext;
  rt.timeline().wait_all(d);
  return driver_code(rt.sticky());
}

}  // extern "C"
