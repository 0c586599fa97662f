// Device, pinned, managed and registered memory; copies, memsets and arrays.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "engine/graph.h"
#include "engine/graph_capture.h"
#include "engine/runtime.h"

namespace cnuas::cuda {
namespace {

std::uint64_t address(const void* p) {
  return reinterpret_cast<std::uint64_t>(p);
}

bool device_side(MemoryKind k) {
  return k != MemoryKind::Pageable;
}

}  // namespace

const Allocation* Runtime::find(const void* ptr) const {
  const std::uint64_t a = address(ptr);
  auto f = allocations_.upper_bound(a);
  if (f == allocations_.begin()) return nullptr;
  --f;
  if (a >= f->second.base + std::max<std::uint64_t>(f->second.bytes, 1)) return nullptr;
  return &f->second;
}

MemoryKind Runtime::kind_of(const void* ptr, int* device) const {
  const Allocation* a = find(ptr);
  if (!a && memory_.allocation_of(address(ptr)).second != 0) {
    // A module's __device__ or __constant__ variable: memory of the first device.
    if (device) *device = 0;
    return MemoryKind::Device;
  }
  if (device) *device = a ? a->device : cudaCpuDeviceId;
  return a ? a->kind : MemoryKind::Pageable;
}

cudaError_t Runtime::malloc_device(void** ptr, std::size_t bytes, int dev) {
  if (!ptr) return record(cudaErrorInvalidValue);
  DeviceState& d = device(dev);
  if (bytes > d.desc.memory_bytes - d.allocated) {
    *ptr = nullptr;
    return record(cudaErrorMemoryAllocation);
  }
  try {
    // The driver hands out device memory aligned and rounded to 512 bytes
    // (cudaDeviceProp::textureAlignment), small allocations packed in 2 MiB pages.
    const std::uint64_t base = memory_.allocate(bytes, kDeviceAllocationAlignment);
    allocations_[base] = {base, bytes, dev, MemoryKind::Device};
    d.allocated += bytes;
    *ptr = reinterpret_cast<void*>(base);
  } catch (const std::bad_alloc&) {
    *ptr = nullptr;
    return record(cudaErrorMemoryAllocation);
  }
  return cudaSuccess;
}

cudaError_t Runtime::malloc_host(void** ptr, std::size_t bytes, MemoryKind kind) {
  if (!ptr) return record(cudaErrorInvalidValue);
  const std::size_t rounded = HostMappings::rounded(bytes);
  void* p = host_mappings_.map(rounded);
  if (!p) {
    *ptr = nullptr;
    return record(cudaErrorMemoryAllocation);
  }
  memory_.adopt(p, rounded);
  allocations_[address(p)] = {address(p), rounded, current_device(), kind};
  if (kind == MemoryKind::Managed) device(current_device()).allocated += rounded;
  *ptr = p;
  return cudaSuccess;
}

cudaError_t Runtime::register_host(void* ptr, std::size_t bytes) {
  if (!ptr || bytes == 0) return record(cudaErrorInvalidValue);
  if (find(ptr) || find(static_cast<char*>(ptr) + bytes - 1))
    return record(cudaErrorHostMemoryAlreadyRegistered);
  try {
    memory_.adopt(ptr, bytes);
  } catch (const std::invalid_argument&) {
    return record(cudaErrorHostMemoryAlreadyRegistered);
  }
  allocations_[address(ptr)] = {address(ptr), bytes, current_device(), MemoryKind::Registered};
  return cudaSuccess;
}

cudaError_t Runtime::free(void* ptr, MemoryKind expect) {
  if (!ptr) return cudaSuccess;
  auto f = allocations_.find(address(ptr));
  // Memory another manager owns (a pool's, including a host pool's) goes back through it.
  if (f != allocations_.end() && f->second.owner)
    return record(expect == MemoryKind::Device ? f->second.owner->free(f->second.base, nullptr)
                  : expect == MemoryKind::Registered ? cudaErrorHostMemoryNotRegistered
                                                     : cudaErrorInvalidValue);
  const bool matches = f != allocations_.end() &&
                       (f->second.kind == expect ||
                        (expect == MemoryKind::Device && f->second.kind == MemoryKind::Managed));
  if (!matches)
    return record(expect == MemoryKind::Registered ? cudaErrorHostMemoryNotRegistered
                                                   : cudaErrorInvalidValue);
  // Freeing waits for the device, as cudaFree does.
  timeline_->wait_all(-1);
  const Allocation a = f->second;
  allocations_.erase(f);
  memory_.free(a.base);
  if (a.kind == MemoryKind::Device || a.kind == MemoryKind::Managed)
    device(a.device).allocated -= a.bytes;
  if (a.kind == MemoryKind::Host || a.kind == MemoryKind::Managed)
    host_mappings_.unmap(ptr, a.bytes);
  return sticky();
}

void Runtime::route_copy(Command& c, const void* dst, const void* src, std::size_t bytes) {
  int dd = 0, sd = 0;
  const MemoryKind dk = kind_of(dst, &dd), sk = kind_of(src, &sd);
  const bool dst_gpu = dk == MemoryKind::Device || dk == MemoryKind::Array;
  const bool src_gpu = sk == MemoryKind::Device || sk == MemoryKind::Array;
  const std::string& host = session_->host();
  auto gpu = [&](int d) -> const std::string& { return device(d).desc.element; };
  c.dims.set(WorkDim::Bytes, bytes);
  if (dst_gpu && src_gpu) {
    if (dd == sd) {
      c.name = "memcpy DtoD";
      c.route = &session_->local(gpu(dd));
      c.dims.set(WorkDim::Bytes, 2 * bytes);  // read and write HBM
    } else {
      c.name = "memcpy PtoP";
      c.route = &session_->route(gpu(sd), gpu(dd));
    }
  } else if (dst_gpu) {
    c.name = "memcpy HtoD";
    c.route = &session_->route(host, gpu(dd));
    c.read = true;  // the copy engine reads host memory over PCIe
  } else if (src_gpu) {
    c.name = "memcpy DtoH";
    c.route = &session_->route(gpu(sd), host);
  } else {
    c.name = "memcpy HtoH";
    c.route = nullptr;  // a host memcpy: no device time
  }
}

cudaError_t Runtime::copy(const Copy& c, cudaStream_t handle, bool synchronous) {
  Stream* s = stream(handle);
  if (!s) return record(cudaErrorInvalidResourceHandle);
  // A synchronous copy is unsafe during stream capture (engine/graph_capture.h).
  if (synchronous)
    if (const cudaError_t e = check_capture_unsafe()) return record(e);
  if (const cudaError_t e = check_copy(c)) return e;
  if (c.width == 0 || c.height == 0) return cudaSuccess;
  CommandPtr cmd = copy_command(c);
  submit(*s, cmd);
  if (synchronous) timeline_->wait(cmd);
  return sticky();
}

cudaError_t Runtime::check_copy(const Copy& c) {
  if (c.kind < 0 || c.kind > 4) return record(cudaErrorInvalidMemcpyDirection);
  if (c.width == 0 || c.height == 0) return cudaSuccess;
  if (c.width > c.dst_pitch || c.width > c.src_pitch) return record(cudaErrorInvalidPitchValue);
  const std::size_t dst_span = (c.height - 1) * c.dst_pitch + c.width;
  const std::size_t src_span = (c.height - 1) * c.src_pitch + c.width;
  if (!c.dst || !c.src) return record(cudaErrorInvalidValue);
  // Each side must be what the direction says, and device ranges must lie
  // inside one allocation.
  const MemoryKind dk = kind_of(c.dst, nullptr), sk = kind_of(c.src, nullptr);
  const bool dst_device_kind =
      c.kind == cudaMemcpyHostToDevice || c.kind == cudaMemcpyDeviceToDevice;
  const bool src_device_kind =
      c.kind == cudaMemcpyDeviceToHost || c.kind == cudaMemcpyDeviceToDevice;
  if ((dst_device_kind && !device_side(dk)) || (src_device_kind && !device_side(sk)))
    return record(cudaErrorInvalidValue);
  std::uint8_t* dst =
      device_side(dk) ? memory_.find(address(c.dst), dst_span) : static_cast<std::uint8_t*>(c.dst);
  const std::uint8_t* src = device_side(sk) ? memory_.find(address(c.src), src_span)
                                            : static_cast<const std::uint8_t*>(c.src);
  if (!dst || !src) return record(cudaErrorInvalidValue);
  return cudaSuccess;
}

CommandPtr Runtime::copy_command(const Copy& c) {
  auto cmd = std::make_shared<Command>();
  route_copy(*cmd, c.dst, c.src, c.width * c.height);
  auto spec = std::make_shared<NodeSpec>();
  spec->type = NodeType::Memcpy;
  spec->copies = {c};
  cmd->spec = std::move(spec);
  const Copy rows = c;
  cmd->start = [this, rows](Command&) {
    auto* d = memory_.find(address(rows.dst), (rows.height - 1) * rows.dst_pitch + rows.width);
    auto* p = memory_.find(address(rows.src), (rows.height - 1) * rows.src_pitch + rows.width);
    std::uint8_t* to = d ? d : static_cast<std::uint8_t*>(rows.dst);
    const std::uint8_t* from = p ? p : static_cast<const std::uint8_t*>(rows.src);
    for (std::size_t r = 0; r < rows.height; ++r)
      std::memmove(to + r * rows.dst_pitch, from + r * rows.src_pitch, rows.width);
  };
  return cmd;
}

cudaError_t Runtime::peer_copy(void* dst, int dst_device, const void* src, int src_device,
                               std::size_t bytes, cudaStream_t stream, bool synchronous) {
  if (dst_device < 0 || dst_device >= device_count() || src_device < 0 ||
      src_device >= device_count())
    return record(cudaErrorInvalidDevice);
  int dd = 0, sd = 0;
  if (kind_of(dst, &dd) != MemoryKind::Device || kind_of(src, &sd) != MemoryKind::Device ||
      dd != dst_device || sd != src_device)
    return record(cudaErrorInvalidValue);
  return copy({dst, bytes, src, bytes, bytes, 1, cudaMemcpyDeviceToDevice}, stream, synchronous);
}

cudaError_t Runtime::memset(void* dst, std::size_t pitch, int value, std::size_t width,
                            std::size_t height, unsigned element_bytes, cudaStream_t handle,
                            bool synchronous) {
  Stream* s = stream(handle);
  if (!s) return record(cudaErrorInvalidResourceHandle);
  if (synchronous)
    if (const cudaError_t e = check_capture_unsafe()) return record(e);
  if (width == 0 || height == 0) return cudaSuccess;
  if (const cudaError_t e = check_memset(dst, pitch, width, height, element_bytes)) return e;
  CommandPtr cmd = memset_command(dst, pitch, value, width, height, element_bytes);
  submit(*s, cmd);
  if (synchronous) timeline_->wait(cmd);
  return sticky();
}

cudaError_t Runtime::check_memset(void* dst, std::size_t pitch, std::size_t width,
                                  std::size_t height, unsigned element_bytes) {
  if (width == 0 || height == 0) return cudaSuccess;
  const std::size_t span = (height - 1) * pitch + width * element_bytes;
  if (!device_side(kind_of(dst, nullptr)) || !memory_.find(address(dst), span))
    return record(cudaErrorInvalidValue);
  return cudaSuccess;
}

CommandPtr Runtime::memset_command(void* dst, std::size_t pitch, int value, std::size_t width,
                                   std::size_t height, unsigned element_bytes) {
  int dev = 0;
  const MemoryKind k = kind_of(dst, &dev);
  auto cmd = std::make_shared<Command>();
  cmd->name = "memset";
  cmd->dims.set(WorkDim::Bytes, width * element_bytes * height);
  if (k == MemoryKind::Device || k == MemoryKind::Array)
    cmd->route = &session_->local(device(dev).desc.element);
  auto spec = std::make_shared<NodeSpec>();
  spec->type = NodeType::Memset;
  spec->memset = {dst, pitch, static_cast<unsigned>(value), element_bytes, width, height};
  cmd->spec = std::move(spec);
  cmd->start = [this, dst, pitch, value, width, height, element_bytes](Command&) {
    std::uint8_t* p = memory_.find(address(dst), (height - 1) * pitch + width * element_bytes);
    for (std::size_t r = 0; r < height; ++r) {
      std::uint8_t* row = p + r * pitch;
      if (element_bytes == 1) {
        std::memset(row, value, width);
        continue;
      }
      for (std::size_t i = 0; i < width; ++i)
        std::memcpy(row + i * element_bytes, &value, element_bytes);
    }
  };
  return cmd;
}

cudaError_t Runtime::free_async(void* ptr, cudaStream_t handle) {
  Stream* s = stream(handle);
  if (!s) return record(cudaErrorInvalidResourceHandle);
  if (!ptr) return cudaSuccess;
  auto f = allocations_.find(address(ptr));
  if (f != allocations_.end() && f->second.owner)
    return record(f->second.owner->free(f->second.base, s));
  if (f == allocations_.end() || f->second.kind != MemoryKind::Device)
    return record(cudaErrorInvalidValue);
  auto cmd = std::make_shared<Command>();
  cmd->name = "free";
  cmd->start = [this, ptr](Command&) {
    auto a = allocations_.find(address(ptr));
    if (a == allocations_.end()) return;
    device(a->second.device).allocated -= a->second.bytes;
    memory_.free(a->second.base);
    allocations_.erase(a);
  };
  submit(*s, cmd);
  return sticky();
}

Array* Runtime::make_array(const cudaChannelFormatDesc& desc, std::size_t w, std::size_t h,
                           std::size_t d, unsigned flags) {
  auto a = std::make_unique<Array>();
  a->desc = desc;
  a->width = w;
  a->height = h;
  a->depth = d;
  a->flags = flags;
  a->device = current_device();
  const std::size_t bytes =
      w * std::max<std::size_t>(h, 1) * std::max<std::size_t>(d, 1) * a->texel_bytes();
  a->base = memory_.allocate(bytes, 512);
  allocations_[a->base] = {a->base, bytes, a->device, MemoryKind::Array};
  device(a->device).allocated += bytes;
  Array* raw = a.get();
  arrays_[raw] = std::move(a);
  return raw;
}

Array* Runtime::array(cudaArray_const_t handle) {
  auto f = arrays_.find(handle);
  return f == arrays_.end() ? nullptr : f->second.get();
}

cudaError_t Runtime::free_array(cudaArray_t handle) {
  Array* a = array(handle);
  if (!handle) return cudaSuccess;
  if (!a) return record(cudaErrorInvalidResourceHandle);
  timeline_->wait_all(-1);
  auto f = allocations_.find(a->base);
  device(a->device).allocated -= f->second.bytes;
  allocations_.erase(f);
  memory_.free(a->base);
  arrays_.erase(handle);
  return sticky();
}

bool Runtime::destroy_texture(std::uint64_t handle) {
  auto all_done = [](const RetiredTexture& t) {
    return std::all_of(t.users.begin(), t.users.end(), [](const CommandPtr& c) { return c->done; });
  };
  // Forget the retired objects whose work has run.
  for (const RetiredTexture& t : retired_textures_)
    if (all_done(t)) textures_.destroy(t.handle);
  retired_textures_.erase(
      std::remove_if(retired_textures_.begin(), retired_textures_.end(), all_done),
      retired_textures_.end());
  for (const RetiredTexture& t : retired_textures_)
    if (t.handle == handle) return false;  // destroyed twice
  if (!textures_.find(handle)) return false;
  RetiredTexture t{handle, timeline_->unfinished_work()};
  if (t.users.empty())
    textures_.destroy(handle);
  else
    retired_textures_.push_back(std::move(t));
  return true;
}

}  // namespace cnuas::cuda
