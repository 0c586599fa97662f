// IPC handles through the driver (engine/ipc_handles.h).
#include "driver/driver_entry.h"
#include "engine/ipc_handles.h"

using namespace cnuas::cuda;
using namespace cnuas::cuda::driver;

extern "C" {

CUresult cuIpcGetMemHandle(abi::IpcHandle* handle, CUdeviceptr ptr) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  return driver_code(rt.ipc().get_mem_handle(handle, reinterpret_cast<const void*>(ptr)));
}

CUresult cuIpcOpenMemHandle_v2(CUdeviceptr* ptr, abi::IpcHandle handle, unsigned flags) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  void* p = nullptr;
  const cudaError_t e = rt.ipc().open_mem_handle(&p, handle, flags);
  if (ptr && e == cudaSuccess) *ptr = reinterpret_cast<CUdeviceptr>(p);
  return ptr ? driver_code(e) : kInvalidValue;
}

CUresult cuIpcOpenMemHandle(CUdeviceptr* ptr, abi::IpcHandle handle, unsigned flags) {
  return cuIpcOpenMemHandle_v2(ptr, handle, flags);
}

CUresult cuIpcCloseMemHandle(CUdeviceptr ptr) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  return driver_code(rt.ipc().close_mem_handle(reinterpret_cast<const void*>(ptr)));
}

CUresult cuIpcGetEventHandle(abi::IpcHandle* handle, CUevent event) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  return driver_code(
      rt.ipc().get_event_handle(handle, rt.event(reinterpret_cast<cudaEvent_t>(event))));
}

CUresult cuIpcOpenEventHandle(CUevent* event, abi::IpcHandle handle) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  if (!event) return kInvalidValue;
  Event* e = nullptr;
  if (const cudaError_t err = rt.ipc().open_event_handle(&e, handle)) return driver_code(err);
  *event = reinterpret_cast<CUevent>(e);
  return kSuccess;
}

}  // extern "C"
