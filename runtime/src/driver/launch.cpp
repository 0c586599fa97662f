// Kernel launches through the driver: cuLaunchKernel with a parameter array
// or a packed buffer, cuLaunchKernelEx with launch attributes, cooperative
// launches. A CUkernel may stand for a CUfunction (CUDA 12), and a library's
// module is read on its first launch.
#include <cstring>
#include <vector>

#include "driver/driver_internal.h"

using namespace cnuas::cuda;
using namespace cnuas::cuda::driver;

namespace {

// CUlaunchConfig and CUlaunchAttribute as CUDA 13 lays them out.
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char raw[64];
    int cooperative;
    struct {
      unsigned x, y, z;
    } cluster;
  } value;
};
static_assert(sizeof(LaunchAttribute) == 72, "CUlaunchAttribute layout");
struct LaunchConfig {
  unsigned grid_x, grid_y, grid_z, block_x, block_y, block_z, shared;
  CUstream stream;
  LaunchAttribute* attrs;
  unsigned num_attrs;
};

enum : int {
  kAttributeIgnore = 0,
  kAttributeAccessPolicyWindow = 1,
  kAttributeCooperative = 2,
  kAttributeSynchronizationPolicy = 3,
  kAttributeClusterDimension = 4,
  kAttributeClusterSchedulingPolicy = 5,
  kAttributeProgrammaticStreamSerialization = 6,
  kAttributePriority = 8,
  kAttributeMemSyncDomainMap = 9,
  kAttributeMemSyncDomain = 10,
  kAttributePreferredClusterDimension = 11,
  kAttributePreferredSharedMemoryCarveout = 14,
};

CUresult launch(Runtime& rt, CUfunction f, const LaunchRequest& r, void** params, void** extra) {
  if (!f) return kInvalidHandle;
  auto* k = reinterpret_cast<Kernel*>(f);
  if (const cudaError_t e = rt.ensure_loaded(*k->module)) return driver_code(e);
  if (params && extra) return kInvalidValue;
  if (params || !extra) return driver_code(rt.launch(*k, r, params));
  // extra: CU_LAUNCH_PARAM_BUFFER_POINTER (1), _SIZE (2), terminated by _END (0).
  const void* buffer = nullptr;
  std::size_t size = 0;
  for (void** e = extra; *e; e += 2) {
    const auto tag = reinterpret_cast<std::uintptr_t>(e[0]);
    if (tag == 1)
      buffer = e[1];
    else if (tag == 2)
      size = *static_cast<std::size_t*>(e[1]);
    else
      return kInvalidValue;
  }
  if (!buffer) return kInvalidValue;
  const auto* bytes = static_cast<const std::uint8_t*>(buffer);
  return driver_code(rt.launch_packed(*k, r, std::vector<std::uint8_t>(bytes, bytes + size)));
}

LaunchRequest request(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                      unsigned shared, CUstream stream) {
  LaunchRequest r;
  r.grid = {gx, gy, gz};
  r.block = {bx, by, bz};
  r.shared = shared;
  r.stream = reinterpret_cast<cudaStream_t>(stream);
  return r;
}

}  // namespace

extern "C" {

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, CUstream stream, void** params,
                        void** extra) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  return launch(rt, f, request(gx, gy, gz, bx, by, bz, shared, stream), params, extra);
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                   unsigned by, unsigned bz, unsigned shared, CUstream stream,
                                   void** params) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  LaunchRequest r = request(gx, gy, gz, bx, by, bz, shared, stream);
  r.cooperative = true;
  return launch(rt, f, r, params, nullptr);
}

// Attributes that only let the hardware overlap or prioritize work (a
// programmatic dependent launch, a priority, an L2 access window, memory
// synchronization domains, scheduling preferences) are honoured by running
// the launch in stream order, which every one of them allows.
CUresult cuLaunchKernelEx(const LaunchConfig* config, CUfunction f, void** params, void** extra) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  if (!config || (config->num_attrs > 0 && !config->attrs)) return kInvalidValue;
  LaunchRequest r = request(config->grid_x, config->grid_y, config->grid_z, config->block_x,
                            config->block_y, config->block_z, config->shared, config->stream);
  for (unsigned i = 0; i < config->num_attrs; ++i) {
    const LaunchAttribute& a = config->attrs[i];
    switch (a.id) {
      case kAttributeCooperative:
        r.cooperative = a.value.cooperative != 0;
        break;
      case kAttributeClusterDimension:
        r.cluster = {a.value.cluster.x, a.value.cluster.y, a.value.cluster.z};
        if (r.cluster.x == 0 || r.cluster.y == 0 || r.cluster.z == 0 || r.grid.x % r.cluster.x ||
            r.grid.y % r.cluster.y || r.grid.z % r.cluster.z ||
            r.cluster.x * r.cluster.y * r.cluster.z > 16)
          return driver_code(cudaErrorInvalidClusterSize);
        break;
      case kAttributeIgnore:
      case kAttributeAccessPolicyWindow:
      case kAttributeSynchronizationPolicy:
      case kAttributeClusterSchedulingPolicy:
      case kAttributeProgrammaticStreamSerialization:
      case kAttributePriority:
      case kAttributeMemSyncDomainMap:
      case kAttributeMemSyncDomain:
      case kAttributePreferredClusterDimension:
      case kAttributePreferredSharedMemoryCarveout:
        break;
      default:
        return report_unsupported(
            ("cuLaunchKernelEx with launch attribute " + std::to_string(a.id)).c_str());
    }
  }
  return launch(rt, f, r, params, extra);
}

}  // extern "C"

// The per-thread default stream forms (a NULL stream is the per-thread one).
DRIVER_PER_THREAD(cuLaunchKernel_ptsz, cuLaunchKernel,
                  (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned shared, CUstream stream, void** params, void** extra),
                  (f, gx, gy, gz, bx, by, bz, shared, stream, params, extra))
DRIVER_PER_THREAD(cuLaunchKernelEx_ptsz, cuLaunchKernelEx,
                  (const LaunchConfig* config, CUfunction f, void** params, void** extra),
                  (config, f, params, extra))
DRIVER_PER_THREAD(cuLaunchCooperativeKernel_ptsz, cuLaunchCooperativeKernel,
                  (CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned shared, CUstream stream, void** params),
                  (f, gx, gy, gz, bx, by, bz, shared, stream, params))
