// Memory through the driver beyond cuMemAlloc and the plain copies: what a
// pointer is (cuPointerGetAttribute(s), cuMemGetAddressRange), host and
// managed allocations, and the asynchronous copies and fills a library's
// runtime issues on its streams.
#include <cstring>

#include "driver/driver_internal.h"

using namespace cnuas::cuda;
using namespace cnuas::cuda::driver;

namespace {

// CUmemorytype
constexpr unsigned kMemoryTypeHost = 1, kMemoryTypeDevice = 2;
constexpr unsigned kAccessReadWrite = 3;  // CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE

struct PointerFacts {
  bool known = false;  // allocated, registered or mapped by CUDA
  MemoryKind kind = MemoryKind::Pageable;
  int device = -1;
  std::uint64_t base = 0, bytes = 0;
  const MemoryOwner* owner = nullptr;  // a pool's, an import's...; null: cuMemAlloc's
};

PointerFacts facts_of(Runtime& rt, CUdeviceptr ptr) {
  PointerFacts f;
  const void* p = reinterpret_cast<const void*>(ptr);
  f.kind = rt.kind_of(p, &f.device);
  if (const Allocation* a = rt.find(p)) {
    f.known = true;
    f.base = a->base;
    f.bytes = a->bytes;
    f.owner = a->owner;
  } else {
    // A module's __device__ variable: device memory the engine placed.
    const auto [base, bytes] = rt.memory().allocation_of(ptr);
    f.known = bytes != 0;
    f.base = base;
    f.bytes = bytes;
  }
  return f;
}

// The size of what an attribute writes: booleans are one byte (C++ bool),
// enumerations and ordinals four, addresses, sizes and handles eight.
std::size_t attribute_bytes(int attribute) {
  switch (attribute) {
    case 6:
    case 8:
    case 10:
    case 13:
    case 15:
    case 21:
      return 1;
    case 2:
    case 9:
    case 16:
      return 4;
    default:
      return 8;
  }
}

template <typename T>
void put(void* data, T value) {
  std::memcpy(data, &value, sizeof value);
}

// One attribute of a known pointer; false for one the simulator does not answer.
bool answer(const PointerFacts& f, int attribute, CUdeviceptr ptr, void* data) {
  const bool host = f.kind == MemoryKind::Host || f.kind == MemoryKind::Registered;
  switch (attribute) {
    case 1:  // CONTEXT
      put(data, context_of(f.device < 0 ? 0 : f.device));
      return true;
    case 2:  // MEMORY_TYPE: managed memory is device memory that is also managed
      put(data, host ? kMemoryTypeHost : kMemoryTypeDevice);
      return true;
    case 3:  // DEVICE_POINTER: one address space
    case 4:  // HOST_POINTER
      put(data, ptr);
      return true;
    case 6:   // SYNC_MEMOPS: synchronous copies always synchronize here
    case 13:  // MAPPED
      put(data, true);
      return true;
    case 8:  // IS_MANAGED
      put(data, f.kind == MemoryKind::Managed);
      return true;
    case 9:  // DEVICE_ORDINAL
      put(data, f.device < 0 ? 0 : f.device);
      return true;
    case 10:  // IS_LEGACY_CUDA_IPC_CAPABLE: no IPC
    case 15:  // IS_GPU_DIRECT_RDMA_CAPABLE: no RDMA
    case 21:  // IS_HW_DECOMPRESS_CAPABLE
      put(data, false);
      return true;
    case 11:  // RANGE_START_ADDR
    case 19:  // MAPPING_BASE_ADDR
      put(data, static_cast<CUdeviceptr>(f.base));
      return true;
    case 12:  // RANGE_SIZE
    case 18:  // MAPPING_SIZE
      put(data, static_cast<std::size_t>(f.bytes));
      return true;
    case 16:  // ACCESS_FLAGS
      put(data, kAccessReadWrite);
      return true;
    case 17:  // MEMPOOL_HANDLE: none for memory from cuMemAlloc and friends
      if (f.owner) return false;
      put(data, static_cast<void*>(nullptr));
      return true;
    default:  // P2P tokens, buffer and block IDs, handle types
      return false;
  }
}

CUresult copy(void* dst, const void* src, std::size_t n, int kind, CUstream stream) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  return driver_code(
      rt.copy({dst, n, src, n, n, 1, kind}, reinterpret_cast<cudaStream_t>(stream), false));
}

CUresult fill(CUdeviceptr dst, unsigned value, std::size_t count, unsigned bytes, CUstream stream) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  return driver_code(rt.memset(reinterpret_cast<void*>(dst), count * bytes, static_cast<int>(value),
                               count, 1, bytes, reinterpret_cast<cudaStream_t>(stream), false));
}

}  // namespace

