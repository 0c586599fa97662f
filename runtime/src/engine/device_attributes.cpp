// What a simulated device says about itself: cudaGetDeviceProperties and
// cudaDeviceGetAttribute / cuDeviceGetAttribute. Every figure comes from the
// platform's device description (name, compute capability, SMs, clock, memory,
// L2, bus width) or from the compute capability's architecture limits; a
// feature the simulator does not provide is answered 0, deliberately.
#include <cstdio>
#include <cstring>

#include "engine/access_policies.h"
#include "engine/runtime.h"

namespace cnuas::cuda {
namespace {

// Architecture limits by compute capability (CUDA programming guide,
// "Technical Specifications per Compute Capability").
struct ArchLimits {
  int max_blocks_per_sm;
  int max_threads_per_sm;
  std::size_t shared_per_sm;
  std::size_t shared_per_block_optin;
  int regs_per_sm;
};
ArchLimits limits_for(unsigned arch) {
  if (arch >= 100) return {32, 2048, 228 << 10, 227 << 10, 65536};
  if (arch >= 90) return {32, 2048, 228 << 10, 227 << 10, 65536};
  if (arch == 80) return {32, 2048, 164 << 10, 163 << 10, 65536};
  if (arch >= 86) return {16, 1536, 100 << 10, 99 << 10, 65536};
  if (arch >= 75) return {16, 1024, 64 << 10, 64 << 10, 65536};
  if (arch >= 70) return {32, 2048, 96 << 10, 96 << 10, 65536};
  return {32, 2048, 96 << 10, 48 << 10, 65536};
}

// FP32 over FP64 fused multiply-adds per SM per clock (programming guide,
// "Arithmetic Instructions" throughput table): the data-center parts x.0 run
// FP64 at half rate; 6.1/6.2 and 7.5 at 1/32, 8.6 onwards (not x.0) at 1/64.
int single_to_double_ratio(unsigned arch) {
  if (arch == 61 || arch == 62 || arch == 75) return 32;
  if (arch % 10 != 0 && arch >= 86) return 64;
  if (arch == 120) return 64;
  return 2;
}

// 1D textures over linear memory: 2^28 texels (programming guide).
constexpr int kMaxTexture1DLinear = 1 << 28;
// The simulated part has one memory synchronization domain: every fence
// orders every access.
constexpr int kMemSyncDomains = 1;

struct Facts {
  const cudaDeviceProp& p;
  const DeviceDesc& d;
};
using Answer = int (*)(const Facts&);
struct Row {
  int number;  // CUdevice_attribute / cudaDeviceAttr (the two enumerations share numbers)
  Answer answer;
};

int zero(const Facts&) {
  return 0;
}
int one(const Facts&) {
  return 1;
}

// Every attribute CUDA 13 numbers, 1 to 147 (CU_DEVICE_ATTRIBUTE_MAX is 148),
// in order; kRows[n - 1] answers attribute n, which a static_assert checks.
// The comment names CUDA's enumerator; "no" marks a feature the simulated
// part lacks.
constexpr Row kRows[] = {
    {1, [](const Facts& f) { return f.p.maxThreadsPerBlock; }},      // MaxThreadsPerBlock
    {2, [](const Facts& f) { return f.p.maxThreadsDim[0]; }},        // MaxBlockDimX
    {3, [](const Facts& f) { return f.p.maxThreadsDim[1]; }},        // MaxBlockDimY
    {4, [](const Facts& f) { return f.p.maxThreadsDim[2]; }},        // MaxBlockDimZ
    {5, [](const Facts& f) { return f.p.maxGridSize[0]; }},          // MaxGridDimX
    {6, [](const Facts& f) { return f.p.maxGridSize[1]; }},          // MaxGridDimY
    {7, [](const Facts& f) { return f.p.maxGridSize[2]; }},          // MaxGridDimZ
    {8, [](const Facts& f) { return int(f.p.sharedMemPerBlock); }},  // MaxSharedMemoryPerBlock
    {9, [](const Facts& f) { return int(f.p.totalConstMem); }},      // TotalConstantMemory
    {10, [](const Facts& f) { return f.p.warpSize; }},               // WarpSize
    {11, [](const Facts& f) { return int(f.p.memPitch); }},          // MaxPitch
    {12, [](const Facts& f) { return f.p.regsPerBlock; }},           // MaxRegistersPerBlock
    {13, [](const Facts& f) { return int(f.d.clock_khz); }},         // ClockRate (kHz)
    {14, [](const Facts& f) { return int(f.p.textureAlignment); }},  // TextureAlignment
    {15, [](const Facts& f) { return f.p.asyncEngineCount > 0 ? 1 : 0; }},  // GpuOverlap
    {16, [](const Facts& f) { return f.p.multiProcessorCount; }},           // MultiProcessorCount
    {17, zero},                                                 // KernelExecTimeout: no watchdog
    {18, [](const Facts& f) { return f.p.integrated; }},        // Integrated
    {19, [](const Facts& f) { return f.p.canMapHostMemory; }},  // CanMapHostMemory
    {20, zero},                                                 // ComputeMode: default
    {21, [](const Facts& f) { return f.p.maxTexture1D; }},      // MaxTexture1DWidth
    {22, [](const Facts& f) { return f.p.maxTexture2D[0]; }},   // MaxTexture2DWidth
    {23, [](const Facts& f) { return f.p.maxTexture2D[1]; }},   // MaxTexture2DHeight
    {24, [](const Facts& f) { return f.p.maxTexture3D[0]; }},   // MaxTexture3DWidth
    {25, [](const Facts& f) { return f.p.maxTexture3D[1]; }},   // MaxTexture3DHeight
    {26, [](const Facts& f) { return f.p.maxTexture3D[2]; }},   // MaxTexture3DDepth
    {27, [](const Facts& f) { return f.p.maxTexture2DLayered[0]; }},  // MaxTexture2DLayeredWidth
    {28, [](const Facts& f) { return f.p.maxTexture2DLayered[1]; }},  // MaxTexture2DLayeredHeight
    {29, [](const Facts& f) { return f.p.maxTexture2DLayered[2]; }},  // MaxTexture2DLayeredLayers
    {30, [](const Facts& f) { return int(f.p.surfaceAlignment); }},   // SurfaceAlignment
    {31, [](const Facts& f) { return f.p.concurrentKernels; }},       // ConcurrentKernels
    {32, [](const Facts& f) { return f.p.ECCEnabled; }},              // EccEnabled
    {33, [](const Facts& f) { return f.p.pciBusID; }},                // PciBusId
    {34, [](const Facts& f) { return f.p.pciDeviceID; }},             // PciDeviceId
    {35, [](const Facts& f) { return f.p.tccDriver; }},               // TccDriver
    {36, [](const Facts& f) { return int(f.d.memory_clock_khz); }},   // MemoryClockRate (kHz)
    {37, [](const Facts& f) { return f.p.memoryBusWidth; }},          // GlobalMemoryBusWidth
    {38, [](const Facts& f) { return f.p.l2CacheSize; }},             // L2CacheSize
    {39, [](const Facts& f) { return f.p.maxThreadsPerMultiProcessor; }},  // MaxThreadsPerSM
    {40, [](const Facts& f) { return f.p.asyncEngineCount; }},             // AsyncEngineCount
    {41, [](const Facts& f) { return f.p.unifiedAddressing; }},            // UnifiedAddressing
    {42, [](const Facts& f) { return f.p.maxTexture1DLayered[0]; }},  // MaxTexture1DLayeredWidth
    {43, [](const Facts& f) { return f.p.maxTexture1DLayered[1]; }},  // MaxTexture1DLayeredLayers
    {44, one},                                                        // CanTex2DGather: tld4 runs
    {45, [](const Facts& f) { return f.p.maxTexture2DGather[0]; }},   // MaxTexture2DGatherWidth
    {46, [](const Facts& f) { return f.p.maxTexture2DGather[1]; }},   // MaxTexture2DGatherHeight
    {47, [](const Facts& f) { return f.p.maxTexture3DAlt[0]; }},      // MaxTexture3DWidthAlt
    {48, [](const Facts& f) { return f.p.maxTexture3DAlt[1]; }},      // MaxTexture3DHeightAlt
    {49, [](const Facts& f) { return f.p.maxTexture3DAlt[2]; }},      // MaxTexture3DDepthAlt
    {50, [](const Facts& f) { return f.p.pciDomainID; }},             // PciDomainId
    {51, [](const Facts& f) { return int(f.p.texturePitchAlignment); }},   // TexturePitchAlignment
    {52, [](const Facts& f) { return f.p.maxTextureCubemap; }},            // MaxTextureCubemapWidth
    {53, [](const Facts& f) { return f.p.maxTextureCubemapLayered[0]; }},  // ..CubemapLayeredWidth
    {54, [](const Facts& f) { return f.p.maxTextureCubemapLayered[1]; }},  // ..CubemapLayeredLayers
    {55, [](const Facts& f) { return f.p.maxSurface1D; }},                 // MaxSurface1DWidth
    {56, [](const Facts& f) { return f.p.maxSurface2D[0]; }},              // MaxSurface2DWidth
    {57, [](const Facts& f) { return f.p.maxSurface2D[1]; }},              // MaxSurface2DHeight
    {58, [](const Facts& f) { return f.p.maxSurface3D[0]; }},              // MaxSurface3DWidth
    {59, [](const Facts& f) { return f.p.maxSurface3D[1]; }},              // MaxSurface3DHeight
    {60, [](const Facts& f) { return f.p.maxSurface3D[2]; }},              // MaxSurface3DDepth
    {61, [](const Facts& f) { return f.p.maxSurface1DLayered[0]; }},  // MaxSurface1DLayeredWidth
    {62, [](const Facts& f) { return f.p.maxSurface1DLayered[1]; }},  // MaxSurface1DLayeredLayers
    {63, [](const Facts& f) { return f.p.maxSurface2DLayered[0]; }},  // MaxSurface2DLayeredWidth
    {64, [](const Facts& f) { return f.p.maxSurface2DLayered[1]; }},  // MaxSurface2DLayeredHeight
    {65, [](const Facts& f) { return f.p.maxSurface2DLayered[2]; }},  // MaxSurface2DLayeredLayers
    {66, [](const Facts& f) { return f.p.maxSurfaceCubemap; }},       // MaxSurfaceCubemapWidth
    {67, [](const Facts& f) { return f.p.maxSurfaceCubemapLayered[0]; }},  // ..LayeredWidth
    {68, [](const Facts& f) { return f.p.maxSurfaceCubemapLayered[1]; }},  // ..LayeredLayers
    {69, [](const Facts&) { return kMaxTexture1DLinear; }},          // MaxTexture1DLinearWidth
    {70, [](const Facts& f) { return f.p.maxTexture2DLinear[0]; }},  // MaxTexture2DLinearWidth
    {71, [](const Facts& f) { return f.p.maxTexture2DLinear[1]; }},  // MaxTexture2DLinearHeight
    {72, [](const Facts& f) { return f.p.maxTexture2DLinear[2]; }},  // MaxTexture2DLinearPitch
    {73, [](const Facts& f) { return f.p.maxTexture2DMipmap[0]; }},  // MaxTexture2DMipmappedWidth
    {74, [](const Facts& f) { return f.p.maxTexture2DMipmap[1]; }},  // MaxTexture2DMipmappedHeight
    {75, [](const Facts& f) { return f.p.major; }},                  // ComputeCapabilityMajor
    {76, [](const Facts& f) { return f.p.minor; }},                  // ComputeCapabilityMinor
    {77, [](const Facts& f) { return f.p.maxTexture1DMipmap; }},     // MaxTexture1DMipmappedWidth
    {78,
     [](const Facts& f) { return f.p.streamPrioritiesSupported; }},   // StreamPrioritiesSupported
    {79, [](const Facts& f) { return f.p.globalL1CacheSupported; }},  // GlobalL1CacheSupported
    {80, [](const Facts& f) { return f.p.localL1CacheSupported; }},   // LocalL1CacheSupported
    {81, [](const Facts& f) { return int(f.p.sharedMemPerMultiprocessor); }},  // ..SharedMemPerSM
    {82,
     [](const Facts& f) { return f.p.regsPerMultiprocessor; }},     // MaxRegistersPerMultiprocessor
    {83, [](const Facts& f) { return f.p.managedMemory; }},         // ManagedMemory
    {84, [](const Facts& f) { return f.p.isMultiGpuBoard; }},       // IsMultiGpuBoard
    {85, [](const Facts& f) { return f.p.multiGpuBoardGroupID; }},  // MultiGpuBoardGroupID
    {86,
     [](const Facts& f) { return f.p.hostNativeAtomicSupported; }},  // HostNativeAtomicSupported
    {87,
     [](const Facts& f) { return single_to_double_ratio(f.d.arch); }},    // Single/DoublePerfRatio
    {88, [](const Facts& f) { return f.p.pageableMemoryAccess; }},        // PageableMemoryAccess
    {89, [](const Facts& f) { return f.p.concurrentManagedAccess; }},     // ConcurrentManagedAccess
    {90, [](const Facts& f) { return f.p.computePreemptionSupported; }},  // ComputePreemption
    {91, [](const Facts& f) { return f.p.canUseHostPointerForRegisteredMem; }},  // ..RegisteredMem
    {92, zero},  // CanUseStreamMemOpsV1: no (cuStreamBatchMemOp is not supported)
    {93, zero},  // CanUse64BitStreamMemOpsV1: no
    {94, zero},  // CanUseStreamWaitValueNorV1: no
    {95, [](const Facts& f) { return f.p.cooperativeLaunch; }},  // CooperativeLaunch
    {96, zero},  // CooperativeMultiDeviceLaunch: no (removed from CUDA 13's runtime)
    {97,
     [](const Facts& f) { return int(f.p.sharedMemPerBlockOptin); }},  // ..SharedMemPerBlockOptin
    {98, zero},                                                        // CanFlushRemoteWrites: no
    {99, [](const Facts& f) { return f.p.hostRegisterSupported; }},    // HostRegisterSupported
    {100, [](const Facts& f) { return f.p.pageableMemoryAccessUsesHostPageTables; }},
    {101, [](const Facts& f) { return f.p.directManagedMemAccessFromHost; }},
    {102, one},   // VirtualMemoryManagementSupported (engine/virtual_memory.h)
    {103, one},   // HandleTypePosixFileDescriptorSupported: memfd descriptors
    {104, zero},  // HandleTypeWin32HandleSupported: no
    {105, zero},  // HandleTypeWin32KmtHandleSupported: no
    {106, [](const Facts& f) { return f.p.maxBlocksPerMultiProcessor; }},  // MaxBlocksPerSM
    {107, zero},  // GenericCompressionSupported: no
    {108, [](const Facts& f) { return f.p.persistingL2CacheMaxSize; }},  // MaxPersistingL2CacheSize
    {109,
     [](const Facts& f) { return f.p.accessPolicyMaxWindowSize; }},  // MaxAccessPolicyWindowSize
    {110, zero},  // GpuDirectRdmaWithCudaVmmSupported: no
    {111, [](const Facts& f) { return int(f.p.reservedSharedMemPerBlock); }},  // ReservedShared..
    {112, [](const Facts& f) { return f.p.sparseCudaArraySupported; }},
    {113, [](const Facts& f) { return f.p.hostRegisterReadOnlySupported; }},
    {114, [](const Facts& f) { return f.p.timelineSemaphoreInteropSupported; }},
    {115, [](const Facts& f) { return f.p.memoryPoolsSupported; }},
    {116, [](const Facts& f) { return f.p.gpuDirectRDMASupported; }},
    {117, [](const Facts& f) { return int(f.p.gpuDirectRDMAFlushWritesOptions); }},
    {118, [](const Facts& f) { return f.p.gpuDirectRDMAWritesOrdering; }},
    {119, [](const Facts& f) { return int(f.p.memoryPoolSupportedHandleTypes); }},
    {120, [](const Facts& f) { return f.p.clusterLaunch; }},
    {121, [](const Facts& f) { return f.p.deferredMappingCudaArraySupported; }},
    {122, zero},  // CanUse64BitStreamMemOps: no
    {123, zero},  // CanUseStreamWaitValueNor: no
    {124, zero},  // DmaBufSupported: no
    {125, [](const Facts& f) { return f.p.ipcEventSupported; }},
    {126, [](const Facts&) { return kMemSyncDomains; }},  // MemSyncDomainCount
    {127, [](const Facts&) { return 1; }},                // TensorMapAccessSupported: yes
    {128, zero},                                          // HandleTypeFabricSupported: no
    {129, [](const Facts& f) { return f.p.unifiedFunctionPointers; }},
    {130, [](const Facts& f) { return f.p.deviceNumaConfig; }},
    {131, [](const Facts& f) { return f.p.deviceNumaId; }},
    {132, zero},  // MulticastSupported: no
    {133, [](const Facts& f) { return f.p.mpsEnabled; }},
    {134, [](const Facts& f) { return f.p.hostNumaId; }},
    {135, zero},  // D3D12CigSupported: no
    {136, zero},  // MemDecompressAlgorithmMask: no decompression engine
    {137, zero},  // MemDecompressMaximumLength: no decompression engine
    {138, zero},  // VulkanCigSupported: no
    {139, [](const Facts& f) { return int(f.p.gpuPciDeviceID); }},
    {140, [](const Facts& f) { return int(f.p.gpuPciSubsystemID); }},
    {141, zero},  // HostNumaVirtualMemoryManagementSupported: no
    {142, zero},  // HostNumaMemoryPoolsSupported: no
    {143, [](const Facts& f) { return f.p.hostNumaMultinodeIpcSupported; }},
    {144, zero},  // HostMemoryPoolsSupported: no
    {145, zero},  // HostVirtualMemoryManagementSupported: no
    {146, zero},  // HostAllocDmaBufSupported: no
    {147, zero},  // OnlyPartialHostNativeAtomicSupported: no
};
constexpr int kAttributeCount = 147;

constexpr bool rows_in_order() {
  for (int i = 0; i < static_cast<int>(sizeof kRows / sizeof kRows[0]); ++i)
    if (kRows[i].number != i + 1) return false;
  return true;
}
static_assert(sizeof kRows / sizeof kRows[0] == kAttributeCount, "one row per CUDA 13 attribute");
static_assert(rows_in_order(), "kRows[n - 1] answers attribute n");

}  // namespace

void Runtime::fill_properties(cudaDeviceProp& p, int device) const {
  const DeviceDesc& d = devices_[static_cast<std::size_t>(device)].desc;
  const ArchLimits lim = limits_for(d.arch);
  std::memset(&p, 0, sizeof p);
  std::snprintf(p.name, sizeof p.name, "%s", d.name.c_str());
  for (int i = 0; i < 16; ++i) p.uuid.bytes[i] = static_cast<char>(0xC0 + device * 16 + i);
  p.totalGlobalMem = d.memory_bytes;
  p.sharedMemPerBlock = 48 << 10;
  p.regsPerBlock = 65536;
  p.warpSize = 32;
  p.memPitch = 2147483647;
  p.maxThreadsPerBlock = 1024;
  p.maxThreadsDim[0] = 1024;
  p.maxThreadsDim[1] = 1024;
  p.maxThreadsDim[2] = 64;
  p.maxGridSize[0] = 2147483647;
  p.maxGridSize[1] = 65535;
  p.maxGridSize[2] = 65535;
  p.totalConstMem = 64 << 10;
  p.major = static_cast<int>(d.arch / 10);
  p.minor = static_cast<int>(d.arch % 10);
  p.textureAlignment = 512;
  p.texturePitchAlignment = 32;
  p.multiProcessorCount = static_cast<int>(d.sm_count);
  p.integrated = 0;
  p.canMapHostMemory = 1;
  // Texture and surface limits of the programming guide's table for compute
  // capability 5.0 and later. Mipmaps are not implemented: 0.
  p.maxTexture1D = 131072;
  p.maxTexture1DMipmap = 0;
  p.maxTexture2D[0] = 131072;
  p.maxTexture2D[1] = 65536;
  p.maxTexture2DMipmap[0] = p.maxTexture2DMipmap[1] = 0;
  p.maxTexture2DLinear[0] = 131072;
  p.maxTexture2DLinear[1] = 65000;
  p.maxTexture2DLinear[2] = 2097120;  // pitch in bytes
  p.maxTexture2DGather[0] = p.maxTexture2DGather[1] = 32768;
  p.maxTexture3D[0] = p.maxTexture3D[1] = p.maxTexture3D[2] = 16384;
  p.maxTexture3DAlt[0] = p.maxTexture3DAlt[1] = 8192;
  p.maxTexture3DAlt[2] = 32768;
  p.maxTextureCubemap = 32768;
  p.maxTexture1DLayered[0] = 32768;
  p.maxTexture1DLayered[1] = 2048;
  p.maxTexture2DLayered[0] = p.maxTexture2DLayered[1] = 32768;
  p.maxTexture2DLayered[2] = 2048;
  p.maxTextureCubemapLayered[0] = 32768;
  p.maxTextureCubemapLayered[1] = 2046;  // 341 cube maps of 6 faces
  p.maxSurface1D = 32768;
  p.maxSurface2D[0] = 131072;
  p.maxSurface2D[1] = 65536;
  p.maxSurface3D[0] = p.maxSurface3D[1] = p.maxSurface3D[2] = 16384;
  p.maxSurface1DLayered[0] = 32768;
  p.maxSurface1DLayered[1] = 2048;
  p.maxSurface2DLayered[0] = p.maxSurface2DLayered[1] = 32768;
  p.maxSurface2DLayered[2] = 2048;
  p.maxSurfaceCubemap = 32768;
  p.maxSurfaceCubemapLayered[0] = 32768;
  p.maxSurfaceCubemapLayered[1] = 2046;
  p.surfaceAlignment = 512;
  p.concurrentKernels = 1;
  p.ECCEnabled = 0;  // simulated memory has no errors to correct
  p.pciBusID = device + 1;
  p.pciDeviceID = 0;  // each GPU is device 0 on its own bus
  p.pciDomainID = 0;
  p.tccDriver = 0;
  p.asyncEngineCount = 2;
  p.unifiedAddressing = 1;
  p.memoryBusWidth = static_cast<int>(d.bus_width);
  p.l2CacheSize = static_cast<int>(d.l2_bytes);
  p.persistingL2CacheMaxSize = static_cast<int>(max_persisting_l2_bytes(d));
  p.maxThreadsPerMultiProcessor = lim.max_threads_per_sm;
  p.streamPrioritiesSupported = 1;
  p.globalL1CacheSupported = 1;
  p.localL1CacheSupported = 1;
  p.sharedMemPerMultiprocessor = lim.shared_per_sm;
  p.regsPerMultiprocessor = lim.regs_per_sm;
  p.managedMemory = 1;
  p.isMultiGpuBoard = 0;
  p.multiGpuBoardGroupID = device;  // each GPU is its own board
  p.hostNativeAtomicSupported = 0;  // no coherent host link
  p.pageableMemoryAccess = 0;       // kernels reach only allocated or registered memory
  p.concurrentManagedAccess = 1;
  p.computePreemptionSupported = 0;         // a kernel runs to completion
  p.canUseHostPointerForRegisteredMem = 1;  // a registered pointer is its own device pointer
  p.cooperativeLaunch = 1;
  p.sharedMemPerBlockOptin = lim.shared_per_block_optin;
  p.pageableMemoryAccessUsesHostPageTables = 0;
  p.directManagedMemAccessFromHost = 1;  // managed memory is host memory: nothing migrates
  p.maxBlocksPerMultiProcessor = lim.max_blocks_per_sm;
  p.accessPolicyMaxWindowSize = static_cast<int>(kMaxAccessPolicyWindowBytes);
  p.reservedSharedMemPerBlock = 1024;
  p.hostRegisterSupported = 1;
  p.sparseCudaArraySupported = 0;
  p.hostRegisterReadOnlySupported = 0;  // registration flags are not enforced
  p.timelineSemaphoreInteropSupported = 0;
  p.memoryPoolsSupported = 1;
  p.gpuDirectRDMASupported = 0;
  p.gpuDirectRDMAFlushWritesOptions = 0;
  p.gpuDirectRDMAWritesOrdering = 0;     // cudaGPUDirectRDMAWritesOrderingNone
  p.memoryPoolSupportedHandleTypes = 1;  // cudaMemHandleTypePosixFileDescriptor
  p.deferredMappingCudaArraySupported = 0;
  p.ipcEventSupported = 1;  // within the process (engine/ipc_handles.h)
  p.clusterLaunch = d.arch >= 90;
  p.unifiedFunctionPointers = 0;
  p.deviceNumaConfig = 0;  // cudaDeviceNumaConfigNone
  p.deviceNumaId = -1;
  p.mpsEnabled = 0;
  p.hostNumaId = -1;     // the simulated host has no NUMA nodes
  p.gpuPciDeviceID = 0;  // the platform names no PCI vendor or device
  p.gpuPciSubsystemID = 0;
  p.hostNumaMultinodeIpcSupported = 0;
}

cudaError_t Runtime::attribute(int* value, int attr, int device) const {
  if (!value) return cudaErrorInvalidValue;
  if (device < 0 || device >= device_count()) return cudaErrorInvalidDevice;
  if (attr < 1 || attr > kAttributeCount) return cudaErrorInvalidValue;  // as the driver answers
  cudaDeviceProp p;
  fill_properties(p, device);
  *value = kRows[attr - 1].answer({p, devices_[static_cast<std::size_t>(device)].desc});
  return cudaSuccess;
}

}  // namespace cnuas::cuda
