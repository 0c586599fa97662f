// IPC handles within one process: cudaIpcGetMemHandle / cudaIpcOpenMemHandle
// / cudaIpcCloseMemHandle and cudaIpcGetEventHandle / cudaIpcOpenEventHandle.
//
// The simulated platform lives inside the program's process, so a handle is
// opened by the process that made it. As the driver does, opening a memory
// handle on the device that exported it is refused
// (cudaErrorDeviceUninitialized, "invalid device context"); on another
// device it maps the same bytes at a second address (a write through one is
// read through the other), which lets single-process multi-GPU programs
// written for IPC run. Opening it again on that device returns the same
// address and counts a reference; cudaIpcCloseMemHandle drops one, and the
// last unmaps. An opened event handle is the exported event itself (its
// records, waits and queries are shared), counted so that each
// cudaEventDestroy drops one reference. A handle from another process cannot
// be opened: its memory is not in this simulation (cudaErrorNotSupported).
#pragma once

#include <cstdint>
#include <map>
#include <utility>

#include "engine/runtime.h"
#include "memory_abi.h"

namespace cnuas::cuda {

class IpcHandles : public MemoryOwner {
 public:
  explicit IpcHandles(Runtime& rt) : rt_(rt) {}

  // Each returns cudaSuccess or the documented error; none sets the last error.
  cudaError_t get_mem_handle(abi::IpcHandle* out, const void* ptr);
  cudaError_t open_mem_handle(void** out, const abi::IpcHandle& handle, unsigned flags);
  cudaError_t close_mem_handle(const void* ptr);
  cudaError_t get_event_handle(abi::IpcHandle* out, Event* event);
  cudaError_t open_event_handle(Event** out, const abi::IpcHandle& handle);

  // Opened memory is closed with cudaIpcCloseMemHandle, not freed.
  cudaError_t free(std::uint64_t, Stream*) override { return cudaErrorInvalidValue; }

 private:
  struct Opened {
    std::uint64_t source = 0;
    int device = 0;  // the device that opened it
    int references = 0;
  };
  Runtime& rt_;
  std::map<std::uint64_t, Opened> opened_;                         // by the opened address
  std::map<std::pair<std::uint64_t, int>, std::uint64_t> mapped_;  // (source, device) -> address
  std::map<std::uint64_t, Event*> events_;                         // exported, by serial
  std::map<const Event*, std::uint64_t> event_serials_;
  std::uint64_t next_event_ = 1;
};

}  // namespace cnuas::cuda
