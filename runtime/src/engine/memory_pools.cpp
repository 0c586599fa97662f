#include "engine/memory_pools.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <new>
#include <set>
#include <stdexcept>

namespace cnuas::cuda {
namespace {

std::uint64_t round_up(std::uint64_t v, std::uint64_t to) {
  return (v + to - 1) / to * to;
}

// cudaMemPoolPtrExportData as this simulator fills it.
struct PointerExport {
  char magic[8];
  std::uint32_t pid;
  std::uint32_t pad;
  std::uint64_t pool;  // MemoryPool::serial
  std::uint64_t base, bytes;
};
static_assert(sizeof(PointerExport) <= sizeof(abi::MemPoolPtrExportData), "fits the 64 bytes");
constexpr char kPointerMagic[8] = {'c', 'n', 'u', 'a', 's', 'p', 't', 'r'};

}  // namespace

MemoryPools::MemoryPools(Runtime& rt) : rt_(rt) {
  for (int d = 0; d < rt.device_count(); ++d) {
    auto p = std::make_shared<MemoryPool>();
    p->device = d;
    p->props.alloc_type = abi::kAllocationPinned;
    p->props.location = {abi::kLocationDevice, d};
    p->is_default = true;
    MemoryPool* raw = add(std::move(p));
    defaults_.push_back(raw);
    current_.push_back(raw);
  }
}

MemoryPools::~MemoryPools() {
  for (auto& [raw, p] : pools_)
    if (p->export_fd >= 0) close(p->export_fd);
}

MemoryPool* MemoryPools::add(std::shared_ptr<MemoryPool> pool) {
  pool->serial = next_serial_++;
  // By default only the pool's own device reaches its memory.
  pool->access.assign(static_cast<std::size_t>(rt_.device_count()), abi::kAccessNone);
  pool->access[static_cast<std::size_t>(pool->device)] = abi::kAccessReadWrite;
  MemoryPool* raw = pool.get();
  pools_.emplace(raw, std::move(pool));
  return raw;
}

MemoryPool* MemoryPools::pool(const void* handle) const {
  auto f = pools_.find(static_cast<const MemoryPool*>(handle));
  return f == pools_.end() || f->second->destroyed ? nullptr : f->second.get();
}

MemoryPool* MemoryPools::default_pool(int device) {
  if (device != kHost) return defaults_[static_cast<std::size_t>(device)];
  if (!default_host_) {
    auto p = std::make_shared<MemoryPool>();
    p->device = rt_.current_device();
    p->host = true;
    p->props.alloc_type = abi::kAllocationPinned;
    p->props.location = {abi::kLocationHost, 0};
    p->is_default = true;
    default_host_ = add(std::move(p));
  }
  return default_host_;
}

MemoryPool* MemoryPools::current_pool(int device) {
  if (device != kHost) return current_[static_cast<std::size_t>(device)];
  return current_host_ ? current_host_ : default_pool(kHost);
}

cudaError_t MemoryPools::set_current(int device, MemoryPool* pool) {
  if (device == kHost) {
    if (!pool || pool->source || !pool->host) return cudaErrorInvalidValue;
    current_host_ = pool;
    return cudaSuccess;
  }
  if (!pool || pool->source || pool->host || pool->device != device) return cudaErrorInvalidValue;
  current_[static_cast<std::size_t>(device)] = pool;
  return cudaSuccess;
}

cudaError_t MemoryPools::create(MemoryPool** out, const abi::MemPoolProps* props) {
  if (!out || !props || props->alloc_type != abi::kAllocationPinned) return cudaErrorInvalidValue;
  const int type = props->location.type;
  const bool host = type == abi::kLocationHost || type == abi::kLocationHostNuma;
  if (type != abi::kLocationDevice && !host) {
    if (type < abi::kLocationHost) return cudaErrorInvalidValue;
    return rt_.unsupported("cudaMemPoolCreate at the current thread's NUMA node");
  }
  // The simulated host is one NUMA node, 0; a host location's id is ignored.
  if (type == abi::kLocationHostNuma && props->location.id != 0) return cudaErrorInvalidValue;
  if (!host && (props->location.id < 0 || props->location.id >= rt_.device_count()))
    return cudaErrorInvalidValue;
  if (host && props->handle_types != abi::kHandleNone)
    return rt_.unsupported("cudaMemPoolCreate of an exportable host memory pool");
  if ((props->handle_types & ~abi::kHandlePosixFd) != 0)
    return rt_.unsupported("cudaMemPoolCreate with a Win32 or fabric handle type");
  auto p = std::make_shared<MemoryPool>();
  p->device = host ? rt_.current_device() : props->location.id;
  p->host = host;
  p->props = *props;
  p->props.win32_security_attributes = nullptr;
  *out = add(std::move(p));
  return cudaSuccess;
}

cudaError_t MemoryPools::destroy(MemoryPool* pool) {
  if (!pool || pool->is_default) return cudaErrorInvalidValue;
  pool->destroyed = true;
  if (pool == current_host_) current_host_ = nullptr;  // back to the default host pool
  if (!pool->source && current_[static_cast<std::size_t>(pool->device)] == pool)
    current_[static_cast<std::size_t>(pool->device)] =
        defaults_[static_cast<std::size_t>(pool->device)];
  forget_if_done(pool);
  return cudaSuccess;
}

// A destroyed pool's memory goes back once no allocation of it is live and
// every free of it has completed; then the pool itself goes.
void MemoryPools::forget_if_done(MemoryPool* pool) {
  if (!pool->destroyed || !pool->live.empty()) return;
  trim_to(*pool, 0);
  if (!pool->chunks.empty()) return;  // frees still running: later
  if (pool->export_fd >= 0) close(pool->export_fd);
  pools_.erase(pool);
}

bool MemoryPools::ordered_after(const Stream& s, const MemoryPool::PendingFree& free) const {
  // The legacy stream and the blocking streams of its device wait for one another.
  if (free.device == s.device &&
      ((s.legacy && free.blocking) || (free.legacy && !(s.flags & cudaStreamNonBlocking))))
    return true;
  // Otherwise through events: the free reaches, through the commands that
  // wait for it, the stream's last command or one its next command waits for.
  // The search gives up after kMaxSearch commands (the allocation then takes
  // another policy's way: an inserted wait costs nothing when one exists).
  constexpr std::size_t kMaxSearch = 4096;
  std::set<const Command*> targets;
  if (s.last) targets.insert(s.last.get());
  for (const CommandPtr& w : s.pending_waits) targets.insert(w.get());
  std::deque<const Command*> todo{free.command.get()};
  std::set<const Command*> seen;
  while (!todo.empty() && seen.size() < kMaxSearch) {
    const Command* c = todo.front();
    todo.pop_front();
    if (targets.count(c)) return true;
    if (!seen.insert(c).second) continue;
    for (const CommandPtr& d : c->dependents) todo.push_back(d.get());
  }
  return false;
}

bool MemoryPools::reusable(const MemoryPool& pool, const MemoryPool::FreeRange& range,
                           const Stream& s, std::vector<CommandPtr>& waits) const {
  std::vector<CommandPtr> needed;
  for (const MemoryPool::PendingFree& f : range.frees) {
    if (f.stream == s.serial) continue;  // stream order
    const bool done = rt_.timeline().finished(f.command);
    if (done && pool.allow_opportunistic) continue;
    if (!f.command->done && pool.follow_event_dependencies && ordered_after(s, f)) continue;
    if (!pool.allow_internal_dependencies) return false;
    needed.push_back(f.command);
  }
  waits.insert(waits.end(), needed.begin(), needed.end());
  return true;
}

std::uint64_t MemoryPools::carve(MemoryPool& pool, std::uint64_t bytes, Stream& s) {
  for (auto& [base, chunk] : pool.chunks)
    for (auto r = chunk.free.begin(); r != chunk.free.end(); ++r) {
      std::vector<CommandPtr> waits;
      if (r->second.bytes < bytes || !reusable(pool, r->second, s, waits)) continue;
      // The allocation takes the front of the range; the rest stays free
      // under the same frees.
      const std::uint64_t offset = r->first;
      MemoryPool::FreeRange rest = std::move(r->second);
      chunk.free.erase(r);
      if (rest.bytes > bytes) {
        rest.bytes -= bytes;
        chunk.free.emplace(offset + bytes, std::move(rest));
      }
      for (CommandPtr& w : waits) s.pending_waits.push_back(std::move(w));
      pool.live[base + offset] = {base, bytes};
      return base + offset;
    }
  return 0;
}

cudaError_t MemoryPools::add_chunk(MemoryPool& pool, std::uint64_t bytes) {
  const std::uint64_t size = std::max(kPoolChunk, round_up(bytes, kPoolChunk));
  DeviceState& d = rt_.device(pool.device);
  const bool over_max = pool.props.max_size != 0 && pool.reserved + size > pool.props.max_size;
  if (over_max || (!pool.host && size > d.desc.memory_bytes - d.allocated))
    return cudaErrorMemoryAllocation;
  std::uint64_t base = 0;
  if (pool.host) {  // pinned host pages, which kernels reach as they reach cudaMallocHost's
    void* p = rt_.host_mappings().map(size);
    if (!p) return cudaErrorMemoryAllocation;
    rt_.memory().adopt(p, size);
    base = reinterpret_cast<std::uint64_t>(p);
  } else {
    try {
      base = rt_.memory().allocate(size, kPoolChunk);
    } catch (const std::bad_alloc&) {
      return cudaErrorMemoryAllocation;
    }
    d.allocated += size;
  }
  pool.reserved += size;
  pool.reserved_high = std::max(pool.reserved_high, pool.reserved);
  MemoryPool::Chunk chunk;
  chunk.bytes = size;
  chunk.free.emplace(0, MemoryPool::FreeRange{size, {}});
  pool.chunks.emplace(base, std::move(chunk));
  return cudaSuccess;
}

cudaError_t MemoryPools::allocate(void** ptr, std::size_t bytes, MemoryPool& pool, Stream& s) {
  if (!ptr) return cudaErrorInvalidValue;
  if (pool.source) return cudaErrorInvalidValue;  // imported pools do not allocate
  if (bytes == 0) {
    *ptr = nullptr;
    return cudaSuccess;
  }
  const std::uint64_t rounded = round_up(bytes, kPoolAlignment);
  if (rounded < bytes) return cudaErrorMemoryAllocation;
  std::uint64_t at = carve(pool, rounded, s);
  if (at == 0) {
    cudaError_t e = add_chunk(pool, rounded);
    if (e != cudaSuccess) {
      // Unused memory of the pool first goes back to the device.
      trim_to(pool, 0);
      e = add_chunk(pool, rounded);
    }
    if (e != cudaSuccess) {
      *ptr = nullptr;
      return e;
    }
    at = carve(pool, rounded, s);
  }
  pool.used += rounded;
  pool.used_high = std::max(pool.used_high, pool.used);
  allocation_pool_[at] = &pool;
  rt_.track({at, bytes, pool.device, pool.host ? MemoryKind::Host : MemoryKind::Device, this});
  *ptr = reinterpret_cast<void*>(at);
  return cudaSuccess;
}

void MemoryPools::give_back(MemoryPool& pool, std::uint64_t chunk_base, std::uint64_t offset,
                            std::uint64_t bytes, std::vector<MemoryPool::PendingFree> frees) {
  MemoryPool::Chunk& chunk = pool.chunks.at(chunk_base);
  MemoryPool::FreeRange range{bytes, std::move(frees)};
  // Joins the free neighbours on either side; their frees come along.
  auto next = chunk.free.lower_bound(offset);
  if (next != chunk.free.end() && next->first == offset + bytes) {
    range.bytes += next->second.bytes;
    range.frees.insert(range.frees.end(), next->second.frees.begin(), next->second.frees.end());
    next = chunk.free.erase(next);
  }
  if (next != chunk.free.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second.bytes == offset) {
      prev->second.bytes += range.bytes;
      prev->second.frees.insert(prev->second.frees.end(), range.frees.begin(), range.frees.end());
      return;
    }
  }
  chunk.free.emplace(offset, std::move(range));
}

