// Stream-ordered allocation through the driver (engine/memory_pools.h).
#include "engine/memory_pools.h"
#include "cudart/entry.h"
#include "driver/driver_entry.h"
#include "engine/graph_capture.h"

using namespace cnuas::cuda;
using namespace cnuas::cuda::driver;

namespace {

CUresult allocate(Runtime& rt, CUdeviceptr* ptr, std::size_t bytes, MemoryPool* pool,
                  CUstream stream) {
  Stream* s = rt.stream(reinterpret_cast<cudaStream_t>(stream));
  if (!s) return kInvalidHandle;
  if (!ptr || !pool) return kInvalidValue;
  void* p = nullptr;
  // Under stream capture: a graph allocation node (engine/graph_capture.h).
  const cudaError_t e = s->capturing() ? capture_malloc(rt, *s, &p, bytes)
                                       : rt.memory_pools().allocate(&p, bytes, *pool, *s);
  *ptr = reinterpret_cast<CUdeviceptr>(p);
  return driver_code(e);
}

MemoryPool* pool_of(Runtime& rt, cudaMemPool_t handle) {
  return rt.memory_pools().pool(handle);
}

// A location's device, or MemoryPools::kHost for the host (NUMA node 0, the only one).
CUresult device_of(Runtime& rt, const abi::MemLocation* l, int type, int* device) {
  if (l && type == abi::kAllocationPinned &&
      (l->type == abi::kLocationHost || (l->type == abi::kLocationHostNuma && l->id == 0))) {
    *device = MemoryPools::kHost;
    return kSuccess;
  }
  if (!l || type != abi::kAllocationPinned || l->type != abi::kLocationDevice) {
    if (l && (type == abi::kAllocationManaged || l->type > abi::kLocationHostNuma))
      return driver_code(
          rt.unsupported("managed memory pools and the current thread's NUMA node's pool"));
    return kInvalidValue;
  }
  if (l->id < 0 || l->id >= rt.device_count()) return kInvalidValue;
  *device = l->id;
  return kSuccess;
}

}  // namespace

extern "C" {

CUresult cuMemAllocAsync(CUdeviceptr* ptr, std::size_t bytes, CUstream stream) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Stream* s = rt.stream(reinterpret_cast<cudaStream_t>(stream));
  if (!s) return kInvalidHandle;
  return allocate(rt, ptr, bytes, rt.memory_pools().current_pool(s->device), stream);
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr* ptr, std::size_t bytes, cudaMemPool_t pool,
                                 CUstream stream) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  return allocate(rt, ptr, bytes, pool_of(rt, pool), stream);
}

CUresult cuMemFreeAsync(CUdeviceptr ptr, CUstream stream) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  return driver_code(
      rt.free_async(reinterpret_cast<void*>(ptr), reinterpret_cast<cudaStream_t>(stream)));
}

CUresult cuMemAllocAsync_ptsz(CUdeviceptr* ptr, std::size_t bytes, CUstream stream) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  PerThreadDefault scope(Runtime::get());
  return cuMemAllocAsync(ptr, bytes, stream);
}

CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr* ptr, std::size_t bytes, cudaMemPool_t pool,
                                      CUstream stream) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  PerThreadDefault scope(Runtime::get());
  return cuMemAllocFromPoolAsync(ptr, bytes, pool, stream);
}

CUresult cuMemFreeAsync_ptsz(CUdeviceptr ptr, CUstream stream) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  PerThreadDefault scope(Runtime::get());
  return cuMemFreeAsync(ptr, stream);
}

CUresult cuDeviceGetDefaultMemPool(cudaMemPool_t* pool, CUdevice device) {
  DRIVER_ENTER();
  if (!pool) return kInvalidValue;
  if (device < 0 || device >= rt.device_count()) return kInvalidDevice;
  *pool = reinterpret_cast<cudaMemPool_t>(rt.memory_pools().default_pool(device));
  return kSuccess;
}

CUresult cuDeviceGetMemPool(cudaMemPool_t* pool, CUdevice device) {
  DRIVER_ENTER();
  if (!pool) return kInvalidValue;
  if (device < 0 || device >= rt.device_count()) return kInvalidDevice;
  *pool = reinterpret_cast<cudaMemPool_t>(rt.memory_pools().current_pool(device));
  return kSuccess;
}

CUresult cuDeviceSetMemPool(CUdevice device, cudaMemPool_t pool) {
  DRIVER_ENTER();
  if (device < 0 || device >= rt.device_count()) return kInvalidDevice;
  return driver_code(rt.memory_pools().set_current(device, pool_of(rt, pool)));
}

