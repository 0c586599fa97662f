// What the parts of libcuda.so.1 that serve libraries share (besides
// driver_entry.h): more result codes, reporting, the driver API types they add
// to cuda_abi.h, and the entry points one part calls in another.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "cuda_abi.h"
#include "driver/driver_entry.h"
#include "engine/runtime.h"

namespace cnuas::cuda {

namespace driver {

// Beyond driver_entry.h's codes.
constexpr CUresult kOutOfMemory = 2, kInvalidImage = 200, kNoBinaryForGpu = 209,
                   kUnsupportedLimit = 215, kInvalidPtx = 218, kNotFound = 500, kNotReady = 600;

}  // namespace driver

// Names an entry point (or export table slot) the simulator lacks, once, on
// stderr, and returns CUDA_ERROR_NOT_SUPPORTED. Unlike the runtime's
// unsupported(), it leaves the runtime's last error alone: the caller may be
// a library's own runtime.
CUresult report_unsupported(const char* what);

// A line on stderr at CNUAS_LOG=debug.
void driver_debug(const std::string& line);

// A module over a fat binary (or its nvcc wrapper, or PTX text) that stays
// where the caller keeps it, as libraries keep theirs; its PTX is chosen and
// parsed on first use. `caller` (a return address) names the library in messages.
CUresult load_library_image(CUmodule* module, const void* image, const void* caller);

}  // namespace cnuas::cuda

extern "C" {

struct CUuuid {
  char bytes[16];
};

// The driver entry points one part of this library calls in another.
CUresult cuDriverGetVersion(int* version);
CUresult cuDeviceGetCount(int* count);
CUresult cuDeviceGetAttribute(int* value, int attribute, CUdevice device);
CUresult cuDeviceGetUuid_v2(void* uuid, CUdevice device);
CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device);
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device);
CUresult cuCtxGetCurrent(CUcontext* context);
CUresult cuCtxGetId(CUcontext context, unsigned long long* id);

}  // extern "C"
