// Stream queries a CUDA runtime makes of the driver before it issues work:
// flags, priority, context, device and ID (capture state: driver_graph_exec.cpp).
#include "driver/driver_internal.h"

using namespace cnuas::cuda;
using namespace cnuas::cuda::driver;

extern "C" {

CUresult cuStreamCreateWithPriority(CUstream* stream, unsigned flags, int priority) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  if (!stream || flags > 1) return kInvalidValue;
  // Priorities run from 0 (lowest) to -5 (greatest) and are clamped, as cuCtxGetStreamPriorityRange
  // says.
  priority = priority > 0 ? 0 : priority < -5 ? -5 : priority;
  *stream = reinterpret_cast<CUstream>(rt.create_stream(flags, priority));
  return kSuccess;
}

CUresult cuStreamGetFlags(CUstream stream, unsigned* flags) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Stream* s = rt.stream(reinterpret_cast<cudaStream_t>(stream));
  if (!s) return kInvalidHandle;
  if (!flags) return kInvalidValue;
  *flags = s->flags;
  return kSuccess;
}

CUresult cuStreamGetPriority(CUstream stream, int* priority) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Stream* s = rt.stream(reinterpret_cast<cudaStream_t>(stream));
  if (!s) return kInvalidHandle;
  if (!priority) return kInvalidValue;
  *priority = s->priority;
  return kSuccess;
}

CUresult cuStreamGetDevice(CUstream stream, CUdevice* device) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Stream* s = rt.stream(reinterpret_cast<cudaStream_t>(stream));
  if (!s) return kInvalidHandle;
  if (!device) return kInvalidValue;
  *device = s->device;
  return kSuccess;
}

CUresult cuStreamGetCtx(CUstream stream, CUcontext* context) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Stream* s = rt.stream(reinterpret_cast<cudaStream_t>(stream));
  if (!s) return kInvalidHandle;
  if (!context) return kInvalidValue;
  *context = context_of(s->device);
  return kSuccess;
}

// CUDA 12.5's form also names the green context (there are none here).
CUresult cuStreamGetCtx_v2(CUstream stream, CUcontext* context, void** green_context) {
  if (green_context) *green_context = nullptr;
  return cuStreamGetCtx(stream, context);
}

// An ID unique in the process and never reused: the stream's serial number.
CUresult cuStreamGetId(CUstream stream, unsigned long long* id) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  Stream* s = rt.stream(reinterpret_cast<cudaStream_t>(stream));
  if (!s) return kInvalidHandle;
  if (!id) return kInvalidValue;
  *id = s->serial;
  return kSuccess;
}

}  // extern "C"

// The per-thread default stream forms (a NULL stream is the per-thread one).
DRIVER_PER_THREAD(cuStreamGetFlags_ptsz, cuStreamGetFlags, (CUstream stream, unsigned* flags),
                  (stream, flags))
DRIVER_PER_THREAD(cuStreamGetPriority_ptsz, cuStreamGetPriority, (CUstream stream, int* priority),
                  (stream, priority))
DRIVER_PER_THREAD(cuStreamGetDevice_ptsz, cuStreamGetDevice, (CUstream stream, CUdevice* device),
                  (stream, device))
DRIVER_PER_THREAD(cuStreamGetCtx_ptsz, cuStreamGetCtx, (CUstream stream, CUcontext* context),
                  (stream, context))
DRIVER_PER_THREAD(cuStreamGetCtx_v2_ptsz, cuStreamGetCtx_v2,
                  (CUstream stream, CUcontext* context, void** green_context),
                  (stream, context, green_context))
DRIVER_PER_THREAD(cuStreamGetId_ptsz, cuStreamGetId, (CUstream stream, unsigned long long* id),
                  (stream, id))