extern "C" {

CUresult cuPointerGetAttribute(void* data, int attribute, CUdeviceptr ptr) {
  DRIVER_ENTER();
  if (!data) return kInvalidValue;
  const PointerFacts f = facts_of(rt, ptr);
  if (!f.known) return kInvalidValue;  // not CUDA's memory
  if (answer(f, attribute, ptr, data)) return kSuccess;
  return report_unsupported(
      ("cuPointerGetAttribute for attribute " + std::to_string(attribute)).c_str());
}

// Unlike the singular form, memory CUDA does not know is not an error: each
// attribute reads as zero (NULL, false, CU_MEMORYTYPE 0).
CUresult cuPointerGetAttributes(unsigned count, int* attributes, void** data, CUdeviceptr ptr) {
  DRIVER_ENTER();
  if (!attributes || !data) return kInvalidValue;
  const PointerFacts f = facts_of(rt, ptr);
  for (unsigned i = 0; i < count; ++i) {
    if (!data[i]) return kInvalidValue;
    if (!f.known) {
      std::memset(data[i], 0, attribute_bytes(attributes[i]));
      if (attributes[i] == 9) put(data[i], -2);  // CU_DEVICE_INVALID
      continue;
    }
    if (!answer(f, attributes[i], ptr, data[i]))
      return report_unsupported(
          ("cuPointerGetAttributes for attribute " + std::to_string(attributes[i])).c_str());
  }
  return kSuccess;
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr* base, std::size_t* bytes, CUdeviceptr ptr) {
  DRIVER_ENTER();
  const PointerFacts f = facts_of(rt, ptr);
  if (!f.known) return kNotFound;
  if (base) *base = f.base;
  if (bytes) *bytes = f.bytes;
  return kSuccess;
}

// CU_MEMHOSTALLOC_PORTABLE, DEVICEMAP and WRITECOMBINED are all the same memory here.
CUresult cuMemHostAlloc(void** ptr, std::size_t bytes, unsigned flags) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  if (flags & ~0x7u) return kInvalidValue;
  return driver_code(rt.malloc_host(ptr, bytes, MemoryKind::Host));
}

CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr* device, void* host, unsigned flags) {
  DRIVER_ENTER();
  const MemoryKind k = rt.kind_of(host, nullptr);
  if (!device || flags != 0 || (k != MemoryKind::Host && k != MemoryKind::Registered))
    return kInvalidValue;
  *device = reinterpret_cast<CUdeviceptr>(host);
  return kSuccess;
}

CUresult cuMemHostRegister_v2(void* ptr, std::size_t bytes, unsigned) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  return driver_code(rt.register_host(ptr, bytes));
}

CUresult cuMemHostUnregister(void* ptr) {
  DRIVER_ENTER();
  return driver_code(rt.free(ptr, MemoryKind::Registered));
}

// CU_MEM_ATTACH_GLOBAL (1) or HOST (2).
CUresult cuMemAllocManaged(CUdeviceptr* ptr, std::size_t bytes, unsigned flags) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  if (!ptr || bytes == 0 || (flags != 1 && flags != 2)) return kInvalidValue;
  void* p = nullptr;
  const cudaError_t e = rt.malloc_host(&p, bytes, MemoryKind::Managed);
  *ptr = reinterpret_cast<CUdeviceptr>(p);
  return driver_code(e);
}

CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, std::size_t n, CUstream stream) {
  return copy(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n,
              cudaMemcpyDefault, stream);
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, std::size_t n, CUstream stream) {
  return copy(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n,
              cudaMemcpyDeviceToDevice, stream);
}

CUresult cuMemsetD16_v2(CUdeviceptr dst, unsigned short value, std::size_t count) {
  return fill(dst, value, count, 2, nullptr);
}

CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, std::size_t count,
                          CUstream stream) {
  return fill(dst, value, count, 2, stream);
}

}  // extern "C"

// The per-thread default stream forms (a NULL stream is the per-thread one).
DRIVER_PER_THREAD(cuMemcpyAsync_ptsz, cuMemcpyAsync,
                  (CUdeviceptr dst, CUdeviceptr src, std::size_t n, CUstream stream),
                  (dst, src, n, stream))
DRIVER_PER_THREAD(cuMemcpyDtoDAsync_v2_ptsz, cuMemcpyDtoDAsync_v2,
                  (CUdeviceptr dst, CUdeviceptr src, std::size_t n, CUstream stream),
                  (dst, src, n, stream))
DRIVER_PER_THREAD(cuMemsetD16_v2_ptds, cuMemsetD16_v2,
                  (CUdeviceptr dst, unsigned short value, std::size_t count), (dst, value, count))
DRIVER_PER_THREAD(cuMemsetD16Async_ptsz, cuMemsetD16Async,
                  (CUdeviceptr dst, unsigned short value, std::size_t count, CUstream stream),
                  (dst, value, count, stream))
