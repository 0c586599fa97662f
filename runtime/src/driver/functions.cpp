// A kernel's attributes and occupancy, through a CUfunction or a CUkernel
// (the same handle here, see library.cpp): what cuBLAS and cuDNN ask before
// choosing a launch configuration.
#include <algorithm>

#include "driver/driver_internal.h"

using namespace cnuas::cuda;
using namespace cnuas::cuda::driver;

namespace {

// CUfunction_attribute numbers (shared with cudaFuncAttribute where both exist).
enum : int {
  kMaxThreadsPerBlock = 0,
  kSharedSizeBytes = 1,
  kConstSizeBytes = 2,
  kLocalSizeBytes = 3,
  kNumRegs = 4,
  kPtxVersion = 5,
  kBinaryVersion = 6,
  kCacheModeCa = 7,
  kMaxDynamicSharedSizeBytes = 8,
  kPreferredSharedMemoryCarveout = 9,
  kClusterSizeMustBeSet = 10,
  kRequiredClusterWidth = 11,
  kRequiredClusterHeight = 12,
  kRequiredClusterDepth = 13,
  kNonPortableClusterSizeAllowed = 14,
  kClusterSchedulingPolicyPreference = 15,
};

// The kernel behind a handle, its module read; nullptr (and `*result` set) if none.
Kernel* loaded_kernel(Runtime& rt, void* handle, CUresult* result) {
  *result = kSuccess;
  if (!handle) {
    *result = kInvalidHandle;
    return nullptr;
  }
  auto* k = static_cast<Kernel*>(handle);
  if (const cudaError_t e = rt.ensure_loaded(*k->module)) {
    *result = driver_code(e);
    return nullptr;
  }
  if (!rt.function(*k)) {
    *result = kNotFound;
    return nullptr;
  }
  return k;
}

CUresult get_attribute(Runtime& rt, int* value, int attribute, void* handle) {
  if (!value) return kInvalidValue;
  CUresult r = kSuccess;
  Kernel* k = loaded_kernel(rt, handle, &r);
  if (!k) return r;
  cudaFuncAttributes a;
  if (const cudaError_t e = rt.func_attributes(*k, &a)) return driver_code(e);
  switch (attribute) {
    case kMaxThreadsPerBlock:
      *value = a.maxThreadsPerBlock;
      break;
    case kSharedSizeBytes:
      *value = static_cast<int>(a.sharedSizeBytes);
      break;
    case kConstSizeBytes:
      *value = static_cast<int>(a.constSizeBytes);
      break;
    case kLocalSizeBytes:
      *value = static_cast<int>(a.localSizeBytes);
      break;
    case kNumRegs:
      *value = a.numRegs;
      break;
    case kPtxVersion:
      *value = a.ptxVersion;
      break;
    case kBinaryVersion:
      *value = a.binaryVersion;
      break;
    case kCacheModeCa:
      *value = 0;
      break;
    case kMaxDynamicSharedSizeBytes:
      *value = a.maxDynamicSharedSizeBytes;
      break;
    case kPreferredSharedMemoryCarveout:
      *value = k->carveout;
      break;
    case kClusterSizeMustBeSet:
      *value = a.requiredClusterWidth > 0 ? 1 : 0;
      break;
    case kRequiredClusterWidth:
      *value = a.requiredClusterWidth;
      break;
    case kRequiredClusterHeight:
      *value = a.requiredClusterHeight;
      break;
    case kRequiredClusterDepth:
      *value = a.requiredClusterDepth;
      break;
    case kNonPortableClusterSizeAllowed:
      *value = k->non_portable_clusters ? 1 : 0;
      break;
    case kClusterSchedulingPolicyPreference:
      *value = 0;  // CU_CLUSTER_SCHEDULING_POLICY_DEFAULT
      break;
    default:
      return kInvalidValue;
  }
  return kSuccess;
}

CUresult set_attribute(Runtime& rt, void* handle, int attribute, int value) {
  CUresult r = kSuccess;
  Kernel* k = loaded_kernel(rt, handle, &r);
  if (!k) return r;
  switch (attribute) {
    case kMaxDynamicSharedSizeBytes: {
      cudaDeviceProp p;
      rt.fill_properties(p, rt.current_device());
      if (value < 0 || static_cast<std::size_t>(value) + rt.function(*k)->static_shared_bytes >
                           p.sharedMemPerBlockOptin)
        return kInvalidValue;
      k->max_dynamic_shared = value;
      return kSuccess;
    }
    case kPreferredSharedMemoryCarveout:
      if (value < -1 || value > 100) return kInvalidValue;
      k->carveout = value;  // a hint: the simulated SMs have no L1/shared split to make
      return kSuccess;
    case kNonPortableClusterSizeAllowed:
      if (value != 0 && value != 1) return kInvalidValue;
      k->non_portable_clusters = value != 0;
      return kSuccess;
    case kRequiredClusterWidth:
    case kRequiredClusterHeight:
    case kRequiredClusterDepth:
    case kClusterSchedulingPolicyPreference:
      return kSuccess;  // hints for the block scheduler; launches give their cluster shape
    default:
      return kInvalidValue;  // read-only or unknown, as the driver answers
  }
}

CUresult max_active_blocks(Runtime& rt, int* blocks, void* function, int block_size,
                           std::size_t shared, unsigned flags) {
  if (!blocks || block_size <= 0 || flags > 1) return kInvalidValue;
  CUresult r = kSuccess;
  Kernel* k = loaded_kernel(rt, function, &r);
  if (!k) return r;
  *blocks = rt.max_active_blocks(*k, block_size, shared);
  return kSuccess;
}

}  // namespace

