// Virtual memory management: physical allocations (cuMemCreate) mapped into
// reserved address ranges, side by side and more than once, against host
// references. Usage: virtual_memory [fault-before-access | fault-after-unmap]
// (each fault mode ends in the sticky illegal-address fault, so it runs on its own).
#include <cuda.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "cu_check.h"

constexpr size_t kMiB = 1 << 20;

__global__ void fill(unsigned* p, size_t n, unsigned mul, unsigned add) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) p[i] = unsigned(i) * mul + add;
}

__global__ void add_one(unsigned* p, size_t n) {
  const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) p[i] += 1;
}

static void launch_fill(CUdeviceptr p, size_t bytes, unsigned mul, unsigned add) {
  const size_t n = bytes / 4;
  fill<<<unsigned((n + 255) / 256), 256>>>(reinterpret_cast<unsigned*>(p), n, mul, add);
}

static CUmemAllocationProp device_prop(int device, CUmemAllocationHandleType types) {
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = types;
  return prop;
}

static CUmemAccessDesc read_write(int device) {
  CUmemAccessDesc d = {};
  d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  d.location.id = device;
  d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return d;
}

static std::vector<unsigned> download(CUdeviceptr p, size_t bytes) {
  std::vector<unsigned> v(bytes / 4);
  if (cudaMemcpy(v.data(), reinterpret_cast<void*>(p), bytes, cudaMemcpyDeviceToHost) != 0)
    v.clear();
  return v;
}

