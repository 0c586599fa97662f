// The driver API subset programs use to load PTX or fat binaries themselves
// and launch with cuLaunchKernel. It drives the same runtime engine (and so
// the same simulated platform) as libcudart.so.13.
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <mutex>

#include "cudart/error_names.h"
#include "driver/driver_entry.h"
#include "engine/graph_capture.h"
#include "engine/runtime.h"

using namespace cnuas::cuda;
using namespace cnuas::cuda::driver;

extern "C" {

CUresult cuInit(unsigned flags) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  if (flags != 0) return kInvalidValue;
  Runtime::get();
  Runtime::initialize();
  return kSuccess;
}

CUresult cuDriverGetVersion(int* version) {
  if (!version) return kInvalidValue;
  *version = 13000;
  return kSuccess;
}

CUresult cuGetErrorString(CUresult error, const char** text) {
  if (!text) return kInvalidValue;
  *text = error_description(error);
  return kSuccess;
}

CUresult cuGetErrorName(CUresult error, const char** text) {
  if (!text) return kInvalidValue;
  *text = driver_error_name(error);
  return kSuccess;
}

CUresult cuDeviceGetCount(int* count) {
  DRIVER_ENTER();
  if (!count) return kInvalidValue;
  *count = rt.device_count();
  return kSuccess;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  DRIVER_ENTER();
  if (!device) return kInvalidValue;
  if (ordinal < 0 || ordinal >= rt.device_count()) return kInvalidDevice;
  *device = ordinal;
  return kSuccess;
}

CUresult cuDeviceGetName(char* name, int length, CUdevice device) {
  DRIVER_ENTER();
  if (!name || length <= 0) return kInvalidValue;
  if (device < 0 || device >= rt.device_count()) return kInvalidDevice;
  std::snprintf(name, static_cast<std::size_t>(length), "%s", rt.device(device).desc.name.c_str());
  return kSuccess;
}

CUresult cuDeviceGetAttribute(int* value, int attribute, CUdevice device) {
  DRIVER_ENTER();
  return driver_code(rt.attribute(value, attribute, device));
}

CUresult cuDeviceTotalMem_v2(std::size_t* bytes, CUdevice device) {
  DRIVER_ENTER();
  if (!bytes) return kInvalidValue;
  if (device < 0 || device >= rt.device_count()) return kInvalidDevice;
  *bytes = rt.device(device).desc.memory_bytes;
  return kSuccess;
}

CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice device) {
  DRIVER_ENTER();
  if (!major || !minor) return kInvalidValue;
  if (device < 0 || device >= rt.device_count()) return kInvalidDevice;
  *major = static_cast<int>(rt.device(device).desc.arch / 10);
  *minor = static_cast<int>(rt.device(device).desc.arch % 10);
  return kSuccess;
}

// One context per device (its primary context); creating one makes it current.
CUresult cuCtxCreate_v2(CUcontext* context, unsigned, CUdevice device) {
  DRIVER_ENTER();
  if (!context) return kInvalidValue;
  if (device < 0 || device >= rt.device_count()) return kInvalidDevice;
  rt.make_context_current(device);
  *context = context_of(device);
  return kSuccess;
}

// CUctxCreateParams and CUexecAffinityParam as cuda.h lays them out; each
// part of the former is optional (NULL).
struct ExecAffinityParam {
  int type;  // CU_EXEC_AFFINITY_TYPE_SM_COUNT (0) is the only one
  unsigned sm_count;
};
struct ContextCreateParams {
  const ExecAffinityParam* exec_affinity;
  int exec_affinity_count;
  const void* cig;  // CUctxCigParam: CUDA in graphics
};

CUresult cuCtxCreate_v4(CUcontext* context, void* params, unsigned flags, CUdevice device) {
  DRIVER_ENTER();
  if (const auto* p = static_cast<const ContextCreateParams*>(params)) {
    if (p->exec_affinity_count < 0 || (p->exec_affinity_count > 0 && !p->exec_affinity))
      return kInvalidValue;
    for (int i = 0; p->exec_affinity && i < p->exec_affinity_count; ++i)
      if (p->exec_affinity[i].type != 0) return kInvalidValue;
    // Limiting a context's SMs needs MPS, and CIG a graphics client: the driver
    // refuses both without them, and the simulated platform has neither.
    if (p->exec_affinity && p->exec_affinity_count > 0) return kUnsupportedExecAffinity;
    if (p->cig) return kNotSupported;
  }
  return cuCtxCreate_v2(context, flags, device);
}

CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
  DRIVER_ENTER();
  if (!context) return kInvalidValue;
  if (device < 0 || device >= rt.device_count()) return kInvalidDevice;
  *context = context_of(device);
  return kSuccess;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  DRIVER_ENTER();
  return device < 0 || device >= rt.device_count() ? kInvalidDevice : kSuccess;
}