extern "C" {

CUresult cuFuncGetAttribute(int* value, int attribute, CUfunction function) {
  DRIVER_ENTER();
  return get_attribute(rt, value, attribute, function);
}

CUresult cuFuncSetAttribute(CUfunction function, int attribute, int value) {
  DRIVER_ENTER();
  return set_attribute(rt, function, attribute, value);
}

// One device in this context, so the device argument only has to exist.
CUresult cuKernelGetAttribute(int* value, int attribute, void* kernel, CUdevice device) {
  DRIVER_ENTER();
  if (device < 0 || device >= rt.device_count()) return kInvalidDevice;
  return get_attribute(rt, value, attribute, kernel);
}

CUresult cuKernelSetAttribute(int attribute, int value, void* kernel, CUdevice device) {
  DRIVER_ENTER();
  if (device < 0 || device >= rt.device_count()) return kInvalidDevice;
  return set_attribute(rt, kernel, attribute, value);
}

// Cache and shared memory configurations are hints the simulated SMs have no
// use for (no configurable L1/shared split).
CUresult cuFuncSetCacheConfig(CUfunction function, int config) {
  DRIVER_ENTER();
  if (config < 0 || config > 3) return kInvalidValue;
  CUresult r = kSuccess;
  return loaded_kernel(rt, function, &r) ? kSuccess : r;
}

CUresult cuKernelSetCacheConfig(void* kernel, int config, CUdevice device) {
  if (device < 0) return kInvalidDevice;
  return cuFuncSetCacheConfig(static_cast<CUfunction>(kernel), config);
}

CUresult cuFuncSetSharedMemConfig(CUfunction function, int config) {
  DRIVER_ENTER();
  if (config < 0 || config > 2) return kInvalidValue;
  CUresult r = kSuccess;
  return loaded_kernel(rt, function, &r) ? kSuccess : r;
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, CUfunction function,
                                                              int block_size, std::size_t shared,
                                                              unsigned flags) {
  DRIVER_ENTER();
  return max_active_blocks(rt, blocks, function, block_size, shared, flags);
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, CUfunction function,
                                                     int block_size, std::size_t shared) {
  DRIVER_ENTER();
  return max_active_blocks(rt, blocks, function, block_size, shared, 0);
}

// The block size (a multiple of the warp size up to the kernel's limit) that
// keeps the most threads resident per SM, and the grid that fills the device
// with it; `shared_of` gives the dynamic shared memory a block size needs.
CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int* min_grid, int* block, CUfunction function,
                                                   std::size_t (*shared_of)(int),
                                                   std::size_t shared, int limit, unsigned flags) {
  DRIVER_ENTER();
  if (!min_grid || !block || flags > 1) return kInvalidValue;
  CUresult r = kSuccess;
  Kernel* k = loaded_kernel(rt, function, &r);
  if (!k) return r;
  cudaFuncAttributes a;
  rt.func_attributes(*k, &a);
  int most = a.maxThreadsPerBlock;
  if (limit > 0) most = std::min(most, limit);
  int best_block = 0, best_threads = 0, best_blocks = 0;
  for (int b = most - most % 32; b >= 32; b -= 32) {
    const std::size_t dynamic = shared_of ? shared_of(b) : shared;
    const int per_sm = rt.max_active_blocks(*k, b, dynamic);
    if (per_sm * b > best_threads) {
      best_threads = per_sm * b;
      best_block = b;
      best_blocks = per_sm;
    }
  }
  *block = best_block;
  *min_grid = best_blocks * static_cast<int>(rt.device(rt.current_device()).desc.sm_count);
  return kSuccess;
}

CUresult cuOccupancyMaxPotentialBlockSize(int* min_grid, int* block, CUfunction function,
                                          std::size_t (*shared_of)(int), std::size_t shared,
                                          int limit) {
  return cuOccupancyMaxPotentialBlockSizeWithFlags(min_grid, block, function, shared_of, shared,
                                                   limit, 0);
}

// The dynamic shared memory each of `blocks` resident blocks may have.
CUresult cuOccupancyAvailableDynamicSMemPerBlock(std::size_t* bytes, CUfunction function,
                                                 int blocks, int block_size) {
  DRIVER_ENTER();
  if (!bytes || blocks <= 0 || block_size <= 0) return kInvalidValue;
  CUresult r = kSuccess;
  Kernel* k = loaded_kernel(rt, function, &r);
  if (!k) return r;
  cudaDeviceProp p;
  rt.fill_properties(p, rt.current_device());
  const std::size_t per_block = p.sharedMemPerMultiprocessor / static_cast<std::size_t>(blocks);
  const std::size_t used = rt.function(*k)->static_shared_bytes + p.reservedSharedMemPerBlock;
  *bytes = per_block > used ? std::min(per_block - used, p.sharedMemPerBlockOptin) : 0;
  return kSuccess;
}

}  // extern "C"