cudaError_t MemoryPools::free(std::uint64_t base, Stream* stream) {
  if (auto imported = imported_.find(base); imported != imported_.end()) {
    imported_.erase(imported);
    rt_.untrack(base);
    if (!stream) {
      rt_.timeline().wait_all(-1);
      rt_.memory().free(base);
      return cudaSuccess;
    }
    // The second address goes when the stream reaches the free.
    auto cmd = std::make_shared<Command>();
    cmd->name = "free";
    cmd->start = [this, base](Command&) { rt_.memory().free(base); };
    rt_.submit(*stream, cmd);
    return cudaSuccess;
  }
  auto owner = allocation_pool_.find(base);
  if (owner == allocation_pool_.end()) return cudaErrorInvalidValue;
  if (stream && stream->capturing()) return cudaErrorStreamCaptureUnsupported;
  MemoryPool& pool = *owner->second;
  const MemoryPool::Live live = pool.live.at(base);
  pool.live.erase(base);
  allocation_pool_.erase(owner);
  rt_.untrack(base);
  pool.used -= live.bytes;
  std::vector<MemoryPool::PendingFree> frees;
  if (stream) {
    auto cmd = std::make_shared<Command>();
    cmd->name = "free";
    rt_.submit(*stream, cmd);
    frees.push_back({stream->serial, stream->device, stream->legacy,
                     !(stream->flags & cudaStreamNonBlocking), cmd});
  } else {
    rt_.timeline().wait_all(-1);  // cudaFree waits for the device
  }
  give_back(pool, live.chunk, base - live.chunk, live.bytes, std::move(frees));
  forget_if_done(&pool);
  return cudaSuccess;
}

