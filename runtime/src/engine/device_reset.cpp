// cuDevicePrimaryCtxReset: what the primary context of a device owns goes
// away, as the driver documents, and the next use starts afresh.
#include <vector>

#include "engine/runtime.h"

namespace cnuas::cuda {

void Runtime::reset_device(int d) {
  // Work already issued to the device finishes first.
  timeline_->wait_all(d);
  // cudaMalloc/cuMemAlloc and managed allocations of the device. Pinned host
  // memory, pool and virtual-memory allocations (owner set) are process-wide
  // here and stay.
  std::vector<Allocation> freed;
  for (const auto& [base, a] : allocations_)
    if (!a.owner && a.device == d &&
        (a.kind == MemoryKind::Device || a.kind == MemoryKind::Managed))
      freed.push_back(a);
  for (const Allocation& a : freed) {
    allocations_.erase(a.base);
    memory_.free(a.base);
    device(d).allocated -= a.bytes;
    if (a.kind == MemoryKind::Managed)
      host_mappings_.unmap(reinterpret_cast<void*>(a.base), a.bytes);
  }
  // The streams and events created on the device: their handles become invalid.
  std::vector<Stream*> streams;
  for (const auto& [handle, s] : streams_)
    if (s->device == d) streams.push_back(handle);
  for (Stream* s : streams) {
    timeline_->remove_stream(s);
    streams_.erase(s);
  }
  std::vector<Event*> events;
  for (const auto& [handle, e] : events_)
    if (e->device == d) events.push_back(handle);
  for (Event* e : events) events_.erase(e);
  // A kernel's fault no longer sticks: resetting is how a program recovers
  // from one, unless its GPU is gone (Xid 79).
  if (fault_survives_reset_) return;
  fault_ = cudaSuccess;
  fault_command_.reset();
}

}  // namespace cnuas::cuda
