// IPC handles within the process (engine/ipc_handles.h).
#include "cudart/entry.h"
#include "engine/ipc_handles.h"

using namespace cnuas::cuda;

extern "C" {

cudaError_t cudaIpcGetMemHandle(abi::IpcHandle* handle, void* ptr) {
  CUDART_ENTER_STICKY();
  return rt.record(rt.ipc().get_mem_handle(handle, ptr));
}

// The handle is passed by value: 64 bytes on the stack, as the ABI passes the struct.
cudaError_t cudaIpcOpenMemHandle(void** ptr, abi::IpcHandle handle, unsigned flags) {
  CUDART_ENTER_STICKY();
  return rt.record(rt.ipc().open_mem_handle(ptr, handle, flags));
}

cudaError_t cudaIpcCloseMemHandle(void* ptr) {
  CUDART_ENTER_STICKY();
  return rt.record(rt.ipc().close_mem_handle(ptr));
}

cudaError_t cudaIpcGetEventHandle(abi::IpcHandle* handle, cudaEvent_t event) {
  CUDART_ENTER_STICKY();
  return rt.record(rt.ipc().get_event_handle(handle, rt.event(event)));
}

cudaError_t cudaIpcOpenEventHandle(cudaEvent_t* event, abi::IpcHandle handle) {
  CUDART_ENTER_STICKY();
  Event* e = nullptr;
  const cudaError_t err = rt.ipc().open_event_handle(&e, handle);
  if (err != cudaSuccess) return rt.record(err);
  if (!event) return rt.record(cudaErrorInvalidValue);
  *event = reinterpret_cast<cudaEvent_t>(e);
  return cudaSuccess;
}

}  // extern "C"