CUresult cuCtxDestroy_v2(CUcontext context) {
  DRIVER_ENTER();
  const int d = device_of(context);
  if (d < 0 || d >= rt.device_count()) return kInvalidContext;
  rt.timeline().wait_all(d);
  if (rt.context_device() == d) rt.make_context_current(-1);
  return kSuccess;
}

CUresult cuCtxSetCurrent(CUcontext context) {
  DRIVER_ENTER();
  const int d = context ? device_of(context) : -1;
  if (context && (d < 0 || d >= rt.device_count())) return kInvalidContext;
  rt.make_context_current(d);
  return kSuccess;
}

CUresult cuCtxPushCurrent_v2(CUcontext context) {
  return cuCtxSetCurrent(context);
}

CUresult cuCtxPopCurrent_v2(CUcontext* context) {
  DRIVER_ENTER();
  if (context) *context = rt.context_device() >= 0 ? context_of(rt.context_device()) : nullptr;
  rt.make_context_current(-1);
  return kSuccess;
}

CUresult cuCtxGetCurrent(CUcontext* context) {
  DRIVER_ENTER();
  if (!context) return kInvalidValue;
  *context = rt.context_device() >= 0 ? context_of(rt.context_device()) : nullptr;
  return kSuccess;
}

CUresult cuCtxGetDevice(CUdevice* device) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  if (!device) return kInvalidValue;
  *device = context_device;
  return kSuccess;
}

// CUDA 13's form: the device of a given context, or of the current one (NULL).
CUresult cuCtxGetDevice_v2(CUdevice* device, CUcontext context) {
  if (!context) return cuCtxGetDevice(device);
  DRIVER_ENTER();
  const int d = device_of(context);
  if (d < 0 || d >= rt.device_count()) return kInvalidContext;
  if (!device) return kInvalidValue;
  *device = d;
  return kSuccess;
}

CUresult cuCtxSynchronize() {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  return driver_code(rt.synchronize_device());
}

// Profiler ranges succeed in the current context (see cudart/profiler.cpp).
CUresult cuProfilerStart() {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  return kSuccess;
}

CUresult cuProfilerStop() {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  return kSuccess;
}

CUresult cuModuleLoadData(CUmodule* module, const void* image) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  if (!module || !image) return kInvalidValue;
  Module* m = nullptr;
  const cudaError_t e = rt.load_fatbin_image(image, &m);
  if (e != cudaSuccess) return driver_code(e);
  *module = reinterpret_cast<CUmodule>(m);
  return kSuccess;
}

CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned, void*, void**) {
  return cuModuleLoadData(module, image);  // JIT options do not apply: PTX is interpreted
}

CUresult cuModuleLoad(CUmodule* module, const char* path) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());  // guards `images`
  if (!path) return kInvalidValue;
  std::ifstream in(path, std::ios::binary);
  if (!in) return kFileNotFound;
  // A module may refer to its image for good; a deque never moves its elements.
  static std::deque<std::string> images;
  images.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return cuModuleLoadData(module, images.back().c_str());
}

CUresult cuModuleUnload(CUmodule module) {
  DRIVER_ENTER();
  return module ? kSuccess : kInvalidHandle;
}

CUresult cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
  DRIVER_ENTER();
  if (!function || !module || !name) return kInvalidValue;
  Kernel* k = nullptr;
  const cudaError_t e = rt.kernel_by_name(reinterpret_cast<Module*>(module), name, &k);
  if (e != cudaSuccess) return driver_code(e);
  *function = reinterpret_cast<CUfunction>(k);
  return kSuccess;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr* ptr, std::size_t* bytes, CUmodule module,
                              const char* name) {
  DRIVER_ENTER();
  if (!module || !name) return kInvalidValue;
  std::uint64_t a = 0;
  std::size_t size = 0;
  const cudaError_t e = rt.symbol_by_name(reinterpret_cast<Module*>(module), name, &a, &size);
  if (e != cudaSuccess) return driver_code(e);
  if (ptr) *ptr = a;
  if (bytes) *bytes = size;
  return kSuccess;
}

CUresult cuMemAlloc_v2(CUdeviceptr* ptr, std::size_t bytes) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  if (!ptr || bytes == 0) return kInvalidValue;
  void* p = nullptr;
  const cudaError_t e = rt.malloc_device(&p, bytes, context_device);
  *ptr = reinterpret_cast<CUdeviceptr>(p);
  return driver_code(e);
}

CUresult cuMemFree_v2(CUdeviceptr ptr) {
  DRIVER_ENTER();
  return driver_code(rt.free(reinterpret_cast<void*>(ptr), MemoryKind::Device));
}

