// Stream-ordered memory pools: the pool's used and reserved figures against
// hand computation, reuse in stream order and across streams under each
// reuse policy, the release threshold and trimming, export and import of
// pools and pointers, and access from a second device when there is one.
//
// The pool's rules (runtime/src/engine/memory_pools.h): requests round up to
// 512 bytes; memory is reserved in 2 MiB chunks (a larger request: rounded
// up to whole 2 MiB); allocations are carved first-fit, oldest chunk first.
#include <cuda.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

#include "cu_check.h"

constexpr size_t kKiB = 1 << 10, kMiB = 1 << 20;

__global__ void fill(int* p, size_t n, int value) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) p[i] = value + int(i);
}

static void launch_fill(void* p, size_t bytes, int value, cudaStream_t s) {
  const size_t n = bytes / 4;
  fill<<<unsigned((n + 255) / 256), 256, 0, s>>>(static_cast<int*>(p), n, value);
}

static uint64_t attribute(cudaMemPool_t pool, cudaMemPoolAttr attr) {
  uint64_t v = 0;
  if (cudaMemPoolGetAttribute(pool, attr, &v) != cudaSuccess) return ~0ull;
  return v;
}

static void set(cudaMemPool_t pool, cudaMemPoolAttr attr, uint64_t v) {
  cudaMemPoolSetAttribute(pool, attr, &v);
}

static void set_flag(cudaMemPool_t pool, cudaMemPoolAttr attr, int v) {
  cudaMemPoolSetAttribute(pool, attr, &v);
}

static uint64_t used(cudaMemPool_t p) {
  return attribute(p, cudaMemPoolAttrUsedMemCurrent);
}
static uint64_t reserved(cudaMemPool_t p) {
  return attribute(p, cudaMemPoolAttrReservedMemCurrent);
}

static cudaMemPool_t make_pool(int device, cudaMemAllocationHandleType types) {
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.handleTypes = types;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool = nullptr;
  if (cudaMemPoolCreate(&pool, &props) != cudaSuccess) return nullptr;
  return pool;
}

