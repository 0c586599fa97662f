// The CUDA 13 ABI of virtual memory management, stream-ordered memory pools,
// IPC handles and access policy windows, as a program compiled against the
// CUDA 13 headers passes it (the runtime and driver structures share their
// layouts). Written from the documented ABI; kept apart from cuda_abi.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cuda_abi.h"

namespace cnuas::cuda::abi {

// Codes the runtime and the driver number alike.
constexpr cudaError_t kErrorDeviceUninitialized = 201;  // CUDA_ERROR_INVALID_CONTEXT
constexpr cudaError_t kErrorMapBufferObjectFailed = 205;
constexpr cudaError_t kErrorUnsupportedLimit = 215;
constexpr cudaError_t kErrorNotPermitted = 800;

// cudaMemLocationType, cudaMemAllocationType, cudaMemAllocationHandleType,
// cudaMemAccessFlags, cudaMemAllocationGranularity_flags.
constexpr int kLocationDevice = 1, kLocationHost = 2, kLocationHostNuma = 3;
constexpr int kAllocationPinned = 1, kAllocationManaged = 2;
constexpr int kHandleNone = 0, kHandlePosixFd = 1;
constexpr int kAccessNone = 0, kAccessRead = 1, kAccessReadWrite = 3;
constexpr int kGranularityMinimum = 0, kGranularityRecommended = 1;

// cudaMemPoolAttr / CUmemPool_attribute.
enum PoolAttribute : int {
  kReuseFollowEventDependencies = 1,
  kReuseAllowOpportunistic = 2,
  kReuseAllowInternalDependencies = 3,
  kReleaseThreshold = 4,
  kReservedMemCurrent = 5,
  kReservedMemHigh = 6,
  kUsedMemCurrent = 7,
  kUsedMemHigh = 8,
};

struct MemLocation {
  int type;
  int id;
};
struct MemAccessDesc {
  MemLocation location;
  int flags;
};
struct MemAllocationProp {
  int type;
  int requested_handle_types;
  MemLocation location;
  void* win32_metadata;
  struct {
    unsigned char compression_type;
    unsigned char gpu_direct_rdma_capable;
    unsigned short usage;
    unsigned char reserved[4];
  } alloc_flags;
};
struct MemPoolProps {
  int alloc_type;
  int handle_types;
  MemLocation location;
  void* win32_security_attributes;
  std::size_t max_size;
  unsigned short usage;
  unsigned char reserved[54];
};
struct MemPoolPtrExportData {
  unsigned char reserved[64];
};
struct IpcHandle {
  char reserved[64];
};

// cudaAccessProperty and cudaAccessPolicyWindow.
constexpr int kAccessPropertyNormal = 0, kAccessPropertyStreaming = 1,
              kAccessPropertyPersisting = 2;
struct AccessPolicyWindow {
  void* base_ptr;
  std::size_t num_bytes;
  float hit_ratio;
  int hit_prop;
  int miss_prop;
};

// cudaLaunchAttributeID (= cudaStreamAttrID, CUlaunchAttributeID) and the
// 64-byte value union (cudaLaunchAttributeValue = cudaStreamAttrValue).
constexpr int kAttributeAccessPolicyWindow = 1, kAttributeSynchronizationPolicy = 3,
              kAttributePriority = 8;
union LaunchAttributeValue {
  char pad[64];
  AccessPolicyWindow access_policy_window;
  int sync_policy;
  int priority;
};

// cudaLimit / CUlimit.
constexpr int kLimitMaxL2FetchGranularity = 5;
constexpr int kLimitPersistingL2CacheSize = 6;

static_assert(sizeof(MemAllocationProp) == 32, "CUmemAllocationProp layout");
static_assert(sizeof(MemPoolProps) == 88, "CUmemPoolProps layout");
static_assert(sizeof(MemAccessDesc) == 12, "CUmemAccessDesc layout");
static_assert(sizeof(AccessPolicyWindow) == 32, "cudaAccessPolicyWindow layout");
static_assert(sizeof(LaunchAttributeValue) == 64, "cudaLaunchAttributeValue layout");

}  // namespace cnuas::cuda::abi
