// Stream-ordered allocation (engine/memory_pools.h): cudaMallocAsync,
// cudaMallocFromPoolAsync and the cudaMemPool* calls. cudaFreeAsync and
// cudaFree hand pool memory to its pool themselves (Runtime::free).
#include "engine/memory_pools.h"
#include "cudart/entry.h"
#include "engine/graph_capture.h"

using namespace cnuas::cuda;

namespace {

MemoryPool* pool_of(Runtime& rt, cudaMemPool_t handle) {
  return rt.memory_pools().pool(handle);
}

cudaMemPool_t handle_of(MemoryPool* p) {
  return reinterpret_cast<cudaMemPool_t>(p);
}

cudaError_t allocate(Runtime& rt, void** ptr, std::size_t bytes, MemoryPool* pool,
                     cudaStream_t stream) {
  Stream* s = rt.stream(stream);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  if (!pool) return rt.record(cudaErrorInvalidValue);
  // Under stream capture: a graph allocation node (engine/graph_capture.h).
  if (s->capturing()) return rt.record(capture_malloc(rt, *s, ptr, bytes));
  return rt.record(rt.memory_pools().allocate(ptr, bytes, *pool, *s));
}

// A location and allocation type naming a device's pinned pools.
// A location's device, or MemoryPools::kHost for the host (NUMA node 0, the only one).
cudaError_t device_of(Runtime& rt, const abi::MemLocation* location, int type, int* device) {
  const abi::MemLocation* l = location;
  if (l && type == abi::kAllocationPinned &&
      (l->type == abi::kLocationHost || (l->type == abi::kLocationHostNuma && l->id == 0))) {
    *device = MemoryPools::kHost;
    return cudaSuccess;
  }
  if (!l || type != abi::kAllocationPinned || l->type != abi::kLocationDevice) {
    if (l && (type == abi::kAllocationManaged || l->type > abi::kLocationHostNuma))
      return rt.unsupported("managed memory pools and the current thread's NUMA node's pool");
    return rt.record(cudaErrorInvalidValue);
  }
  if (l->id < 0 || l->id >= rt.device_count()) return rt.record(cudaErrorInvalidValue);
  *device = l->id;
  return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaMallocAsync(void** ptr, std::size_t bytes, cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  Stream* s = rt.stream(stream);
  if (!s) return rt.record(cudaErrorInvalidResourceHandle);
  return allocate(rt, ptr, bytes, rt.memory_pools().current_pool(s->device), stream);
}

cudaError_t cudaMallocFromPoolAsync(void** ptr, std::size_t bytes, cudaMemPool_t pool,
                                    cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  return allocate(rt, ptr, bytes, pool_of(rt, pool), stream);
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
  CUDART_ENTER_STICKY();
  if (!pool) return rt.record(cudaErrorInvalidValue);
  if (device < 0 || device >= rt.device_count()) return rt.record(cudaErrorInvalidDevice);
  *pool = handle_of(rt.memory_pools().default_pool(device));
  return cudaSuccess;
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device) {
  CUDART_ENTER_STICKY();
  if (!pool) return rt.record(cudaErrorInvalidValue);
  if (device < 0 || device >= rt.device_count()) return rt.record(cudaErrorInvalidDevice);
  *pool = handle_of(rt.memory_pools().current_pool(device));
  return cudaSuccess;
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool) {
  CUDART_ENTER_STICKY();
  if (device < 0 || device >= rt.device_count()) return rt.record(cudaErrorInvalidDevice);
  return rt.record(rt.memory_pools().set_current(device, pool_of(rt, pool)));
}

cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t* pool, abi::MemLocation* location, int type) {
  CUDART_ENTER_STICKY();
  int device = 0;
  if (const cudaError_t e = device_of(rt, location, type, &device)) return e;
  if (!pool) return rt.record(cudaErrorInvalidValue);
  *pool = handle_of(rt.memory_pools().default_pool(device));
  return cudaSuccess;
}

cudaError_t cudaMemGetMemPool(cudaMemPool_t* pool, abi::MemLocation* location, int type) {
  CUDART_ENTER_STICKY();
  int device = 0;
  if (const cudaError_t e = device_of(rt, location, type, &device)) return e;
  if (!pool) return rt.record(cudaErrorInvalidValue);
  *pool = handle_of(rt.memory_pools().current_pool(device));
  return cudaSuccess;
}

cudaError_t cudaMemSetMemPool(abi::MemLocation* location, int type, cudaMemPool_t pool) {
  CUDART_ENTER_STICKY();
  int device = 0;
  if (const cudaError_t e = device_of(rt, location, type, &device)) return e;
  return rt.record(rt.memory_pools().set_current(device, pool_of(rt, pool)));
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const abi::MemPoolProps* props) {
  CUDART_ENTER_STICKY();
  MemoryPool* p = nullptr;
  const cudaError_t e = rt.memory_pools().create(&p, props);
  if (e != cudaSuccess) return rt.record(e);
  *pool = handle_of(p);
  return cudaSuccess;
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
  CUDART_ENTER_STICKY();
  return rt.record(rt.memory_pools().destroy(pool_of(rt, pool)));
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, int attr, void* value) {
  CUDART_ENTER_STICKY();
  MemoryPool* p = pool_of(rt, pool);
  if (!p) return rt.record(cudaErrorInvalidValue);
  return rt.record(rt.memory_pools().set_attribute(*p, attr, value));
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, int attr, void* value) {
  CUDART_ENTER_STICKY();
  MemoryPool* p = pool_of(rt, pool);
  if (!p) return rt.record(cudaErrorInvalidValue);
  return rt.record(rt.memory_pools().get_attribute(*p, attr, value));
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, std::size_t keep) {
  CUDART_ENTER_STICKY();
  MemoryPool* p = pool_of(rt, pool);
  if (!p) return rt.record(cudaErrorInvalidValue);
  return rt.record(rt.memory_pools().trim(*p, keep));
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const abi::MemAccessDesc* desc,
                                 std::size_t count) {
  CUDART_ENTER_STICKY();
  MemoryPool* p = pool_of(rt, pool);
  if (!p) return rt.record(cudaErrorInvalidValue);
  return rt.record(rt.memory_pools().set_access(*p, desc, count));
}

cudaError_t cudaMemPoolGetAccess(int* flags, cudaMemPool_t pool, abi::MemLocation* location) {
  CUDART_ENTER_STICKY();
  MemoryPool* p = pool_of(rt, pool);
  if (!p) return rt.record(cudaErrorInvalidValue);
  return rt.record(rt.memory_pools().get_access(flags, *p, location));
}

cudaError_t cudaMemPoolExportToShareableHandle(void* handle, cudaMemPool_t pool, int type,
                                               unsigned flags) {
  CUDART_ENTER_STICKY();
  MemoryPool* p = pool_of(rt, pool);
  if (!p) return rt.record(cudaErrorInvalidValue);
  return rt.record(rt.memory_pools().export_pool(handle, *p, type, flags));
}

cudaError_t cudaMemPoolImportFromShareableHandle(cudaMemPool_t* pool, void* handle, int type,
                                                 unsigned flags) {
  CUDART_ENTER_STICKY();
  MemoryPool* p = nullptr;
  const cudaError_t e = rt.memory_pools().import_pool(&p, handle, type, flags);
  if (e != cudaSuccess) return rt.record(e);
  *pool = handle_of(p);
  return cudaSuccess;
}

cudaError_t cudaMemPoolExportPointer(abi::MemPoolPtrExportData* data, void* ptr) {
  CUDART_ENTER_STICKY();
  return rt.record(rt.memory_pools().export_pointer(data, ptr));
}

cudaError_t cudaMemPoolImportPointer(void** ptr, cudaMemPool_t pool,
                                     abi::MemPoolPtrExportData* data) {
  CUDART_ENTER_STICKY();
  MemoryPool* p = pool_of(rt, pool);
  if (!p) return rt.record(cudaErrorInvalidValue);
  return rt.record(rt.memory_pools().import_pointer(ptr, *p, data));
}

}  // extern "C"

CUDART_PER_THREAD(_ptsz, cudaError_t, cudaMallocAsync,
                  (void** ptr, std::size_t bytes, cudaStream_t stream), (ptr, bytes, stream))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaMallocFromPoolAsync,
                  (void** ptr, std::size_t bytes, cudaMemPool_t pool, cudaStream_t stream),
                  (ptr, bytes, pool, stream))