// The default pool: figures, same-stream reuse, threshold, watermarks.
static int figures_and_threshold() {
  cudaMemPool_t pool, current;
  CUDA_OK(cudaDeviceGetDefaultMemPool(&pool, 0));
  CUDA_OK(cudaDeviceGetMemPool(&current, 0));
  CHECK(pool == current);
  CHECK(attribute(pool, cudaMemPoolAttrReleaseThreshold) == 0);
  int flag = 0;
  for (cudaMemPoolAttr a :
       {cudaMemPoolReuseFollowEventDependencies, cudaMemPoolReuseAllowOpportunistic,
        cudaMemPoolReuseAllowInternalDependencies}) {
    CUDA_OK(cudaMemPoolGetAttribute(pool, a, &flag));
    CHECK(flag == 1);  // every reuse policy is on by default
  }
  set(pool, cudaMemPoolAttrReleaseThreshold, UINT64_MAX);  // keep everything

  cudaStream_t s;
  CUDA_OK(cudaStreamCreate(&s));
  size_t free_before = 0, total = 0;
  CUDA_OK(cudaMemGetInfo(&free_before, &total));
  char *a, *b, *c, *d;
  CUDA_OK(cudaMallocAsync(&a, 1000, s));  // 1000 -> 1024; a 2 MiB chunk
  CHECK(used(pool) == 1024 && reserved(pool) == 2 * kMiB);
  CUDA_OK(cudaMallocAsync(&b, 3 * kMiB, s));  // no room in the first chunk: a 4 MiB one
  CHECK(used(pool) == 1024 + 3 * kMiB && reserved(pool) == 6 * kMiB);
  CUDA_OK(cudaMallocAsync(&c, 4 * kKiB, s));  // right after a, in the first chunk
  CHECK(c == a + 1024);
  CHECK(used(pool) == 1024 + 3 * kMiB + 4 * kKiB);
  size_t free_after = 0;
  CUDA_OK(cudaMemGetInfo(&free_after, &total));
  CHECK(free_before - free_after == 6 * kMiB);  // reserved memory is device memory taken

  launch_fill(b, 3 * kMiB, 11, s);
  std::vector<int> host(3 * kMiB / 4);
  CUDA_OK(cudaMemcpyAsync(host.data(), b, 3 * kMiB, cudaMemcpyDeviceToHost, s));
  CUDA_OK(cudaFreeAsync(a, s));
  CHECK(used(pool) == 3 * kMiB + 4 * kKiB);  // a free returns its bytes at once
  CUDA_OK(cudaMallocAsync(&d, 1000, s));     // the same stream reuses a's range
  CHECK(d == a);
  CUDA_OK(cudaFreeAsync(b, s));
  CUDA_OK(cudaFreeAsync(c, s));
  CUDA_OK(cudaFreeAsync(d, s));
  CUDA_OK(cudaStreamSynchronize(s));
  for (size_t i = 0; i < host.size(); ++i) CHECK(host[i] == 11 + int(i));

  // Highest use: a + b + c = 1024 + 3 MiB + 4 KiB; highest reservation 6 MiB.
  CHECK(used(pool) == 0);
  CHECK(attribute(pool, cudaMemPoolAttrUsedMemHigh) == 1024 + 3 * kMiB + 4 * kKiB);
  CHECK(attribute(pool, cudaMemPoolAttrReservedMemHigh) == 6 * kMiB);
  CHECK(reserved(pool) == 6 * kMiB);  // above no threshold: kept through the synchronize

  // Threshold 4 MiB: the synchronization gives back unused chunks, newest
  // first, while 4 MiB stay: not the 4 MiB chunk (6 - 4 = 2 < 4), then the
  // 2 MiB one (6 - 2 = 4).
  set(pool, cudaMemPoolAttrReleaseThreshold, 4 * kMiB);
  CUDA_OK(cudaStreamSynchronize(s));
  CHECK(reserved(pool) == 4 * kMiB);
  set(pool, cudaMemPoolAttrReleaseThreshold, 0);
  CHECK(reserved(pool) == 4 * kMiB);  // nothing happens before a synchronization
  CUDA_OK(cudaDeviceSynchronize());
  CHECK(reserved(pool) == 0);
  CUDA_OK(cudaMemGetInfo(&free_after, &total));
  CHECK(free_after == free_before);

  // Watermarks reset to the current figures, and only to them.
  set(pool, cudaMemPoolAttrReservedMemHigh, 0);
  set(pool, cudaMemPoolAttrUsedMemHigh, 0);
  CHECK(attribute(pool, cudaMemPoolAttrReservedMemHigh) == 0);
  CHECK(attribute(pool, cudaMemPoolAttrUsedMemHigh) == 0);
  uint64_t nonzero = 5;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &nonzero) ==
        cudaErrorInvalidValue);
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &nonzero) ==
        cudaErrorInvalidValue);
  CHECK(cudaMemPoolDestroy(pool) == cudaErrorInvalidValue);  // a default pool stays
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);

  // cudaFree takes stream-ordered memory too (after waiting for the device).
  void* e;
  CUDA_OK(cudaMallocAsync(&e, 100, s));
  CUDA_OK(cudaFree(e));
  CHECK(used(pool) == 0);
  CUDA_OK(cudaStreamDestroy(s));
  return 0;
}