// A kernel touching a mapping no device has access to (yet, or any more)
// faults as on the GPU.
static int fault(bool after_unmap) {
  CU_OK(cuInit(0));
  CUmemAllocationProp prop = device_prop(0, CU_MEM_HANDLE_TYPE_NONE);
  CUmemGenericAllocationHandle h;
  CU_OK(cuMemCreate(&h, 2 * kMiB, &prop, 0));
  CUdeviceptr r;
  CU_OK(cuMemAddressReserve(&r, 2 * kMiB, 0, 0, 0));
  CU_OK(cuMemMap(r, 2 * kMiB, 0, h, 0));
  if (after_unmap) {
    const CUmemAccessDesc rw = read_write(0);
    CU_OK(cuMemSetAccess(r, 2 * kMiB, &rw, 1));
    launch_fill(r, 2 * kMiB, 1, 0);
    CUDA_OK(cudaDeviceSynchronize());  // mapped and accessible: fine
    CU_OK(cuMemUnmap(r, 2 * kMiB));
  }
  launch_fill(r, 2 * kMiB, 1, 0);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("%s: %s\n", after_unmap ? "after unmap" : "before access", cudaGetErrorName(e));
  CHECK(e == cudaErrorIllegalAddress);
  std::printf("PASS\n");
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 2) return fault(std::strcmp(argv[1], "fault-after-unmap") == 0);
  CU_OK(cuInit(0));
  int supported = 0, fd_supported = 0;
  CU_OK(
      cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0));
  CU_OK(cuDeviceGetAttribute(&fd_supported,
                             CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 0));
  CHECK(supported == 1 && fd_supported == 1);

  CUmemAllocationProp prop = device_prop(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  size_t granularity = 0, recommended = 0;
  CU_OK(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  CU_OK(cuMemGetAllocationGranularity(&recommended, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  CHECK(granularity == 2 * kMiB && recommended == 2 * kMiB);  // the GPU's 2 MiB page
  // Libraries reach these calls through cuGetProcAddress: the same functions.
  void* fn = nullptr;
  CU_OK(cuGetProcAddress("cuMemGetAllocationGranularity", &fn, 13000, 0, nullptr));
  size_t via_proc = 0;
  CU_OK(reinterpret_cast<decltype(&cuMemGetAllocationGranularity)>(fn)(
      &via_proc, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  CHECK(via_proc == granularity);

  size_t free0 = 0, total = 0;
  CUDA_OK(cudaMemGetInfo(&free0, &total));
  // Two physical allocations of one granule each.
  CUmemGenericAllocationHandle h0, h1;
  CU_OK(cuMemCreate(&h0, 2 * kMiB, &prop, 0));
  CUmemAllocationProp plain = device_prop(0, CU_MEM_HANDLE_TYPE_NONE);
  CU_OK(cuMemCreate(&h1, 2 * kMiB, &plain, 0));
  size_t free1 = 0;
  CUDA_OK(cudaMemGetInfo(&free1, &total));
  CHECK(free0 - free1 == 4 * kMiB);  // physical memory is taken at creation

  // Granularity errors.
  CUmemGenericAllocationHandle bad;
  CHECK(cuMemCreate(&bad, kMiB, &prop, 0) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemCreate(&bad, 2 * kMiB, &prop, 1) == CUDA_ERROR_INVALID_VALUE);  // flags
  CUmemAllocationProp elsewhere = device_prop(7, CU_MEM_HANDLE_TYPE_NONE);
  CHECK(cuMemCreate(&bad, 2 * kMiB, &elsewhere, 0) == CUDA_ERROR_INVALID_DEVICE);

  // One contiguous 4 MiB range backed by the two allocations side by side.
  CUdeviceptr r;
  CU_OK(cuMemAddressReserve(&r, 4 * kMiB, 0, 0, 0));
  CHECK(r % (2 * kMiB) == 0);
  CHECK(cuMemMap(r + kMiB, 2 * kMiB, 0, h0, 0) == CUDA_ERROR_INVALID_VALUE);      // address
  CHECK(cuMemMap(r, 2 * kMiB, kMiB, h0, 0) == CUDA_ERROR_INVALID_VALUE);          // offset
  CHECK(cuMemMap(r, 3 * kMiB, 0, h0, 0) == CUDA_ERROR_INVALID_VALUE);             // size
  CHECK(cuMemMap(r, 4 * kMiB, 0, h0, 0) == CUDA_ERROR_INVALID_VALUE);             // past h0
  CHECK(cuMemMap(r + 4 * kMiB, 2 * kMiB, 0, h0, 0) == CUDA_ERROR_INVALID_VALUE);  // past r
  CU_OK(cuMemMap(r, 2 * kMiB, 0, h0, 0));
  CHECK(cuMemMap(r, 2 * kMiB, 0, h1, 0) == CUDA_ERROR_INVALID_VALUE);  // already mapped
  CU_OK(cuMemMap(r + 2 * kMiB, 2 * kMiB, 0, h1, 0));

  // Mapped but not yet accessible: copies are refused, access reads "none".
  unsigned long long flags = 99;
  CUmemLocation dev0 = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
  CU_OK(cuMemGetAccess(&flags, &dev0, r));
  CHECK(flags == CU_MEM_ACCESS_FLAGS_PROT_NONE);
  std::vector<unsigned> host(4 * kMiB / 4, 7);
  CHECK(cudaMemcpy(reinterpret_cast<void*>(r), host.data(), 4 * kMiB, cudaMemcpyHostToDevice) ==
        cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);

  const CUmemAccessDesc rw = read_write(0);
  CHECK(cuMemSetAccess(r, 3 * kMiB, &rw, 1) == CUDA_ERROR_INVALID_VALUE);  // ends inside h1
  CU_OK(cuMemSetAccess(r, 4 * kMiB, &rw, 1));
  CU_OK(cuMemGetAccess(&flags, &dev0, r + 3 * kMiB));
  CHECK(flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);

  // A kernel over the whole range, one copy back across both allocations.
  launch_fill(r, 4 * kMiB, 3, 1);
  std::vector<unsigned> got = download(r, 4 * kMiB);
  CHECK(got.size() == 4 * kMiB / 4);
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i] != unsigned(i) * 3 + 1) {
      std::fprintf(stderr, "check failed: element %zu is %u\n", i, got[i]);
      return 1;
    }

  // Aliasing: h1 mapped a second time elsewhere is the same memory.
  CUdeviceptr r2;
  CU_OK(cuMemAddressReserve(&r2, 2 * kMiB, 0, 0, 0));
  CU_OK(cuMemMap(r2, 2 * kMiB, 0, h1, 0));
  CU_OK(cuMemSetAccess(r2, 2 * kMiB, &rw, 1));
  got = download(r2, 8);
  const size_t half = 2 * kMiB / 4;  // first element of the second allocation
  CHECK(got[0] == unsigned(half) * 3 + 1 && got[1] == unsigned(half + 1) * 3 + 1);
  add_one<<<unsigned(half / 256), 256>>>(reinterpret_cast<unsigned*>(r2), half);  // through r2
  got = download(r + 2 * kMiB, 2 * kMiB);                                         // seen through r
  for (size_t i = 0; i < half; ++i) CHECK(got[i] == unsigned(half + i) * 3 + 2);

  // The handle behind any mapped address, and the properties it was made with.
  CUmemGenericAllocationHandle again;
  CU_OK(cuMemRetainAllocationHandle(&again, reinterpret_cast<void*>(r + 3 * kMiB + 100)));
  CHECK(again == h1);
  CU_OK(cuMemRelease(again));
  CHECK(cuMemRetainAllocationHandle(&again, reinterpret_cast<void*>(r + 4 * kMiB)) ==
        CUDA_ERROR_INVALID_VALUE);
  CUmemAllocationProp read_back = {};
  CU_OK(cuMemGetAllocationPropertiesFromHandle(&read_back, h0));
  CHECK(read_back.type == CU_MEM_ALLOCATION_TYPE_PINNED && read_back.location.id == 0 &&
        read_back.requestedHandleTypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);

  // Export h0 as a file descriptor, import it: the same memory again.
  int fd = -1;
  CHECK(cuMemExportToShareableHandle(&fd, h1, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) ==
        CUDA_ERROR_INVALID_VALUE);  // h1 asked for no handle type
  CU_OK(cuMemExportToShareableHandle(&fd, h0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  CHECK(fd >= 0 && fcntl(fd, F_GETFD) != -1);
  CUmemGenericAllocationHandle imported;
  CU_OK(cuMemImportFromShareableHandle(&imported, reinterpret_cast<void*>(intptr_t(fd)),
                                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
  close(fd);
  int pipe_fds[2];
  CHECK(pipe(pipe_fds) == 0);
  CHECK(cuMemImportFromShareableHandle(&bad, reinterpret_cast<void*>(intptr_t(pipe_fds[0])),
                                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ==
        CUDA_ERROR_NOT_SUPPORTED);  // not memory this process exported
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  CUdeviceptr r3;
  CU_OK(cuMemAddressReserve(&r3, 2 * kMiB, 0, 0, 0));
  CU_OK(cuMemMap(r3, 2 * kMiB, 0, imported, 0));
  CU_OK(cuMemSetAccess(r3, 2 * kMiB, &rw, 1));
  launch_fill(r3, 2 * kMiB, 5, 9);  // through the import...
  got = download(r, 2 * kMiB);      // ...in the exporter's mapping
  for (size_t i = 0; i < half; ++i) CHECK(got[i] == unsigned(i) * 5 + 9);

  // Not cudaMalloc memory: cudaFree refuses it.
  CHECK(cudaFree(reinterpret_cast<void*>(r)) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);

  // A handle released while mapped keeps its memory until the last unmap.
  CU_OK(cuMemRelease(h1));
  CHECK(cuMemRelease(h1) == CUDA_ERROR_INVALID_VALUE);
  got = download(r2, 4);
  CHECK(got[0] == unsigned(half) * 3 + 2);

  // Unmapping takes whole mappings; the reservation goes once empty.
  CHECK(cuMemUnmap(r, kMiB) == CUDA_ERROR_INVALID_VALUE);
  CHECK(cuMemAddressFree(r, 4 * kMiB) == CUDA_ERROR_INVALID_VALUE);  // still mapped
  CU_OK(cuMemUnmap(r, 4 * kMiB));                                    // both mappings at once
  CU_OK(cuMemUnmap(r2, 2 * kMiB));
  CU_OK(cuMemUnmap(r3, 2 * kMiB));
  CHECK(cuMemAddressFree(r, 2 * kMiB) == CUDA_ERROR_INVALID_VALUE);  // not its size
  CU_OK(cuMemAddressFree(r, 4 * kMiB));
  CU_OK(cuMemAddressFree(r2, 2 * kMiB));
  CU_OK(cuMemAddressFree(r3, 2 * kMiB));
  CU_OK(cuMemRelease(h0));
  size_t free2 = 0;
  CUDA_OK(cudaMemGetInfo(&free2, &total));
  CHECK(free2 == free1 + 2 * kMiB);  // h1 is gone; `imported` still holds h0's memory
  CU_OK(cuMemRelease(imported));
  CUDA_OK(cudaMemGetInfo(&free2, &total));
  CHECK(free2 == free0);

  // Two devices: memory of one, reached from the other once it has access.
  int count = 0;
  CU_OK(cuDeviceGetCount(&count));
  if (count >= 2) {
    CUmemAllocationProp on1 = device_prop(1, CU_MEM_HANDLE_TYPE_NONE);
    CUmemGenericAllocationHandle h;
    CU_OK(cuMemCreate(&h, 2 * kMiB, &on1, 0));
    CUdeviceptr p;
    CU_OK(cuMemAddressReserve(&p, 2 * kMiB, 0, 0, 0));
    CU_OK(cuMemMap(p, 2 * kMiB, 0, h, 0));
    const CUmemAccessDesc both[2] = {read_write(0), read_write(1)};
    CU_OK(cuMemSetAccess(p, 2 * kMiB, both, 2));
    CUmemLocation dev1 = {CU_MEM_LOCATION_TYPE_DEVICE, 1};
    CU_OK(cuMemGetAccess(&flags, &dev1, p));
    CHECK(flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    cudaPointerAttributes a;
    CUDA_OK(cudaPointerGetAttributes(&a, reinterpret_cast<void*>(p)));
    CHECK(a.type == cudaMemoryTypeDevice && a.device == 1);
    CUDA_OK(cudaSetDevice(0));
    launch_fill(p, 2 * kMiB, 2, 0);  // a kernel on device 0 writes device 1's memory
    CUDA_OK(cudaSetDevice(1));
    add_one<<<unsigned(half / 256), 256>>>(reinterpret_cast<unsigned*>(p), half);
    got = download(p, 2 * kMiB);
    for (size_t i = 0; i < half; ++i) CHECK(got[i] == unsigned(i) * 2 + 1);
    CU_OK(cuMemUnmap(p, 2 * kMiB));
    CU_OK(cuMemAddressFree(p, 2 * kMiB));
    CU_OK(cuMemRelease(h));
    std::printf("two devices: device 1's memory written from device 0\n");
  }
  std::printf("PASS\n");
  return 0;
}
