// What a statically linked CUDA runtime (cuBLAS's, cuDNN's) asks of
// libcuda.so.1, exercised directly: the export tables, libraries loaded
// lazily from fat binaries, kernel attributes and occupancy, cuLaunchKernelEx,
// pointer and stream queries, context limits.
// Usage: driver_library KERNELS.fatbin (PTX for compute_90) SASS_ONLY.fatbin KERNELS.cubin
#include <cuda.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cu_check.h"

static std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

static CUuuid uuid(std::initializer_list<unsigned> bytes) {
  CUuuid u{};
  int i = 0;
  for (unsigned b : bytes) u.bytes[i++] = static_cast<char>(b);
  return u;
}

using Slot = const void*;

// The export tables: which exist, their sizes, the context-local storage and
// an unimplemented slot (it names itself on stderr and says not-supported).
static int check_export_tables() {
  const void* table = reinterpret_cast<const void*>(1);
  const CUuuid unknown = uuid({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  CHECK(cuGetExportTable(&table, &unknown) == CUDA_ERROR_INVALID_VALUE);
  CHECK(table == nullptr);

  // The CUDART interface: slot 0 holds the table's size, 13 slots of 8 bytes.
  const CUuuid cudart = uuid({0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9,
                              0x39, 0x12, 0xfd, 0x9d, 0xf9});
  CU_OK(cuGetExportTable(&table, &cudart));
  const auto* slots = static_cast<const Slot*>(table);
  CHECK(reinterpret_cast<std::uintptr_t>(slots[0]) == 13 * sizeof(void*));
  for (int i = 1; i < 13; ++i) CHECK(slots[i] != nullptr);  // never a NULL slot
  // Slot 2 retains the device's primary context.
  CUcontext primary = nullptr, current = nullptr;
  CU_OK(reinterpret_cast<CUresult (*)(CUcontext*, CUdevice)>(slots[2])(&primary, 0));
  CU_OK(cuCtxGetCurrent(&current));
  CHECK(primary != nullptr && primary == current);
  // Slot 3 is not implemented: called twice, it answers not-supported and
  // names itself once (the test's expected output counts it).
  for (int i = 0; i < 2; ++i)
    CHECK(reinterpret_cast<CUresult (*)()>(slots[3])() == CUDA_ERROR_NOT_SUPPORTED);

  // Context-local storage: no size in slot 0; put (NULL: the current context), get, delete.
  const CUuuid storage = uuid({0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68,
                               0xf3, 0x55, 0xd8, 0x95, 0x93});
  CU_OK(cuGetExportTable(&table, &storage));
  slots = static_cast<const Slot*>(table);
  auto put = reinterpret_cast<CUresult (*)(CUcontext, void*, void*, void*)>(slots[0]);
  auto remove = reinterpret_cast<CUresult (*)(CUcontext, void*)>(slots[1]);
  auto get = reinterpret_cast<CUresult (*)(void**, CUcontext, void*)>(slots[2]);
  int key_a = 0, key_b = 0, value = 0;
  void* got = reinterpret_cast<void*>(1);
  CHECK(get(&got, nullptr, &key_a) != CUDA_SUCCESS && got == nullptr);
  CU_OK(put(nullptr, &key_a, &value, nullptr));
  CU_OK(get(&got, primary, &key_a));  // the current context by handle finds the same value
  CHECK(got == &value);
  CHECK(get(&got, nullptr, &key_b) != CUDA_SUCCESS);
  CU_OK(remove(nullptr, &key_a));
  CHECK(get(&got, nullptr, &key_a) != CUDA_SUCCESS);

  // The integrity check answers versions ending in 0 with a fixed pair.
  const CUuuid integrity = uuid({0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba,
                                 0x12, 0x3c, 0x66, 0xe1, 0xf2});
  CU_OK(cuGetExportTable(&table, &integrity));
  slots = static_cast<const Slot*>(table);
  CHECK(reinterpret_cast<std::uintptr_t>(slots[0]) == 3 * sizeof(void*));
  std::uint64_t answer[2] = {};
  CU_OK(reinterpret_cast<CUresult (*)(unsigned, std::uint64_t, std::uint64_t*)>(slots[1])(13000, 0,
                                                                                          answer));
  CHECK(answer[0] == 0x3341181c03cb675cull && answer[1] == 0x8ed383aa1f4cd1e8ull);
  std::printf("export tables: CUDART interface, context-local storage, integrity check\n");
  return 0;
}

// Libraries: loading checks that the image has PTX the GPU runs, kernels are
// looked up when first used, a fat binary with only SASS or a cubin is refused.
static int check_libraries(const std::string& fatbin, const std::string& sass_only,
                           const std::string& cubin, CUfunction* scale_out) {
  int mode = 0;
  CU_OK(cuModuleGetLoadingMode(reinterpret_cast<CUmoduleLoadingMode*>(&mode)));
  CHECK(mode == CU_MODULE_LAZY_LOADING);
  CUlibrary lib;
  CU_OK(cuLibraryLoadData(&lib, fatbin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  CUkernel missing, scale;
  CU_OK(cuLibraryGetKernel(&missing, lib, "no_such_kernel"));  // found out when used
  CUfunction f;
  CHECK(cuKernelGetFunction(&f, missing) == CUDA_ERROR_NOT_FOUND);
  CU_OK(cuLibraryGetKernel(&scale, lib, "scale"));
  CU_OK(cuKernelGetFunction(&f, scale));
  const char* name = nullptr;
  CU_OK(cuFuncGetName(&name, f));
  CHECK(std::strcmp(name, "scale") == 0);
  CUmodule module;
  CU_OK(cuLibraryGetModule(&module, lib));
  CUfunction same;
  CU_OK(cuModuleGetFunction(&same, module, "scale"));
  CHECK(same == f);  // one handle per kernel
  CUdeviceptr global = 0;
  std::size_t global_bytes = 0;
  CU_OK(cuLibraryGetGlobal(&global, &global_bytes, lib, "calls"));
  CHECK(global != 0 && global_bytes == sizeof(int));

  CUlibrary refused;
  CHECK(cuLibraryLoadData(&refused, sass_only.data(), nullptr, nullptr, 0, nullptr, nullptr, 0) ==
        CUDA_ERROR_NO_BINARY_FOR_GPU);
  CHECK(cuLibraryLoadData(&refused, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0) ==
        CUDA_ERROR_NO_BINARY_FOR_GPU);
  *scale_out = f;
  std::printf("libraries: lazy kernels, one handle per kernel, SASS refused\n");
  return 0;
}

// Attributes and occupancy of scale (256 threads at most, no shared memory)
// on the default GPU (compute capability 9.0: 2048 threads, 32 CTAs, 64K
// registers per SM, 32 registers per thread assumed).
static int check_attributes(CUfunction f) {
  int v = 0;
  CU_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
  CHECK(v == 256);  // __launch_bounds__(256)
  CU_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
  CHECK(v == 0);
  CU_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_PTX_VERSION, f));
  CHECK(v >= 80);
  CU_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f));
  CHECK(v == 48 * 1024);
  CU_OK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100 * 1024));
  CU_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f));
  CHECK(v == 100 * 1024);
  // Above the 227 KiB a block may opt in to: refused.
  CHECK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 228 * 1024) ==
        CUDA_ERROR_INVALID_VALUE);
  CHECK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NUM_REGS, 16) == CUDA_ERROR_INVALID_VALUE);
  CU_OK(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 50));
  CU_OK(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, f));
  CHECK(v == 50);
  // 256 threads: 8 warps of 32 x 32 registers each, so 8 CTAs fill 2048
  // threads and 64K registers; 100 KiB of shared memory (+1 KiB reserved)
  // lets 2 CTAs share 228 KiB.
  CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&v, f, 256, 0));
  CHECK(v == 8);
  CU_OK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&v, f, 256, 100 * 1024));
  CHECK(v == 2);
  int grid = 0, block = 0;
  CU_OK(cuOccupancyMaxPotentialBlockSize(&grid, &block, f, nullptr, 0, 0));
  CHECK(block == 256 && grid == 8 * 132);  // the kernel's limit; 8 per SM on 132 SMs
  std::printf("attributes and occupancy: %d threads, %d CTAs per SM\n", block, grid / 132);
  return 0;
}