// Trimming: whole unused chunks, newest first, never below the bytes to keep.
static int trimming() {
  cudaMemPool_t pool = make_pool(0, cudaMemHandleTypeNone);
  CHECK(pool != nullptr);
  set(pool, cudaMemPoolAttrReleaseThreshold, UINT64_MAX);
  cudaStream_t s;
  CUDA_OK(cudaStreamCreate(&s));
  int* host;
  CUDA_OK(cudaMallocHost(&host, 2 * kMiB));
  void *x[3], *keep;
  for (void*& p : x) CUDA_OK(cudaMallocFromPoolAsync(&p, 2 * kMiB, pool, s));  // a chunk each
  CHECK(reserved(pool) == 6 * kMiB);
  // A copy still running ahead of the frees: the host has not seen them complete.
  CUDA_OK(cudaMemcpyAsync(x[0], host, 2 * kMiB, cudaMemcpyHostToDevice, s));
  for (void* p : x) CUDA_OK(cudaFreeAsync(p, s));
  CUDA_OK(cudaMemPoolTrimTo(pool, 0));
  CHECK(reserved(pool) == 6 * kMiB);  // outstanding until seen complete
  CUDA_OK(cudaStreamSynchronize(s));
  CHECK(reserved(pool) == 6 * kMiB);           // the threshold keeps them
  CUDA_OK(cudaMemPoolTrimTo(pool, 3 * kMiB));  // 6 -> 4 (>= 3), not 4 -> 2
  CHECK(reserved(pool) == 4 * kMiB);
  CUDA_OK(cudaMallocFromPoolAsync(&keep, 2 * kMiB, pool, s));  // the oldest chunk
  CHECK(keep == x[0]);
  CUDA_OK(cudaMemPoolTrimTo(pool, 0));  // a chunk in use stays
  CHECK(reserved(pool) == 2 * kMiB);
  CUDA_OK(cudaFreeHost(host));
  CUDA_OK(cudaStreamDestroy(s));

  // Destroying a pool with a live allocation: the allocation stays usable.
  CUDA_OK(cudaDeviceSetMemPool(0, pool));
  void* y;
  CUDA_OK(cudaMallocAsync(&y, 4 * kKiB, 0));  // from the device's current pool
  CHECK(used(pool) == 2 * kMiB + 4 * kKiB);
  CUDA_OK(cudaMemPoolDestroy(pool));
  cudaMemPool_t current, fallback;
  CUDA_OK(cudaDeviceGetMemPool(&current, 0));
  CUDA_OK(cudaDeviceGetDefaultMemPool(&fallback, 0));
  CHECK(current == fallback);  // the default again
  void* z;
  CHECK(cudaMallocFromPoolAsync(&z, 16, pool, 0) == cudaErrorInvalidValue);
  launch_fill(y, 4 * kKiB, 3, 0);
  int first = 0;
  CUDA_OK(cudaMemcpy(&first, y, 4, cudaMemcpyDeviceToHost));
  CHECK(first == 3);
  CUDA_OK(cudaFreeAsync(y, 0));
  CUDA_OK(cudaFreeAsync(keep, 0));
  CUDA_OK(cudaDeviceSynchronize());
  return 0;
}

// A stream allocating what another stream freed behind a long copy, under
// each reuse policy.
static int reuse_across_streams() {
  cudaMemPool_t pool = make_pool(0, cudaMemHandleTypeNone);
  set(pool, cudaMemPoolAttrReleaseThreshold, UINT64_MAX);
  cudaStream_t s1, s2;
  CUDA_OK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CUDA_OK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t copied, freed, done2, ref;
  for (cudaEvent_t* e : {&copied, &freed, &done2, &ref}) CUDA_OK(cudaEventCreate(e));
  const size_t bytes = 64 * kMiB;
  int* host;
  CUDA_OK(cudaMallocHost(&host, bytes));

  // Internal dependencies only: s2 takes s1's freed block and waits for the
  // free. A 64 MiB copy over PCIe takes milliseconds; s2's kernel and event
  // come after it, where without the wait they would come at once.
  set_flag(pool, cudaMemPoolReuseFollowEventDependencies, 0);
  set_flag(pool, cudaMemPoolReuseAllowOpportunistic, 0);
  void *a, *b;
  CUDA_OK(cudaMallocFromPoolAsync(&a, bytes, pool, s1));
  CUDA_OK(cudaEventRecord(ref, s1));
  CUDA_OK(cudaMemcpyAsync(a, host, bytes, cudaMemcpyHostToDevice, s1));
  CUDA_OK(cudaEventRecord(copied, s1));
  CUDA_OK(cudaFreeAsync(a, s1));
  CUDA_OK(cudaMallocFromPoolAsync(&b, bytes, pool, s2));
  CHECK(b == a);
  CHECK(reserved(pool) == bytes);
  launch_fill(b, 4 * kKiB, 1, s2);
  CUDA_OK(cudaEventRecord(done2, s2));
  CUDA_OK(cudaDeviceSynchronize());
  float copy_ms = 0, after_ms = 0;
  CUDA_OK(cudaEventElapsedTime(&copy_ms, ref, copied));
  CUDA_OK(cudaEventElapsedTime(&after_ms, copied, done2));
  std::printf("copy %.3f ms; s2's kernel done %.3f ms after it\n", copy_ms, after_ms);
  CHECK(copy_ms > 1.0f);    // 64 MiB at PCIe Gen4 x16 (~31.5 GB/s): ~2.1 ms
  CHECK(after_ms >= 0.0f);  // the kernel waited for the free
  CUDA_OK(cudaFreeAsync(b, s2));
  CUDA_OK(cudaDeviceSynchronize());  // the pool's block is plain free memory again

  // No policy at all: a block freed in s1, not yet complete, is not for s2.
  set_flag(pool, cudaMemPoolReuseAllowInternalDependencies, 0);
  CUDA_OK(cudaMallocFromPoolAsync(&a, bytes, pool, s1));
  CUDA_OK(cudaMemcpyAsync(a, host, bytes, cudaMemcpyHostToDevice, s1));
  CUDA_OK(cudaFreeAsync(a, s1));
  CUDA_OK(cudaEventRecord(freed, s1));
  CUDA_OK(cudaMallocFromPoolAsync(&b, bytes, pool, s2));
  CHECK(b != a);
  CHECK(reserved(pool) == 2 * bytes);  // a second chunk
  CUDA_OK(cudaFreeAsync(b, s2));

  // Following events: once s2 waits for an event recorded after the free, it may reuse.
  set_flag(pool, cudaMemPoolReuseFollowEventDependencies, 1);
  CUDA_OK(cudaStreamWaitEvent(s2, freed, 0));
  void* c;
  CUDA_OK(cudaMallocFromPoolAsync(&c, bytes, pool, s2));
  CHECK(c == a);
  CUDA_OK(cudaFreeAsync(c, s2));
  CUDA_OK(cudaDeviceSynchronize());

  // Opportunistic: a free seen complete (by polling, not a synchronization).
  set_flag(pool, cudaMemPoolReuseFollowEventDependencies, 0);
  CUDA_OK(cudaMallocFromPoolAsync(&a, bytes, pool, s1));
  CUDA_OK(cudaMemcpyAsync(a, host, bytes, cudaMemcpyHostToDevice, s1));
  CUDA_OK(cudaFreeAsync(a, s1));
  CUDA_OK(cudaEventRecord(freed, s1));
  while (cudaEventQuery(freed) == cudaErrorNotReady) {
  }
  CUDA_OK(cudaMallocFromPoolAsync(&b, bytes, pool, s2));
  CHECK(b != a);  // complete, but opportunistic reuse is off
  set_flag(pool, cudaMemPoolReuseAllowOpportunistic, 1);
  CUDA_OK(cudaMallocFromPoolAsync(&c, bytes, pool, s2));
  CHECK(c == a);
  CUDA_OK(cudaFreeAsync(b, s2));
  CUDA_OK(cudaFreeAsync(c, s2));
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaFreeHost(host));
  CUDA_OK(cudaMemPoolDestroy(pool));
  return 0;
}

