#include "engine/graph_memory.h"

#include <algorithm>
#include <new>

#include "engine/graph.h"

namespace cnuas::cuda {

// Never destroyed: graphs may be destroyed by static destructors after exit.
GraphMemory& GraphMemory::get() {
  static GraphMemory* memory = new GraphMemory();
  return *memory;
}

cudaError_t GraphMemory::reserve(Runtime& rt, std::size_t bytes, int device,
                                 std::shared_ptr<GraphAllocation>* out) {
  DeviceState& d = rt.device(device);
  if (bytes > d.desc.memory_bytes - d.allocated) return cudaErrorMemoryAllocation;
  std::uint64_t base = 0;
  try {
    base = rt.memory().allocate(bytes, kDeviceAllocationAlignment);  // as cudaMalloc's
  } catch (const std::bad_alloc&) {
    return cudaErrorMemoryAllocation;
  }
  auto a = std::make_shared<GraphAllocation>();
  a->base = base;
  a->bytes = bytes;
  a->device = device;
  rt.track({a->base, bytes, device, MemoryKind::Device, this});
  d.allocated += bytes;
  blocks_[a->base] = {device, bytes, false};
  Usage& u = usage_[device];
  u.reserved += bytes;
  u.reserved_high = std::max(u.reserved_high, u.reserved);
  *out = std::move(a);
  return cudaSuccess;
}

// cudaFree waits for the device; cudaFreeAsync frees when its stream reaches
// it, or in a capture becomes a free node.
cudaError_t GraphMemory::free(std::uint64_t base, Stream* stream) {
  Runtime& rt = Runtime::get();
  if (!stream) {
    rt.timeline().wait_all(-1);
    freed(base);
    return rt.sticky();
  }
  auto spec = std::make_shared<NodeSpec>();
  spec->type = NodeType::MemFree;
  spec->free_ptr = reinterpret_cast<void*>(base);
  auto cmd = std::make_shared<Command>();
  cmd->name = "graph memory free";
  cmd->spec = std::move(spec);
  cmd->start = [this, base](Command&) { freed(base); };
  rt.submit(*stream, cmd);
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

// Released without waiting: the launches that use the memory hold the node.
GraphAllocation::~GraphAllocation() {
  GraphMemory::get().released(*this);
  Runtime& rt = Runtime::get();
  rt.untrack(base);
  rt.device(device).allocated -= bytes;
  rt.memory().free(base);
}

}  // namespace cnuas::cuda
