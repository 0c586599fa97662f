// Virtual memory management (engine/virtual_memory.h): physical allocations,
// address reservations, mappings, access, shareable handles.
#include "engine/virtual_memory.h"
#include "driver/driver_entry.h"

using namespace cnuas::cuda;
using namespace cnuas::cuda::driver;

extern "C" {

CUresult cuMemGetAllocationGranularity(std::size_t* granularity, const abi::MemAllocationProp* prop,
                                       int option) {
  DRIVER_ENTER();
  return driver_code(rt.virtual_memory().granularity(granularity, prop, option));
}

CUresult cuMemCreate(unsigned long long* handle, std::size_t bytes,
                     const abi::MemAllocationProp* prop, unsigned long long flags) {
  DRIVER_ENTER();
  return driver_code(rt.virtual_memory().create(handle, bytes, prop, flags));
}

CUresult cuMemRelease(unsigned long long handle) {
  DRIVER_ENTER();
  return driver_code(rt.virtual_memory().release(handle));
}

CUresult cuMemAddressReserve(CUdeviceptr* ptr, std::size_t bytes, std::size_t alignment,
                             CUdeviceptr hint, unsigned long long flags) {
  DRIVER_ENTER();
  return driver_code(rt.virtual_memory().reserve(ptr, bytes, alignment, hint, flags));
}

CUresult cuMemAddressFree(CUdeviceptr ptr, std::size_t bytes) {
  DRIVER_ENTER();
  return driver_code(rt.virtual_memory().free_reservation(ptr, bytes));
}

CUresult cuMemMap(CUdeviceptr ptr, std::size_t bytes, std::size_t offset, unsigned long long handle,
                  unsigned long long flags) {
  DRIVER_ENTER();
  return driver_code(rt.virtual_memory().map(ptr, bytes, offset, handle, flags));
}

CUresult cuMemUnmap(CUdeviceptr ptr, std::size_t bytes) {
  DRIVER_ENTER();
  return driver_code(rt.virtual_memory().unmap(ptr, bytes));
}

CUresult cuMemSetAccess(CUdeviceptr ptr, std::size_t bytes, const abi::MemAccessDesc* desc,
                        std::size_t count) {
  DRIVER_ENTER();
  return driver_code(rt.virtual_memory().set_access(ptr, bytes, desc, count));
}

CUresult cuMemGetAccess(unsigned long long* flags, const abi::MemLocation* location,
                        CUdeviceptr ptr) {
  DRIVER_ENTER();
  return driver_code(rt.virtual_memory().get_access(flags, location, ptr));
}

CUresult cuMemExportToShareableHandle(void* shareable, unsigned long long handle, int type,
                                      unsigned long long flags) {
  DRIVER_ENTER();
  return driver_code(rt.virtual_memory().export_handle(shareable, handle, type, flags));
}

CUresult cuMemImportFromShareableHandle(unsigned long long* handle, void* os_handle, int type) {
  DRIVER_ENTER();
  return driver_code(rt.virtual_memory().import_handle(handle, os_handle, type));
}

CUresult cuMemRetainAllocationHandle(unsigned long long* handle, void* addr) {
  DRIVER_ENTER();
  return driver_code(rt.virtual_memory().retain(handle, reinterpret_cast<std::uint64_t>(addr)));
}

CUresult cuMemGetAllocationPropertiesFromHandle(abi::MemAllocationProp* prop,
                                                unsigned long long handle) {
  DRIVER_ENTER();
  return driver_code(rt.virtual_memory().properties(prop, handle));
}

}  // extern "C"