// Export a pool and a pointer, import both: the same bytes at a second address.
static int export_import() {
  cudaMemPool_t plain = make_pool(0, cudaMemHandleTypeNone);
  int fd = -1;
  CHECK(cudaMemPoolExportToShareableHandle(&fd, plain, cudaMemHandleTypePosixFileDescriptor, 0) ==
        cudaErrorInvalidValue);  // not created shareable
  cudaMemPool_t pool = make_pool(0, cudaMemHandleTypePosixFileDescriptor);
  CUDA_OK(cudaMemPoolExportToShareableHandle(&fd, pool, cudaMemHandleTypePosixFileDescriptor, 0));
  cudaMemPool_t imported;
  CUDA_OK(cudaMemPoolImportFromShareableHandle(&imported, reinterpret_cast<void*>(intptr_t(fd)),
                                               cudaMemHandleTypePosixFileDescriptor, 0));
  close(fd);
  CHECK(imported != pool);
  void* nope;
  CHECK(cudaMallocFromPoolAsync(&nope, 64, imported, 0) == cudaErrorInvalidValue);
  CHECK(cudaDeviceSetMemPool(0, imported) == cudaErrorInvalidValue);

  int* x;
  CUDA_OK(cudaMallocFromPoolAsync(&x, 64 * kKiB, pool, 0));
  launch_fill(x, 64 * kKiB, 100, 0);
  cudaMemPoolPtrExportData data;
  CUDA_OK(cudaMemPoolExportPointer(&data, x));
  CHECK(cudaMemPoolExportPointer(&data, x + 1) == cudaErrorInvalidValue);  // not an allocation
  CUDA_OK(cudaMemPoolExportPointer(&data, x));
  int* y;
  CUDA_OK(cudaMemPoolImportPointer(reinterpret_cast<void**>(&y), imported, &data));
  CHECK(y != x);
  std::vector<int> host(16);
  CUDA_OK(cudaMemcpy(host.data(), y, 64, cudaMemcpyDeviceToHost));  // x's data through y
  for (int i = 0; i < 16; ++i) CHECK(host[i] == 100 + i);
  launch_fill(y, 64, 7, 0);                                         // written through y...
  CUDA_OK(cudaMemcpy(host.data(), x, 64, cudaMemcpyDeviceToHost));  // ...read through x
  for (int i = 0; i < 16; ++i) CHECK(host[i] == 7 + i);
  CUDA_OK(cudaFreeAsync(y, 0));  // the importer frees first
  CUDA_OK(cudaFreeAsync(x, 0));
  int* z;
  CUDA_OK(cudaMallocFromPoolAsync(&z, 64, plain, 0));
  CHECK(cudaMemPoolExportPointer(&data, z) == cudaErrorInvalidValue);  // pool not shareable
  CUDA_OK(cudaFreeAsync(z, 0));
  CUDA_OK(cudaDeviceSynchronize());
  CUDA_OK(cudaMemPoolDestroy(imported));
  CUDA_OK(cudaMemPoolDestroy(pool));
  CUDA_OK(cudaMemPoolDestroy(plain));
  return 0;
}

