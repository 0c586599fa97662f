#include "engine/graph_memory.h"

#include <algorithm>
#include <new>

#include "engine/runtime.h"

namespace cnuas::cuda {

// Never destroyed: graphs may be destroyed by static destructors after exit.
GraphMemory& GraphMemory::get() {
  static GraphMemory* memory = new GraphMemory();
  return *memory;
}

cudaError_t GraphMemory::reserve(Runtime& rt, std::size_t bytes, int device,
                                 std::shared_ptr<GraphAllocation>* out) {
  void* p = nullptr;
  if (const cudaError_t e = rt.reserve_graph_memory(&p, bytes, device)) return e;
  auto a = std::make_shared<GraphAllocation>();
  a->base = reinterpret_cast<std::uint64_t>(p);
  a->bytes = bytes;
  a->device = device;
  blocks_[a->base] = {device, bytes, false};
  Usage& u = usage_[device];
  u.reserved += bytes;
  u.reserved_high = std::max(u.reserved_high, u.reserved);
  *out = std::move(a);
  return cudaSuccess;
}

void GraphMemory::allocated(std::uint64_t base) {
  auto b = blocks_.find(base);
  if (b == blocks_.end() || b->second.in_use) return;
  b->second.in_use = true;
  Usage& u = usage_[b->second.device];
  u.used += b->second.bytes;
  u.used_high = std::max(u.used_high, u.used);
}

void GraphMemory::freed(std::uint64_t base) {
  auto b = blocks_.find(base);
  if (b == blocks_.end() || !b->second.in_use) return;
  b->second.in_use = false;
  usage_[b->second.device].used -= b->second.bytes;
}

void GraphMemory::released(const GraphAllocation& a) {
  freed(a.base);
  if (blocks_.erase(a.base)) usage_[a.device].reserved -= a.bytes;
}

bool GraphMemory::attribute(int device, int attr, std::uint64_t* value) const {
  auto f = usage_.find(device);
  const Usage u = f == usage_.end() ? Usage{} : f->second;
  switch (attr) {
    case 0:
      *value = u.used;
      return true;
    case 1:
      *value = u.used_high;
      return true;
    case 2:
      *value = u.reserved;
      return true;
    case 3:
      *value = u.reserved_high;
      return true;
    default:
      return false;
  }
}

// Only the high watermarks can be set, and only to zero (which leaves the current use).
bool GraphMemory::reset_high_watermark(int device, int attr) {
  Usage& u = usage_[device];
  if (attr == 1)
    u.used_high = u.used;
  else if (attr == 3)
    u.reserved_high = u.reserved;
  else
    return false;
  return true;
}

GraphAllocation::~GraphAllocation() {
  GraphMemory::get().released(*this);
  Runtime::get().release_graph_memory(base);
}

// ---- Runtime's side: the reservation is device memory like cudaMalloc's ----

cudaError_t Runtime::reserve_graph_memory(void** ptr, std::size_t bytes, int dev) {
  if (const cudaError_t e = malloc_device(ptr, bytes, dev)) return e;
  allocations_[reinterpret_cast<std::uint64_t>(*ptr)].graph = true;
  return cudaSuccess;
}

void Runtime::release_graph_memory(std::uint64_t base) {
  auto f = allocations_.find(base);
  if (f == allocations_.end()) return;
  device(f->second.device).allocated -= f->second.bytes;
  allocations_.erase(f);
  memory_.free(base);
}

}  // namespace cnuas::cuda