// cuLaunchKernelEx with a cluster and attributes that only allow overlap.
static int check_launch_ex(CUfunction f) {
  const int n = 1000;
  CUdeviceptr x;
  CU_OK(cuMemAlloc(&x, n * sizeof(float)));
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i);
  CU_OK(cuMemcpyHtoD(x, h.data(), n * sizeof(float)));
  CUlaunchAttribute attrs[3] = {};
  attrs[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attrs[0].value.clusterDim.x = 2;
  attrs[0].value.clusterDim.y = 1;
  attrs[0].value.clusterDim.z = 1;
  attrs[1].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attrs[1].value.programmaticStreamSerializationAllowed = 1;
  attrs[2].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
  attrs[2].value.priority = -1;
  CUlaunchConfig config = {};
  config.gridDimX = 4;  // 4 x 256 >= 1000, in clusters of 2
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 256;
  config.blockDimY = config.blockDimZ = 1;
  config.attrs = attrs;
  config.numAttrs = 3;
  float factor = 3.0f;
  int count = n;
  void* args[] = {&x, &factor, &count};
  CU_OK(cuLaunchKernelEx(&config, f, args, nullptr));
  config.gridDimX = 3;  // not a multiple of the cluster
  CHECK(cuLaunchKernelEx(&config, f, args, nullptr) == CUDA_ERROR_INVALID_CLUSTER_SIZE);
  CU_OK(cuCtxSynchronize());
  CU_OK(cuMemcpyDtoH(h.data(), x, n * sizeof(float)));
  for (int i = 0; i < n; ++i) CHECK(h[i] == 3.0f * i);
  CU_OK(cuMemFree(x));
  std::printf("cuLaunchKernelEx: clusters and stream-order attributes\n");
  return 0;
}