void MemoryPools::trim_to(MemoryPool& pool, std::uint64_t keep) {
  for (auto c = pool.chunks.end(); c != pool.chunks.begin();) {
    --c;
    const MemoryPool::Chunk& chunk = c->second;
    if (pool.reserved < keep + chunk.bytes) continue;
    const bool unused = chunk.free.size() == 1 && chunk.free.begin()->second.bytes == chunk.bytes;
    if (!unused) continue;
    bool seen_done = true;
    for (const MemoryPool::PendingFree& f : chunk.free.begin()->second.frees)
      seen_done = seen_done && rt_.timeline().finished(f.command);
    if (!seen_done) continue;
    rt_.memory().free(c->first);
    if (pool.host)
      rt_.host_mappings().unmap(reinterpret_cast<void*>(c->first), chunk.bytes);
    else
      rt_.device(pool.device).allocated -= chunk.bytes;
    pool.reserved -= chunk.bytes;
    c = pool.chunks.erase(c);
  }
}

cudaError_t MemoryPools::trim(MemoryPool& pool, std::uint64_t keep) {
  if (pool.source) return cudaErrorInvalidValue;
  trim_to(pool, keep);
  return cudaSuccess;
}

void MemoryPools::synchronized() {
  std::vector<MemoryPool*> all;
  for (auto& [raw, p] : pools_) all.push_back(p.get());
  for (MemoryPool* p : all) {
    for (auto& [base, chunk] : p->chunks)
      for (auto& [offset, range] : chunk.free)
        range.frees.erase(std::remove_if(range.frees.begin(), range.frees.end(),
                                         [this](const MemoryPool::PendingFree& f) {
                                           return rt_.timeline().finished(f.command);
                                         }),
                          range.frees.end());
    if (p->reserved > p->release_threshold) trim_to(*p, p->release_threshold);
    forget_if_done(p);
  }
}

