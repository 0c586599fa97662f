// Device attributes on the default platform (one H100 SXM, profiles/gpu/h100-sxm.yaml
// and the cnuas.gpu defaults): every attribute CUDA 13 numbers is answered by
// both APIs with the same value; each one with a cudaDeviceProp counterpart
// agrees with cudaGetDeviceProperties; a few equal figures worked out by hand
// from the profile; numbers CUDA does not define are refused.
#include <cuda.h>

#include "check.h"

// CUDA 13 numbers its attributes 1..147; a newer toolkit adds some and this
// test (and the runtime's table) must then be extended.
static_assert(CU_DEVICE_ATTRIBUTE_MAX == 148, "CUDA 13 defines attributes 1..147");
static_assert(static_cast<int>(cudaDevAttrMax) == 148, "runtime and driver numbers agree");

static int attribute(cudaDeviceAttr a) {
  int v = -12345;
  if (cudaDeviceGetAttribute(&v, a, 0) != cudaSuccess) return -12345;
  return v;
}

// An attribute equals its property; names the attribute when not.
#define SAME(attr, field)                                                                         \
  do {                                                                                            \
    const long long got_ = attribute(attr), want_ = static_cast<long long>(field);                \
    if (got_ != want_) {                                                                          \
      std::fprintf(stderr, "%s:%d: check failed: %s = %lld, but %s = %lld\n", __FILE__, __LINE__, \
                   #attr, got_, #field, want_);                                                   \
      return 1;                                                                                   \
    }                                                                                             \
    ++compared;                                                                                   \
  } while (0)

int main() {
  cudaDeviceProp p;
  CUDA_OK(cudaGetDeviceProperties(&p, 0));
  int compared = 0;

  // Every attribute with a cudaDeviceProp counterpart, in CUDA's order.
  SAME(cudaDevAttrMaxThreadsPerBlock, p.maxThreadsPerBlock);
  SAME(cudaDevAttrMaxBlockDimX, p.maxThreadsDim[0]);
  SAME(cudaDevAttrMaxBlockDimY, p.maxThreadsDim[1]);
  SAME(cudaDevAttrMaxBlockDimZ, p.maxThreadsDim[2]);
  SAME(cudaDevAttrMaxGridDimX, p.maxGridSize[0]);
  SAME(cudaDevAttrMaxGridDimY, p.maxGridSize[1]);
  SAME(cudaDevAttrMaxGridDimZ, p.maxGridSize[2]);
  SAME(cudaDevAttrMaxSharedMemoryPerBlock, p.sharedMemPerBlock);
  SAME(cudaDevAttrTotalConstantMemory, p.totalConstMem);
  SAME(cudaDevAttrWarpSize, p.warpSize);
  SAME(cudaDevAttrMaxPitch, p.memPitch);
  SAME(cudaDevAttrMaxRegistersPerBlock, p.regsPerBlock);
  SAME(cudaDevAttrTextureAlignment, p.textureAlignment);
  SAME(cudaDevAttrMultiProcessorCount, p.multiProcessorCount);
  SAME(cudaDevAttrIntegrated, p.integrated);
  SAME(cudaDevAttrCanMapHostMemory, p.canMapHostMemory);
  SAME(cudaDevAttrMaxTexture1DWidth, p.maxTexture1D);
  SAME(cudaDevAttrMaxTexture2DWidth, p.maxTexture2D[0]);
  SAME(cudaDevAttrMaxTexture2DHeight, p.maxTexture2D[1]);
  SAME(cudaDevAttrMaxTexture3DWidth, p.maxTexture3D[0]);
  SAME(cudaDevAttrMaxTexture3DHeight, p.maxTexture3D[1]);
  SAME(cudaDevAttrMaxTexture3DDepth, p.maxTexture3D[2]);
  SAME(cudaDevAttrMaxTexture2DLayeredWidth, p.maxTexture2DLayered[0]);
  SAME(cudaDevAttrMaxTexture2DLayeredHeight, p.maxTexture2DLayered[1]);
  SAME(cudaDevAttrMaxTexture2DLayeredLayers, p.maxTexture2DLayered[2]);
  SAME(cudaDevAttrSurfaceAlignment, p.surfaceAlignment);
  SAME(cudaDevAttrConcurrentKernels, p.concurrentKernels);
  SAME(cudaDevAttrEccEnabled, p.ECCEnabled);
  SAME(cudaDevAttrPciBusId, p.pciBusID);
  SAME(cudaDevAttrPciDeviceId, p.pciDeviceID);
  SAME(cudaDevAttrTccDriver, p.tccDriver);
  SAME(cudaDevAttrGlobalMemoryBusWidth, p.memoryBusWidth);
  SAME(cudaDevAttrL2CacheSize, p.l2CacheSize);
  SAME(cudaDevAttrMaxThreadsPerMultiProcessor, p.maxThreadsPerMultiProcessor);
  SAME(cudaDevAttrAsyncEngineCount, p.asyncEngineCount);
  SAME(cudaDevAttrUnifiedAddressing, p.unifiedAddressing);
  SAME(cudaDevAttrMaxTexture1DLayeredWidth, p.maxTexture1DLayered[0]);
  SAME(cudaDevAttrMaxTexture1DLayeredLayers, p.maxTexture1DLayered[1]);
  SAME(cudaDevAttrMaxTexture2DGatherWidth, p.maxTexture2DGather[0]);
  SAME(cudaDevAttrMaxTexture2DGatherHeight, p.maxTexture2DGather[1]);
  SAME(cudaDevAttrMaxTexture3DWidthAlt, p.maxTexture3DAlt[0]);
  SAME(cudaDevAttrMaxTexture3DHeightAlt, p.maxTexture3DAlt[1]);
  SAME(cudaDevAttrMaxTexture3DDepthAlt, p.maxTexture3DAlt[2]);
  SAME(cudaDevAttrPciDomainId, p.pciDomainID);
  SAME(cudaDevAttrTexturePitchAlignment, p.texturePitchAlignment);
  SAME(cudaDevAttrMaxTextureCubemapWidth, p.maxTextureCubemap);
  SAME(cudaDevAttrMaxTextureCubemapLayeredWidth, p.maxTextureCubemapLayered[0]);
  SAME(cudaDevAttrMaxTextureCubemapLayeredLayers, p.maxTextureCubemapLayered[1]);
  SAME(cudaDevAttrMaxSurface1DWidth, p.maxSurface1D);
  SAME(cudaDevAttrMaxSurface2DWidth, p.maxSurface2D[0]);
  SAME(cudaDevAttrMaxSurface2DHeight, p.maxSurface2D[1]);
  SAME(cudaDevAttrMaxSurface3DWidth, p.maxSurface3D[0]);
  SAME(cudaDevAttrMaxSurface3DHeight, p.maxSurface3D[1]);
  SAME(cudaDevAttrMaxSurface3DDepth, p.maxSurface3D[2]);
  SAME(cudaDevAttrMaxSurface1DLayeredWidth, p.maxSurface1DLayered[0]);
  SAME(cudaDevAttrMaxSurface1DLayeredLayers, p.maxSurface1DLayered[1]);
  SAME(cudaDevAttrMaxSurface2DLayeredWidth, p.maxSurface2DLayered[0]);
  SAME(cudaDevAttrMaxSurface2DLayeredHeight, p.maxSurface2DLayered[1]);
  SAME(cudaDevAttrMaxSurface2DLayeredLayers, p.maxSurface2DLayered[2]);
  SAME(cudaDevAttrMaxSurfaceCubemapWidth, p.maxSurfaceCubemap);
  SAME(cudaDevAttrMaxSurfaceCubemapLayeredWidth, p.maxSurfaceCubemapLayered[0]);
  SAME(cudaDevAttrMaxSurfaceCubemapLayeredLayers, p.maxSurfaceCubemapLayered[1]);
  SAME(cudaDevAttrMaxTexture2DLinearWidth, p.maxTexture2DLinear[0]);
  SAME(cudaDevAttrMaxTexture2DLinearHeight, p.maxTexture2DLinear[1]);
  SAME(cudaDevAttrMaxTexture2DLinearPitch, p.maxTexture2DLinear[2]);
  SAME(cudaDevAttrMaxTexture2DMipmappedWidth, p.maxTexture2DMipmap[0]);
  SAME(cudaDevAttrMaxTexture2DMipmappedHeight, p.maxTexture2DMipmap[1]);
  SAME(cudaDevAttrComputeCapabilityMajor, p.major);
  SAME(cudaDevAttrComputeCapabilityMinor, p.minor);
  SAME(cudaDevAttrMaxTexture1DMipmappedWidth, p.maxTexture1DMipmap);
  SAME(cudaDevAttrStreamPrioritiesSupported, p.streamPrioritiesSupported);
  SAME(cudaDevAttrGlobalL1CacheSupported, p.globalL1CacheSupported);
  SAME(cudaDevAttrLocalL1CacheSupported, p.localL1CacheSupported);
  SAME(cudaDevAttrMaxSharedMemoryPerMultiprocessor, p.sharedMemPerMultiprocessor);
  SAME(cudaDevAttrMaxRegistersPerMultiprocessor, p.regsPerMultiprocessor);
  SAME(cudaDevAttrManagedMemory, p.managedMemory);
  SAME(cudaDevAttrIsMultiGpuBoard, p.isMultiGpuBoard);
  SAME(cudaDevAttrMultiGpuBoardGroupID, p.multiGpuBoardGroupID);
  SAME(cudaDevAttrHostNativeAtomicSupported, p.hostNativeAtomicSupported);
  SAME(cudaDevAttrPageableMemoryAccess, p.pageableMemoryAccess);
  SAME(cudaDevAttrConcurrentManagedAccess, p.concurrentManagedAccess);
  SAME(cudaDevAttrComputePreemptionSupported, p.computePreemptionSupported);
  SAME(cudaDevAttrCanUseHostPointerForRegisteredMem, p.canUseHostPointerForRegisteredMem);
  SAME(cudaDevAttrCooperativeLaunch, p.cooperativeLaunch);
  SAME(cudaDevAttrMaxSharedMemoryPerBlockOptin, p.sharedMemPerBlockOptin);
  SAME(cudaDevAttrHostRegisterSupported, p.hostRegisterSupported);
  SAME(cudaDevAttrPageableMemoryAccessUsesHostPageTables, p.pageableMemoryAccessUsesHostPageTables);
  SAME(cudaDevAttrDirectManagedMemAccessFromHost, p.directManagedMemAccessFromHost);
  SAME(cudaDevAttrMaxBlocksPerMultiprocessor, p.maxBlocksPerMultiProcessor);
  SAME(cudaDevAttrMaxPersistingL2CacheSize, p.persistingL2CacheMaxSize);
  SAME(cudaDevAttrMaxAccessPolicyWindowSize, p.accessPolicyMaxWindowSize);
  SAME(cudaDevAttrReservedSharedMemoryPerBlock, p.reservedSharedMemPerBlock);
  SAME(cudaDevAttrSparseCudaArraySupported, p.sparseCudaArraySupported);
  SAME(cudaDevAttrHostRegisterReadOnlySupported, p.hostRegisterReadOnlySupported);
  SAME(cudaDevAttrTimelineSemaphoreInteropSupported, p.timelineSemaphoreInteropSupported);
  SAME(cudaDevAttrMemoryPoolsSupported, p.memoryPoolsSupported);
  SAME(cudaDevAttrGPUDirectRDMASupported, p.gpuDirectRDMASupported);
  SAME(cudaDevAttrGPUDirectRDMAFlushWritesOptions, p.gpuDirectRDMAFlushWritesOptions);
  SAME(cudaDevAttrGPUDirectRDMAWritesOrdering, p.gpuDirectRDMAWritesOrdering);
  SAME(cudaDevAttrMemoryPoolSupportedHandleTypes, p.memoryPoolSupportedHandleTypes);
  SAME(cudaDevAttrClusterLaunch, p.clusterLaunch);
  SAME(cudaDevAttrDeferredMappingCudaArraySupported, p.deferredMappingCudaArraySupported);
  SAME(cudaDevAttrIpcEventSupport, p.ipcEventSupported);
  SAME(cudaDevAttrNumaConfig, p.deviceNumaConfig);
  SAME(cudaDevAttrNumaId, p.deviceNumaId);
  SAME(cudaDevAttrMpsEnabled, p.mpsEnabled);
  SAME(cudaDevAttrHostNumaId, p.hostNumaId);
  SAME(cudaDevAttrGpuPciDeviceId, p.gpuPciDeviceID);
  SAME(cudaDevAttrGpuPciSubsystemId, p.gpuPciSubsystemID);
  SAME(cudaDevAttrHostNumaMultinodeIpcSupported, p.hostNumaMultinodeIpcSupported);
  // The driver-only number 129 (unified function pointers) has a property too.
  SAME(static_cast<cudaDeviceAttr>(CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS),
       p.unifiedFunctionPointers);
  std::printf("%d attributes agree with cudaGetDeviceProperties\n", compared);

  // Hand values from the default platform's GPU: 132 SMs at 1.98 GHz
  // (1 980 000 kHz), compute capability 9.0, 50 MiB L2 (52 428 800 bytes),
  // a 5120-bit bus, 80 GB (80e9 bytes); per SM 2048 threads, 32 CTAs and
  // 228 KiB (233 472 bytes) of shared memory, 227 KiB (232 448) per block opted in.
  CHECK(attribute(cudaDevAttrMultiProcessorCount) == 132);
  CHECK(attribute(cudaDevAttrClockRate) == 1980000);
  // 3.35 TB/s over a 5120-bit bus moving data on both clock edges:
  // 3.35e12 x 8 / (2 x 5120) = 2 617 187 500 Hz, in kHz rounded up.
  CHECK(attribute(cudaDevAttrMemoryClockRate) == 2617188);
  CHECK(attribute(cudaDevAttrComputeCapabilityMajor) == 9);
  CHECK(attribute(cudaDevAttrComputeCapabilityMinor) == 0);
  CHECK(attribute(cudaDevAttrL2CacheSize) == 52428800);
  CHECK(attribute(cudaDevAttrGlobalMemoryBusWidth) == 5120);
  CHECK(p.totalGlobalMem == 80000000000ull);
  CHECK(attribute(cudaDevAttrMaxThreadsPerMultiProcessor) == 2048);
  CHECK(attribute(cudaDevAttrMaxBlocksPerMultiprocessor) == 32);
  CHECK(attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor) == 233472);
  CHECK(attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin) == 232448);
  CHECK(attribute(cudaDevAttrWarpSize) == 32);
  CHECK(attribute(cudaDevAttrClusterLaunch) == 1);  // 9.0 has thread-block clusters
  // H100 runs FP32 at twice the FP64 rate (128 vs 64 FMA per SM per clock).
  CHECK(attribute(cudaDevAttrSingleToDoublePrecisionPerfRatio) == 2);
  // Features the simulator does not provide answer 0.
  CHECK(attribute(cudaDevAttrComputePreemptionSupported) == 0);
  CHECK(attribute(cudaDevAttrGPUDirectRDMASupported) == 0);
  // Virtual memory management, POSIX descriptors and IPC events work within the process.
  // (the runtime names no attribute for the first two; the driver numbers them)
  CHECK(attribute(static_cast<cudaDeviceAttr>(
            CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED)) == 1);
  CHECK(attribute(static_cast<cudaDeviceAttr>(
            CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED)) == 1);
  CHECK(attribute(cudaDevAttrIpcEventSupport) == 1);
  CHECK(attribute(cudaDevAttrMemoryPoolSupportedHandleTypes) ==
        cudaMemHandleTypePosixFileDescriptor);
  // Cube maps: the programming guide's limits for compute capability 5.0 and later.
  CHECK(attribute(cudaDevAttrMaxTextureCubemapWidth) == 32768);
  CHECK(attribute(cudaDevAttrMaxTextureCubemapLayeredLayers) == 2046);

  // Every number 1..147 is answered, by the runtime and the driver alike.
  CHECK(cuInit(0) == CUDA_SUCCESS);
  for (int n = 1; n < CU_DEVICE_ATTRIBUTE_MAX; ++n) {
    int runtime_value = -1, driver_value = -2;
    const cudaError_t e = cudaDeviceGetAttribute(&runtime_value, static_cast<cudaDeviceAttr>(n), 0);
    const CUresult r = cuDeviceGetAttribute(&driver_value, static_cast<CUdevice_attribute>(n), 0);
    if (e != cudaSuccess || r != CUDA_SUCCESS || runtime_value != driver_value) {
      std::fprintf(stderr, "check failed: attribute %d: runtime %s %d, driver %d %d\n", n,
                   cudaGetErrorName(e), runtime_value, static_cast<int>(r), driver_value);
      return 1;
    }
  }

  // Numbers CUDA does not define: below the first, past the last, far out.
  // (The driver numbers 1..147 without a gap, so there is none inside.)
  for (int n : {0, -1, static_cast<int>(CU_DEVICE_ATTRIBUTE_MAX), 9999}) {
    int v = 0;
    CHECK(cudaDeviceGetAttribute(&v, static_cast<cudaDeviceAttr>(n), 0) == cudaErrorInvalidValue);
    CHECK(cuDeviceGetAttribute(&v, static_cast<CUdevice_attribute>(n), 0) ==
          CUDA_ERROR_INVALID_VALUE);
  }
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);  // the refusals set the last error
  int v = 0;
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 1) == cudaErrorInvalidDevice);
  CHECK(cudaDeviceGetAttribute(nullptr, cudaDevAttrWarpSize, 0) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  std::printf("PASS\n");
  return 0;
}