CUresult cuMemAllocHost_v2(void** ptr, std::size_t bytes) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  return driver_code(rt.malloc_host(ptr, bytes, MemoryKind::Host));
}

CUresult cuMemFreeHost(void* ptr) {
  DRIVER_ENTER();
  return driver_code(rt.free(ptr, MemoryKind::Host));
}

CUresult cuMemGetInfo_v2(std::size_t* free_bytes, std::size_t* total) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  const DeviceState& d = rt.device(context_device);
  if (free_bytes) *free_bytes = d.desc.memory_bytes - d.allocated;
  if (total) *total = d.desc.memory_bytes;
  return kSuccess;
}

static CUresult copy_bytes(void* dst, const void* src, std::size_t n, int kind, CUstream stream,
                           bool synchronous) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  return driver_code(
      rt.copy({dst, n, src, n, n, 1, kind}, reinterpret_cast<cudaStream_t>(stream), synchronous));
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, std::size_t n) {
  return copy_bytes(reinterpret_cast<void*>(dst), src, n, cudaMemcpyHostToDevice, nullptr, true);
}

CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, std::size_t n) {
  return copy_bytes(dst, reinterpret_cast<const void*>(src), n, cudaMemcpyDeviceToHost, nullptr,
                    true);
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, std::size_t n) {
  return copy_bytes(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n,
                    cudaMemcpyDeviceToDevice, nullptr, false);
}

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, std::size_t n) {
  return copy_bytes(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n,
                    cudaMemcpyDefault, nullptr, true);
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, std::size_t n, CUstream s) {
  return copy_bytes(reinterpret_cast<void*>(dst), src, n, cudaMemcpyHostToDevice, s, false);
}

CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, std::size_t n, CUstream s) {
  return copy_bytes(dst, reinterpret_cast<const void*>(src), n, cudaMemcpyDeviceToHost, s, false);
}

static CUresult set_bytes(CUdeviceptr dst, unsigned value, std::size_t n, unsigned bytes,
                          CUstream s, bool synchronous) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  return driver_code(rt.memset(reinterpret_cast<void*>(dst), n * bytes, static_cast<int>(value), n,
                               1, bytes, reinterpret_cast<cudaStream_t>(s), synchronous));
}

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, std::size_t n) {
  return set_bytes(dst, v, n, 1, nullptr, false);
}

CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned v, std::size_t n) {
  return set_bytes(dst, v, n, 4, nullptr, false);
}

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, std::size_t n, CUstream s) {
  return set_bytes(dst, v, n, 1, s, false);
}

CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned v, std::size_t n, CUstream s) {
  return set_bytes(dst, v, n, 4, s, false);
}

CUresult cuStreamCreate(CUstream* stream, unsigned flags) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  if (!stream || flags > 1) return kInvalidValue;
  *stream = reinterpret_cast<CUstream>(rt.create_stream(flags, 0));
  return kSuccess;
}

CUresult cuStreamDestroy_v2(CUstream stream) {
  DRIVER_ENTER();
  return driver_code(rt.destroy_stream(reinterpret_cast<cudaStream_t>(stream)));
}

CUresult cuStreamSynchronize(CUstream stream) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Stream* s = rt.stream(reinterpret_cast<cudaStream_t>(stream));
  if (!s) return kInvalidHandle;
  if (const cudaError_t e = check_capture_sync(*s)) return e;
  rt.timeline().wait(s->last);
  return driver_code(rt.sticky());
}

CUresult cuStreamQuery(CUstream stream) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Stream* s = rt.stream(reinterpret_cast<cudaStream_t>(stream));
  if (!s) return kInvalidHandle;
  if (const cudaError_t e = check_capture_sync(*s)) return e;
  return rt.poll(s->last) ? kSuccess : 600;  // CUDA_ERROR_NOT_READY
}

CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned flags) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Stream* s = rt.stream(reinterpret_cast<cudaStream_t>(stream));
  Event* e = rt.event(reinterpret_cast<cudaEvent_t>(event));
  if (!s || !e) return kInvalidHandle;
  if (flags > 1) return kInvalidValue;
  bool captured = false;  // a fork or join of a stream capture (engine/graph_capture.h)
  if (const cudaError_t err = capture_wait_event(*s, *e, flags, &captured)) return err;
  if (!captured && e->marker) s->pending_waits.push_back(e->marker);
  return kSuccess;
}

CUresult cuEventCreate(CUevent* event, unsigned flags) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  if (!event || flags > 0x7) return kInvalidValue;
  *event = reinterpret_cast<CUevent>(rt.create_event(flags));
  return kSuccess;
}

CUresult cuEventDestroy_v2(CUevent event) {
  DRIVER_ENTER();
  return driver_code(rt.destroy_event(reinterpret_cast<cudaEvent_t>(event)));
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Event* e = rt.event(reinterpret_cast<cudaEvent_t>(event));
  Stream* s = rt.stream(reinterpret_cast<cudaStream_t>(stream));
  if (!e || !s) return kInvalidHandle;
  rt.record_event(*e, *s);
  return kSuccess;
}

