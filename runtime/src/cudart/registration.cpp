// The registration calls nvcc's generated host code makes while static
// constructors run, and the launch path its <<<...>>> syntax expands to.
#include <vector>

#include "cudart/entry.h"

using namespace cnuas::cuda;

namespace {

struct CallConfiguration {
  dim3 grid, block;
  std::size_t shared;
  cudaStream_t stream;
};
thread_local std::vector<CallConfiguration> t_configurations;

}  // namespace

extern "C" {

void** __cudaRegisterFatBinary(void* fatbin) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  return reinterpret_cast<void**>(Registrations::get().add_fatbin(fatbin));
}

void __cudaRegisterFatBinaryEnd(void**) {}

void __cudaUnregisterFatBinary(void**) {
  // Modules stay until exit: the trace and statistics are written then.
}

void __cudaRegisterFunction(void** handle, const char* host_fun, char* device_fun,
                            const char* device_name, int, uint3*, uint3*, dim3*, dim3*, int*) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  Kernel k;
  k.module = reinterpret_cast<Module*>(handle);
  k.name = device_fun ? device_fun : device_name;
  Registrations::get().kernels[host_fun] = k;
}

void __cudaRegisterVar(void** handle, char* host_var, char* device_address, const char* device_name,
                       int, std::size_t size, int, int) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  Variable v;
  v.module = reinterpret_cast<Module*>(handle);
  v.name = device_address ? device_address : device_name;
  v.size = size;
  Registrations::get().variables[host_var] = v;
}

void __cudaRegisterManagedVar(void** handle, void** host_var_ptr_address, char* device_address,
                              const char* device_name, int, std::size_t size, int, int) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  Variable v;
  v.module = reinterpret_cast<Module*>(handle);
  v.name = device_address ? device_address : device_name;
  v.size = size;
  v.managed = true;
  v.managed_host = host_var_ptr_address;
  Registrations::get().variables[host_var_ptr_address] = v;
}

char __cudaInitModule(void** handle) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  return Runtime::get().ensure_loaded(*reinterpret_cast<Module*>(handle)) == cudaSuccess;
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, std::size_t shared,
                                     cudaStream_t stream) {
  t_configurations.push_back({grid, block, shared, stream});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, std::size_t* shared, void* stream) {
  if (t_configurations.empty()) return cudaErrorMissingConfiguration;
  const CallConfiguration c = t_configurations.back();
  t_configurations.pop_back();
  *grid = c.grid;
  *block = c.block;
  *shared = c.shared;
  *static_cast<cudaStream_t*>(stream) = c.stream;
  return cudaSuccess;
}

// The kernel handle nvcc caches is the host stub's address itself. The lock:
// another thread may be registering a module (a library loaded later).
cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* host_fun) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  if (!kernel) return cudaErrorInvalidValue;
  *kernel = reinterpret_cast<cudaKernel_t>(const_cast<void*>(host_fun));
  return Registrations::get().kernels.count(host_fun) ? cudaSuccess
                                                      : cudaErrorInvalidDeviceFunction;
}

cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args,
                             std::size_t shared, cudaStream_t stream);

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                               std::size_t shared, cudaStream_t stream) {
  return cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, args, shared, stream);
}

}  // extern "C"

CUDART_PER_THREAD(_ptsz, cudaError_t, __cudaLaunchKernel,
                  (cudaKernel_t kernel, dim3 grid, dim3 block, void** args, std::size_t shared,
                   cudaStream_t stream),
                  (kernel, grid, block, args, shared, stream))