CUresult cuMemGetDefaultMemPool(cudaMemPool_t* pool, abi::MemLocation* location, int type) {
  DRIVER_ENTER();
  int device = 0;
  if (const CUresult r = device_of(rt, location, type, &device)) return r;
  if (!pool) return kInvalidValue;
  *pool = reinterpret_cast<cudaMemPool_t>(rt.memory_pools().default_pool(device));
  return kSuccess;
}

CUresult cuMemGetMemPool(cudaMemPool_t* pool, abi::MemLocation* location, int type) {
  DRIVER_ENTER();
  int device = 0;
  if (const CUresult r = device_of(rt, location, type, &device)) return r;
  if (!pool) return kInvalidValue;
  *pool = reinterpret_cast<cudaMemPool_t>(rt.memory_pools().current_pool(device));
  return kSuccess;
}

CUresult cuMemSetMemPool(abi::MemLocation* location, int type, cudaMemPool_t pool) {
  DRIVER_ENTER();
  int device = 0;
  if (const CUresult r = device_of(rt, location, type, &device)) return r;
  return driver_code(rt.memory_pools().set_current(device, pool_of(rt, pool)));
}

CUresult cuMemPoolCreate(cudaMemPool_t* pool, const abi::MemPoolProps* props) {
  DRIVER_ENTER();
  MemoryPool* p = nullptr;
  if (const cudaError_t e = rt.memory_pools().create(&p, props)) return driver_code(e);
  *pool = reinterpret_cast<cudaMemPool_t>(p);
  return kSuccess;
}

CUresult cuMemPoolDestroy(cudaMemPool_t pool) {
  DRIVER_ENTER();
  return driver_code(rt.memory_pools().destroy(pool_of(rt, pool)));
}

CUresult cuMemPoolSetAttribute(cudaMemPool_t pool, int attr, void* value) {
  DRIVER_ENTER();
  MemoryPool* p = pool_of(rt, pool);
  return p ? driver_code(rt.memory_pools().set_attribute(*p, attr, value)) : kInvalidValue;
}

CUresult cuMemPoolGetAttribute(cudaMemPool_t pool, int attr, void* value) {
  DRIVER_ENTER();
  MemoryPool* p = pool_of(rt, pool);
  return p ? driver_code(rt.memory_pools().get_attribute(*p, attr, value)) : kInvalidValue;
}

CUresult cuMemPoolTrimTo(cudaMemPool_t pool, std::size_t keep) {
  DRIVER_ENTER();
  MemoryPool* p = pool_of(rt, pool);
  return p ? driver_code(rt.memory_pools().trim(*p, keep)) : kInvalidValue;
}

CUresult cuMemPoolSetAccess(cudaMemPool_t pool, const abi::MemAccessDesc* desc, std::size_t count) {
  DRIVER_ENTER();
  MemoryPool* p = pool_of(rt, pool);
  return p ? driver_code(rt.memory_pools().set_access(*p, desc, count)) : kInvalidValue;
}

CUresult cuMemPoolGetAccess(int* flags, cudaMemPool_t pool, abi::MemLocation* location) {
  DRIVER_ENTER();
  MemoryPool* p = pool_of(rt, pool);
  return p ? driver_code(rt.memory_pools().get_access(flags, *p, location)) : kInvalidValue;
}

CUresult cuMemPoolExportToShareableHandle(void* handle, cudaMemPool_t pool, int type,
                                          unsigned long long flags) {
  DRIVER_ENTER();
  MemoryPool* p = pool_of(rt, pool);
  return p ? driver_code(rt.memory_pools().export_pool(handle, *p, type, flags)) : kInvalidValue;
}

CUresult cuMemPoolImportFromShareableHandle(cudaMemPool_t* pool, void* handle, int type,
                                            unsigned long long flags) {
  DRIVER_ENTER();
  MemoryPool* p = nullptr;
  if (const cudaError_t e = rt.memory_pools().import_pool(&p, handle, type, flags))
    return driver_code(e);
  *pool = reinterpret_cast<cudaMemPool_t>(p);
  return kSuccess;
}

CUresult cuMemPoolExportPointer(abi::MemPoolPtrExportData* data, CUdeviceptr ptr) {
  DRIVER_ENTER();
  return driver_code(rt.memory_pools().export_pointer(data, reinterpret_cast<const void*>(ptr)));
}

CUresult cuMemPoolImportPointer(CUdeviceptr* ptr, cudaMemPool_t pool,
                                abi::MemPoolPtrExportData* data) {
  DRIVER_ENTER();
  MemoryPool* p = pool_of(rt, pool);
  if (!p || !ptr) return kInvalidValue;
  void* out = nullptr;
  const cudaError_t e = rt.memory_pools().import_pointer(&out, *p, data);
  *ptr = reinterpret_cast<CUdeviceptr>(out);
  return driver_code(e);
}

}  // extern "C"