// CU_EVENT_RECORD_EXTERNAL (1) only changes what a stream capture records; outside one
// both flags record the event as cuEventRecord does.
CUresult cuEventRecordWithFlags(CUevent event, CUstream stream, unsigned flags) {
  if (flags > 1) {
    DRIVER_ENTER();
    return kInvalidValue;
  }
  return cuEventRecord(event, stream);
}

CUresult cuEventSynchronize(CUevent event) {
  DRIVER_ENTER();
  Event* e = rt.event(reinterpret_cast<cudaEvent_t>(event));
  if (!e) return kInvalidHandle;
  if (recorded_in_capture(*e)) return cudaErrorCapturedEvent;
  rt.timeline().wait(e->marker);
  return driver_code(rt.sticky());
}

CUresult cuEventQuery(CUevent event) {
  DRIVER_ENTER();
  Event* e = rt.event(reinterpret_cast<cudaEvent_t>(event));
  if (!e) return kInvalidHandle;
  if (recorded_in_capture(*e)) return cudaErrorCapturedEvent;
  return rt.poll(e->marker) ? kSuccess : 600;
}

CUresult cuEventElapsedTime_v2(float* ms, CUevent start, CUevent end) {
  DRIVER_ENTER();
  return driver_code(rt.elapsed_ms(rt.event(reinterpret_cast<cudaEvent_t>(start)),
                                   rt.event(reinterpret_cast<cudaEvent_t>(end)), ms));
}

CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
  return cuEventElapsedTime_v2(ms, start, end);
}

}  // extern "C"

// The per-thread default stream forms (a NULL stream is the per-thread one).
DRIVER_PER_THREAD(cuMemcpyHtoD_v2_ptds, cuMemcpyHtoD_v2,
                  (CUdeviceptr dst, const void* src, std::size_t n), (dst, src, n))
DRIVER_PER_THREAD(cuMemcpyDtoH_v2_ptds, cuMemcpyDtoH_v2,
                  (void* dst, CUdeviceptr src, std::size_t n), (dst, src, n))
DRIVER_PER_THREAD(cuMemcpyDtoD_v2_ptds, cuMemcpyDtoD_v2,
                  (CUdeviceptr dst, CUdeviceptr src, std::size_t n), (dst, src, n))
DRIVER_PER_THREAD(cuMemcpy_ptds, cuMemcpy, (CUdeviceptr dst, CUdeviceptr src, std::size_t n),
                  (dst, src, n))
DRIVER_PER_THREAD(cuMemcpyHtoDAsync_v2_ptsz, cuMemcpyHtoDAsync_v2,
                  (CUdeviceptr dst, const void* src, std::size_t n, CUstream s), (dst, src, n, s))
DRIVER_PER_THREAD(cuMemcpyDtoHAsync_v2_ptsz, cuMemcpyDtoHAsync_v2,
                  (void* dst, CUdeviceptr src, std::size_t n, CUstream s), (dst, src, n, s))
DRIVER_PER_THREAD(cuMemsetD8_v2_ptds, cuMemsetD8_v2,
                  (CUdeviceptr dst, unsigned char v, std::size_t n), (dst, v, n))
DRIVER_PER_THREAD(cuMemsetD32_v2_ptds, cuMemsetD32_v2, (CUdeviceptr dst, unsigned v, std::size_t n),
                  (dst, v, n))
DRIVER_PER_THREAD(cuMemsetD8Async_ptsz, cuMemsetD8Async,
                  (CUdeviceptr dst, unsigned char v, std::size_t n, CUstream s), (dst, v, n, s))
DRIVER_PER_THREAD(cuMemsetD32Async_ptsz, cuMemsetD32Async,
                  (CUdeviceptr dst, unsigned v, std::size_t n, CUstream s), (dst, v, n, s))
DRIVER_PER_THREAD(cuEventRecord_ptsz, cuEventRecord, (CUevent event, CUstream stream),
                  (event, stream))
DRIVER_PER_THREAD(cuEventRecordWithFlags_ptsz, cuEventRecordWithFlags,
                  (CUevent event, CUstream stream, unsigned flags), (event, stream, flags))
DRIVER_PER_THREAD(cuStreamQuery_ptsz, cuStreamQuery, (CUstream stream), (stream))
DRIVER_PER_THREAD(cuStreamSynchronize_ptsz, cuStreamSynchronize, (CUstream stream), (stream))
DRIVER_PER_THREAD(cuStreamWaitEvent_ptsz, cuStreamWaitEvent,
                  (CUstream stream, CUevent event, unsigned flags), (stream, event, flags))
