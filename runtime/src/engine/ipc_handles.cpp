#include "engine/ipc_handles.h"

#include <unistd.h>

#include <cstring>

namespace cnuas::cuda {
namespace {

// cudaIpcMemHandle_t and cudaIpcEventHandle_t as this simulator fills them.
struct HandleData {
  char magic[8];
  std::uint32_t pid;
  std::uint32_t kind;
  std::uint64_t value;  // the allocation's address, or the event's serial
};
static_assert(sizeof(HandleData) <= sizeof(abi::IpcHandle), "fits the 64 bytes");
constexpr char kMagic[8] = {'c', 'n', 'u', 'a', 's', 'i', 'p', 'c'};
constexpr std::uint32_t kMemory = 1, kEvent = 2;

void write(abi::IpcHandle* out, std::uint32_t kind, std::uint64_t value) {
  HandleData d{};
  std::memcpy(d.magic, kMagic, sizeof d.magic);
  d.pid = static_cast<std::uint32_t>(getpid());
  d.kind = kind;
  d.value = value;
  std::memset(out, 0, sizeof *out);
  std::memcpy(out, &d, sizeof d);
}

// The handle's value, or an error: not one of ours, or from another process.
cudaError_t read(Runtime& rt, const abi::IpcHandle& in, std::uint32_t kind, std::uint64_t* value,
                 const char* function) {
  HandleData d{};
  std::memcpy(&d, &in, sizeof d);
  if (std::memcmp(d.magic, kMagic, sizeof d.magic) != 0 || d.kind != kind)
    return cudaErrorInvalidResourceHandle;
  if (d.pid != static_cast<std::uint32_t>(getpid())) return rt.unsupported(function);
  *value = d.value;
  return cudaSuccess;
}

}  // namespace

cudaError_t IpcHandles::get_mem_handle(abi::IpcHandle* out, const void* ptr) {
  const Allocation* a = rt_.find(ptr);
  // The start of a cudaMalloc allocation.
  if (!out || !a || a->base != reinterpret_cast<std::uint64_t>(ptr) ||
      a->kind != MemoryKind::Device || a->owner)
    return cudaErrorInvalidValue;
  write(out, kMemory, a->base);
  return cudaSuccess;
}

cudaError_t IpcHandles::open_mem_handle(void** out, const abi::IpcHandle& handle, unsigned flags) {
  if (!out || flags > 1) return cudaErrorInvalidValue;  // 1: cudaIpcMemLazyEnablePeerAccess
  std::uint64_t source = 0;
  if (const cudaError_t e =
          read(rt_, handle, kMemory, &source, "cudaIpcOpenMemHandle of another process's handle"))
    return e;
  const Allocation* a = rt_.find(reinterpret_cast<const void*>(source));
  if (!a || a->base != source || a->owner) return abi::kErrorMapBufferObjectFailed;  // freed
  const int device = rt_.current_device();
  if (device == a->device) return abi::kErrorDeviceUninitialized;
  if (auto m = mapped_.find({source, device}); m != mapped_.end()) {
    ++opened_[m->second].references;
    *out = reinterpret_cast<void*>(m->second);
    return cudaSuccess;
  }
  const std::uint64_t at = rt_.memory().alias(source, a->bytes);
  rt_.track({at, a->bytes, a->device, MemoryKind::Device, this});
  opened_[at] = {source, device, 1};
  mapped_[{source, device}] = at;
  *out = reinterpret_cast<void*>(at);
  return cudaSuccess;
}

cudaError_t IpcHandles::close_mem_handle(const void* ptr) {
  auto o = opened_.find(reinterpret_cast<std::uint64_t>(ptr));
  if (o == opened_.end()) return cudaErrorInvalidValue;
  if (--o->second.references > 0) return cudaSuccess;
  rt_.timeline().wait_all(-1);  // work issued before still reaches the memory
  rt_.memory().free(o->first);
  rt_.untrack(o->first);
  mapped_.erase({o->second.source, o->second.device});
  opened_.erase(o);
  return cudaSuccess;
}

cudaError_t IpcHandles::get_event_handle(abi::IpcHandle* out, Event* event) {
  if (!event) return cudaErrorInvalidResourceHandle;
  constexpr unsigned kInterprocess = 0x04, kDisableTiming = 0x02;
  if (!out || (event->flags & (kInterprocess | kDisableTiming)) != (kInterprocess | kDisableTiming))
    return cudaErrorInvalidValue;
  auto s = event_serials_.find(event);
  if (s == event_serials_.end()) {
    // Exported events stay until the process ends: a handle may be opened
    // after its exporter destroyed the event (undefined in CUDA, harmless here).
    ++event->references;
    s = event_serials_.emplace(event, next_event_++).first;
    events_[s->second] = event;
  }
  write(out, kEvent, s->second);
  return cudaSuccess;
}

cudaError_t IpcHandles::open_event_handle(Event** out, const abi::IpcHandle& handle) {
  if (!out) return cudaErrorInvalidValue;
  std::uint64_t serial = 0;
  if (const cudaError_t e =
          read(rt_, handle, kEvent, &serial, "cudaIpcOpenEventHandle of another process's handle"))
    return e;
  auto e = events_.find(serial);
  if (e == events_.end() || !rt_.event(reinterpret_cast<cudaEvent_t>(e->second)))
    return cudaErrorInvalidResourceHandle;
  ++e->second->references;
  *out = e->second;
  return cudaSuccess;
}

}  // namespace cnuas::cuda
