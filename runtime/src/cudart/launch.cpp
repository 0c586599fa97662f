// Kernel launches, function attributes and occupancy.
#include <cstring>

#include "cudart/entry.h"
#include "engine/access_policies.h"

using namespace cnuas::cuda;

namespace {

// cudaLaunchConfig_t and cudaLaunchAttribute as CUDA 13 lays them out.
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char raw[64];
    int cooperative;
    struct {
      unsigned x, y, z;
    } cluster;
  } val;
};
static_assert(sizeof(LaunchAttribute) == 72, "cudaLaunchAttribute layout");
struct LaunchConfigAbi {
  dim3 grid, block;
  std::size_t dynamic_shared;
  cudaStream_t stream;
  LaunchAttribute* attrs;
  unsigned num_attrs;
};
constexpr int kAttributeIgnore = 0, kAttributeCooperative = 2, kAttributeCluster = 4;

cudaError_t launch(Runtime& rt, const void* func, const LaunchRequest& r, void** args) {
  Kernel* k = nullptr;
  if (const cudaError_t e = rt.kernel(func, &k)) return e;
  return rt.launch(*k, r, args);
}

LaunchRequest request(dim3 grid, dim3 block, std::size_t shared, cudaStream_t stream,
                      bool cooperative) {
  LaunchRequest r;
  r.grid = grid;
  r.block = block;
  r.shared = shared;
  r.stream = stream;
  r.cooperative = cooperative;
  return r;
}

}  // namespace

extern "C" {

cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args,
                             std::size_t shared, cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  return launch(rt, func, request(grid, block, shared, stream, false), args);
}

cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block, void** args,
                                        std::size_t shared, cudaStream_t stream) {
  CUDART_ENTER_STICKY();
  return launch(rt, func, request(grid, block, shared, stream, true), args);
}

cudaError_t cudaLaunchKernelExC(const void* config_ptr, const void* func, void** args) {
  CUDART_ENTER_STICKY();
  const auto* config = static_cast<const LaunchConfigAbi*>(config_ptr);
  if (!config) return rt.record(cudaErrorInvalidValue);
  LaunchRequest r =
      request(config->grid, config->block, config->dynamic_shared, config->stream, false);
  for (unsigned i = 0; i < config->num_attrs; ++i) {
    const LaunchAttribute& a = config->attrs[i];
    if (a.id == kAttributeIgnore) continue;
    if (a.id == kAttributeCooperative) {
      r.cooperative = a.val.cooperative != 0;
    } else if (a.id == kAttributeCluster) {
      r.cluster = {a.val.cluster.x, a.val.cluster.y, a.val.cluster.z};
      if (r.cluster.x == 0 || r.cluster.y == 0 || r.cluster.z == 0 || r.grid.x % r.cluster.x ||
          r.grid.y % r.cluster.y || r.grid.z % r.cluster.z ||
          r.cluster.x * r.cluster.y * r.cluster.z > 16)
        return rt.record(cudaErrorInvalidClusterSize);
    } else if (a.id == abi::kAttributeAccessPolicyWindow) {
      abi::AccessPolicyWindow w{};
      std::memcpy(&w, a.val.raw, sizeof w);
      if (const cudaError_t e = rt.access_policies().check(w)) return rt.record(e);
      r.access_policy = AccessPolicies::policy_of(w);
    } else {
      return rt.unsupported("cudaLaunchKernelExC with this launch attribute");
    }
  }
  return launch(rt, func, r, args);
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  CUDART_ENTER_STICKY();
  Kernel* k = nullptr;
  if (const cudaError_t e = rt.kernel(func, &k)) return e;
  return rt.func_attributes(*k, attr);
}

cudaError_t cudaFuncSetAttribute(const void* func, int attr, int value) {
  CUDART_ENTER_STICKY();
  Kernel* k = nullptr;
  if (const cudaError_t e = rt.kernel(func, &k)) return e;
  if (attr == 8) {  // cudaFuncAttributeMaxDynamicSharedMemorySize
    cudaDeviceProp p;
    rt.fill_properties(p, rt.current_device());
    const cnuas::ptx::Function* f = rt.function(*k);
    if (value < 0 ||
        static_cast<std::size_t>(value) + f->static_shared_bytes > p.sharedMemPerBlockOptin)
      return rt.record(cudaErrorInvalidValue);
    k->max_dynamic_shared = value;
    return cudaSuccess;
  }
  if (attr == 9)
    return value >= -1 && value <= 100 ? cudaSuccess : rt.record(cudaErrorInvalidValue);
  if (attr == 14) {  // cudaFuncAttributeNonPortableClusterSizeAllowed: clusters of 9 to 16 CTAs
    if (value != 0 && value != 1) return rt.record(cudaErrorInvalidValue);
    k->non_portable_clusters = value != 0;
    return cudaSuccess;
  }
  return rt.unsupported("cudaFuncSetAttribute with this attribute");
}

// A hint the simulated parts have no use for (no configurable L1/shared split).
cudaError_t cudaFuncSetCacheConfig(const void* func, int) {
  CUDART_ENTER_STICKY();
  Kernel* k = nullptr;
  return rt.kernel(func, &k);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void* func,
                                                                   int block_size,
                                                                   std::size_t shared,
                                                                   unsigned flags) {
  CUDART_ENTER_STICKY();
  if (!blocks || block_size <= 0 || flags > 1) return rt.record(cudaErrorInvalidValue);
  Kernel* k = nullptr;
  if (const cudaError_t e = rt.kernel(func, &k)) return e;
  *blocks = rt.max_active_blocks(*k, block_size, shared);
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* func,
                                                          int block_size, std::size_t shared) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, func, block_size, shared,
                                                                0);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(std::size_t* bytes, const void* func,
                                                      int blocks, int block_size) {
  CUDART_ENTER_STICKY();
  Kernel* k = nullptr;
  if (!bytes || blocks <= 0 || block_size <= 0) return rt.record(cudaErrorInvalidValue);
  if (const cudaError_t e = rt.kernel(func, &k)) return e;
  cudaDeviceProp p;
  rt.fill_properties(p, rt.current_device());
  const std::size_t per_block = p.sharedMemPerMultiprocessor / static_cast<std::size_t>(blocks);
  const std::size_t used = rt.function(*k)->static_shared_bytes + p.reservedSharedMemPerBlock;
  *bytes = per_block > used ? std::min(per_block - used, p.sharedMemPerBlockOptin) : 0;
  return cudaSuccess;
}

cudaError_t cudaGetFuncBySymbol(void** function, const void* symbol) {
  CUDART_ENTER_STICKY();
  Kernel* k = nullptr;
  if (!function) return rt.record(cudaErrorInvalidValue);
  if (const cudaError_t e = rt.kernel(symbol, &k)) return e;
  *function = k;
  return cudaSuccess;
}

}  // extern "C"

CUDART_PER_THREAD(_ptsz, cudaError_t, cudaLaunchKernel,
                  (const void* f, dim3 g, dim3 b, void** a, std::size_t s, cudaStream_t st),
                  (f, g, b, a, s, st))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaLaunchCooperativeKernel,
                  (const void* f, dim3 g, dim3 b, void** a, std::size_t s, cudaStream_t st),
                  (f, g, b, a, s, st))
CUDART_PER_THREAD(_ptsz, cudaError_t, cudaLaunchKernelExC, (const void* c, const void* f, void** a),
                  (c, f, a))