cudaError_t MemoryPools::set_attribute(MemoryPool& pool, int attr, const void* value) {
  if (!value) return cudaErrorInvalidValue;
  // The reuse policies are ints, the figures 64-bit.
  const bool is_flag = attr == abi::kReuseFollowEventDependencies ||
                       attr == abi::kReuseAllowOpportunistic ||
                       attr == abi::kReuseAllowInternalDependencies;
  std::uint64_t v64 = 0;
  int v32 = 0;
  if (is_flag)
    std::memcpy(&v32, value, sizeof v32);
  else
    std::memcpy(&v64, value, sizeof v64);
  switch (attr) {
    case abi::kReuseFollowEventDependencies:
      pool.follow_event_dependencies = v32 != 0;
      return cudaSuccess;
    case abi::kReuseAllowOpportunistic:
      pool.allow_opportunistic = v32 != 0;
      return cudaSuccess;
    case abi::kReuseAllowInternalDependencies:
      pool.allow_internal_dependencies = v32 != 0;
      return cudaSuccess;
    case abi::kReleaseThreshold:
      pool.release_threshold = v64;
      return cudaSuccess;
    case abi::kReservedMemHigh:  // only resets, to the current figure
      if (v64 != 0) return cudaErrorInvalidValue;
      pool.reserved_high = pool.reserved;
      return cudaSuccess;
    case abi::kUsedMemHigh:
      if (v64 != 0) return cudaErrorInvalidValue;
      pool.used_high = pool.used;
      return cudaSuccess;
    default:  // the current figures are read-only
      return cudaErrorInvalidValue;
  }
}