// Two devices: a pool's memory for another device, and the driver's calls.
static int two_devices() {
  cudaMemPool_t pool;
  CUDA_OK(cudaDeviceGetDefaultMemPool(&pool, 0));
  cudaMemLocation dev1 = {cudaMemLocationTypeDevice, 1}, dev0 = {cudaMemLocationTypeDevice, 0};
  cudaMemAccessFlags flags = cudaMemAccessFlagsProtReadWrite;
  CUDA_OK(cudaMemPoolGetAccess(&flags, pool, &dev1));
  CHECK(flags == cudaMemAccessFlagsProtNone);  // by default, only device 0
  CUDA_OK(cudaMemPoolGetAccess(&flags, pool, &dev0));
  CHECK(flags == cudaMemAccessFlagsProtReadWrite);
  cudaMemAccessDesc desc = {dev1, cudaMemAccessFlagsProtReadWrite};
  CUDA_OK(cudaMemPoolSetAccess(pool, &desc, 1));
  CUDA_OK(cudaMemPoolGetAccess(&flags, pool, &dev1));
  CHECK(flags == cudaMemAccessFlagsProtReadWrite);
  cudaMemAccessDesc revoke_own = {dev0, cudaMemAccessFlagsProtNone};
  CHECK(cudaMemPoolSetAccess(pool, &revoke_own, 1) == cudaErrorInvalidValue);

  cudaMemPool_t pool1;
  CUDA_OK(cudaDeviceGetDefaultMemPool(&pool1, 1));
  CHECK(pool1 != pool);
  CHECK(cudaDeviceSetMemPool(0, pool1) == cudaErrorInvalidValue);  // another device's pool
  int* p;
  CUDA_OK(cudaMallocFromPoolAsync(&p, 4 * kKiB, pool, 0));  // device 0 memory
  cudaPointerAttributes a;
  CUDA_OK(cudaPointerGetAttributes(&a, p));
  CHECK(a.device == 0);
  CUDA_OK(cudaSetDevice(1));
  launch_fill(p, 4 * kKiB, 40, 0);  // a kernel on device 1
  int first[2] = {0, 0};
  CUDA_OK(cudaMemcpy(first, p, 8, cudaMemcpyDeviceToHost));
  CHECK(first[0] == 40 && first[1] == 41);
  CUDA_OK(cudaFreeAsync(p, 0));

  // The driver's names for the same calls.
  CU_OK(cuInit(0));
  CUmemoryPool dpool;
  CU_OK(cuDeviceGetMemPool(&dpool, 1));
  CHECK(reinterpret_cast<void*>(dpool) == reinterpret_cast<void*>(pool1));
  CUdeviceptr q;
  CU_OK(cuMemAllocAsync(&q, 1000, nullptr));  // device 1's current pool
  cuuint64_t u = 0;
  CU_OK(cuMemPoolGetAttribute(dpool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &u));
  CHECK(u == 1024);
  CU_OK(cuMemFreeAsync(q, nullptr));
  CU_OK(cuMemPoolGetAttribute(dpool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &u));
  CHECK(u == 0);
  CUDA_OK(cudaDeviceSynchronize());
  CU_OK(cuMemPoolGetAttribute(dpool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &u));
  CHECK(u == 0);  // threshold 0: given back at the synchronization
  CUDA_OK(cudaSetDevice(0));
  std::printf("two devices: access and driver calls agree\n");
  return 0;
}

int main() {
  if (figures_and_threshold() || trimming() || reuse_across_streams() || export_import()) return 1;
  int count = 0;
  CUDA_OK(cudaGetDeviceCount(&count));
  if (count >= 2 && two_devices()) return 1;
  std::printf("PASS\n");
  return 0;
}