// Pointer queries on a device allocation, pinned host memory and plain host memory.
static int check_pointers() {
  CUdeviceptr d;
  CU_OK(cuMemAlloc(&d, 1000));
  unsigned type = 0;
  CU_OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d + 100));
  CHECK(type == CU_MEMORYTYPE_DEVICE);
  CUdeviceptr start = 0;
  std::size_t size = 0;
  CU_OK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, d + 100));
  CU_OK(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, d + 100));
  CHECK(start == d && size == 1000);  // the size asked for
  CUdeviceptr base = 0;
  CU_OK(cuMemGetAddressRange(&base, &size, d + 999));
  CHECK(base == d && size == 1000);
  bool managed = true;
  CU_OK(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, d));
  CHECK(!managed);
  int ordinal = -1;
  CU_OK(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d));
  CHECK(ordinal == 0);

  void* pinned = nullptr;
  CU_OK(cuMemHostAlloc(&pinned, 4096, CU_MEMHOSTALLOC_DEVICEMAP));
  CU_OK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                              reinterpret_cast<CUdeviceptr>(pinned)));
  CHECK(type == CU_MEMORYTYPE_HOST);
  CUdeviceptr mapped = 0;
  CU_OK(cuMemHostGetDevicePointer(&mapped, pinned, 0));
  CHECK(mapped == reinterpret_cast<CUdeviceptr>(pinned));  // one address space

  int plain = 0;
  const auto host = reinterpret_cast<CUdeviceptr>(&plain);
  CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, host) ==
        CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemGetAddressRange(&base, &size, host) == CUDA_ERROR_NOT_FOUND);
  // The plural form answers zeros (and an invalid device) for memory CUDA does not know.
  CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
  type = 7;
  ordinal = 7;
  void* data[] = {&type, &ordinal};
  CU_OK(cuPointerGetAttributes(2, which, data, host));
  CHECK(type == 0 && ordinal == -2);
  CU_OK(cuMemFreeHost(pinned));
  CU_OK(cuMemFree(d));
  std::printf("pointer attributes: device, pinned host, unknown host memory\n");
  return 0;
}

// Streams, capture state, limits.
static int check_streams_and_limits() {
  CUstream s;
  CU_OK(cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, -7));
  int priority = 0;
  CU_OK(cuStreamGetPriority(s, &priority));
  CHECK(priority == -5);  // clamped to the greatest priority
  unsigned flags = 0;
  CU_OK(cuStreamGetFlags(s, &flags));
  CHECK(flags == CU_STREAM_NON_BLOCKING);
  unsigned long long id = 0, other = 0;
  CU_OK(cuStreamGetId(s, &id));
  CU_OK(cuStreamGetId(nullptr, &other));
  CHECK(id != other);
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  CU_OK(cuStreamGetCaptureInfo(s, &status, nullptr, nullptr, nullptr, nullptr, nullptr));
  CHECK(status == CU_STREAM_CAPTURE_STATUS_NONE);
  CU_OK(cuStreamIsCapturing(s, &status));
  CHECK(status == CU_STREAM_CAPTURE_STATUS_NONE);
  CUcontext ctx = nullptr;
  CU_OK(cuStreamGetCtx(s, &ctx));
  CUcontext current = nullptr;
  CU_OK(cuCtxGetCurrent(&current));
  CHECK(ctx == current);
  CU_OK(cuStreamDestroy(s));

  std::size_t limit = 1;
  CU_OK(cuCtxGetLimit(&limit, CU_LIMIT_CIG_ENABLED));
  CHECK(limit == 0);  // not a CUDA-in-graphics context
  CU_OK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 4096));
  CU_OK(cuCtxGetLimit(&limit, CU_LIMIT_STACK_SIZE));
  CHECK(limit == 4096);
  CU_OK(cuCtxSynchronize_v2(nullptr));
  unsigned long long ctx_id = 0;
  CU_OK(cuCtxGetId(current, &ctx_id));
  CHECK(ctx_id != 0);
  CUuuid u;
  CU_OK(cuDeviceGetUuid(&u, 0));
  std::printf("streams, capture state, limits, context and device identity\n");
  return 0;
}

int main(int argc, char** argv) {
  CHECK(argc == 4);
  CU_OK(cuInit(0));
  CUcontext primary;
  CU_OK(cuDevicePrimaryCtxRetain(&primary, 0));
  CU_OK(cuCtxSetCurrent(primary));
  unsigned flags = 1;
  int active = 0;
  CU_OK(cuDevicePrimaryCtxGetState(0, &flags, &active));
  CHECK(active == 1);
  if (check_export_tables()) return 1;
  CUfunction scale = nullptr;
  if (check_libraries(read_file(argv[1]), read_file(argv[2]), read_file(argv[3]), &scale)) return 1;
  if (check_attributes(scale)) return 1;
  if (check_launch_ex(scale)) return 1;
  if (check_pointers()) return 1;
  if (check_streams_and_limits()) return 1;
  CU_OK(cuDevicePrimaryCtxRelease(0));
  std::printf("PASS\n");
  return 0;
}