cudaError_t MemoryPools::get_attribute(const MemoryPool& pool, int attr, void* value) const {
  if (!value) return cudaErrorInvalidValue;
  const MemoryPool& p = pool.source ? *pool.source : pool;
  auto flag = [value](bool b) {
    const int v = b ? 1 : 0;
    std::memcpy(value, &v, sizeof v);
    return cudaSuccess;
  };
  auto figure = [value](std::uint64_t v) {
    std::memcpy(value, &v, sizeof v);
    return cudaSuccess;
  };
  switch (attr) {
    case abi::kReuseFollowEventDependencies:
      return flag(p.follow_event_dependencies);
    case abi::kReuseAllowOpportunistic:
      return flag(p.allow_opportunistic);
    case abi::kReuseAllowInternalDependencies:
      return flag(p.allow_internal_dependencies);
    case abi::kReleaseThreshold:
      return figure(p.release_threshold);
    case abi::kReservedMemCurrent:
      return figure(p.reserved);
    case abi::kReservedMemHigh:
      return figure(p.reserved_high);
    case abi::kUsedMemCurrent:
      return figure(p.used);
    case abi::kUsedMemHigh:
      return figure(p.used_high);
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t MemoryPools::set_access(MemoryPool& pool, const abi::MemAccessDesc* desc,
                                    std::size_t count) {
  if (!desc && count > 0) return cudaErrorInvalidValue;
  for (std::size_t i = 0; i < count; ++i) {
    const abi::MemAccessDesc& d = desc[i];
    if (d.location.type != abi::kLocationDevice || d.location.id < 0 ||
        d.location.id >= rt_.device_count() ||
        (d.flags != abi::kAccessNone && d.flags != abi::kAccessRead &&
         d.flags != abi::kAccessReadWrite))
      return cudaErrorInvalidValue;
    // The pool's own device always has full access; another needs a peer link.
    if (d.location.id == pool.device
            ? d.flags != abi::kAccessReadWrite
            : d.flags != abi::kAccessNone && !rt_.can_access_peer(d.location.id, pool.device))
      return cudaErrorInvalidValue;
  }
  for (std::size_t i = 0; i < count; ++i)
    pool.access[static_cast<std::size_t>(desc[i].location.id)] = desc[i].flags;
  return cudaSuccess;
}

cudaError_t MemoryPools::get_access(int* flags, const MemoryPool& pool,
                                    const abi::MemLocation* location) const {
  if (!flags || !location || location->type != abi::kLocationDevice || location->id < 0 ||
      location->id >= rt_.device_count())
    return cudaErrorInvalidValue;
  *flags = pool.access[static_cast<std::size_t>(location->id)];
  return cudaSuccess;
}

cudaError_t MemoryPools::export_pool(void* out, MemoryPool& pool, int type,
                                     unsigned long long flags) {
  if (!out || flags != 0 || pool.source || type != abi::kHandlePosixFd ||
      (pool.props.handle_types & type) == 0)
    return cudaErrorInvalidValue;
  if (pool.export_fd < 0) {
    // The descriptor only names the pool: the memory stays the pool's.
    pool.export_fd = memfd_create("cnuas-mempool", MFD_CLOEXEC);
    if (pool.export_fd < 0) return cudaErrorMemoryAllocation;
    struct stat st {};
    fstat(pool.export_fd, &st);
    pool.export_file = {st.st_dev, st.st_ino};
  }
  const int fd = fcntl(pool.export_fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return cudaErrorMemoryAllocation;
  std::memcpy(out, &fd, sizeof fd);
  return cudaSuccess;
}

cudaError_t MemoryPools::import_pool(MemoryPool** out, void* os_handle, int type,
                                     unsigned long long flags) {
  if (!out || flags != 0 || type != abi::kHandlePosixFd) return cudaErrorInvalidValue;
  const int fd = static_cast<int>(reinterpret_cast<std::intptr_t>(os_handle));
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0) return cudaErrorInvalidValue;
  for (auto& [raw, p] : pools_)
    if (!p->destroyed && p->export_fd >= 0 &&
        p->export_file == std::make_pair(st.st_dev, st.st_ino)) {
      auto imported = std::make_shared<MemoryPool>();
      imported->device = p->device;
      imported->props = p->props;
      imported->source = p;
      *out = add(std::move(imported));
      return cudaSuccess;
    }
  return cudaErrorInvalidValue;
}

cudaError_t MemoryPools::export_pointer(abi::MemPoolPtrExportData* out, const void* ptr) const {
  const auto base = reinterpret_cast<std::uint64_t>(ptr);
  auto owner = allocation_pool_.find(base);
  if (!out || owner == allocation_pool_.end() || owner->second->props.handle_types == 0)
    return cudaErrorInvalidValue;
  PointerExport e{};
  std::memcpy(e.magic, kPointerMagic, sizeof e.magic);
  e.pid = static_cast<std::uint32_t>(getpid());
  e.pool = owner->second->serial;
  e.base = base;
  e.bytes = owner->second->live.at(base).bytes;
  std::memset(out, 0, sizeof *out);
  std::memcpy(out, &e, sizeof e);
  return cudaSuccess;
}

cudaError_t MemoryPools::import_pointer(void** out, MemoryPool& pool,
                                        const abi::MemPoolPtrExportData* data) {
  if (!out || !data || !pool.source) return cudaErrorInvalidValue;
  PointerExport e{};
  std::memcpy(&e, data, sizeof e);
  if (std::memcmp(e.magic, kPointerMagic, sizeof e.magic) != 0) return cudaErrorInvalidValue;
  if (e.pid != static_cast<std::uint32_t>(getpid()))
    return rt_.unsupported("cudaMemPoolImportPointer of another process's allocation");
  auto owner = allocation_pool_.find(e.base);
  if (e.pool != pool.source->serial || owner == allocation_pool_.end() ||
      owner->second != pool.source.get())
    return cudaErrorInvalidValue;
  const std::uint64_t alias = rt_.memory().alias(e.base, e.bytes);
  imported_[alias] = e.bytes;
  rt_.track({alias, e.bytes, pool.device, MemoryKind::Device, this});
  *out = reinterpret_cast<void*>(alias);
  return cudaSuccess;
}

}  // namespace cnuas::cuda
