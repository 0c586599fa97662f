#include "engine/virtual_memory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <new>
#include <stdexcept>

namespace cnuas::cuda {
namespace {

constexpr cudaError_t kOutOfMemory = cudaErrorMemoryAllocation;  // CUDA_ERROR_OUT_OF_MEMORY
constexpr cudaError_t kInvalidDevice = cudaErrorInvalidDevice;

std::uint64_t host_page() {
  static const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
  return page;
}

bool multiple(std::uint64_t v, std::uint64_t of) {
  return v % of == 0;
}

}  // namespace

VirtualMemory::Physical::~Physical() {
  if (fd >= 0) close(fd);
  if (device_allocated) *device_allocated -= bytes;
}

bool VirtualMemory::Piece::accessible() const {
  for (int a : access)
    if (a != abi::kAccessNone) return true;
  return false;
}

VirtualMemory::VirtualMemory(Runtime& rt) : rt_(rt) {}

VirtualMemory::~VirtualMemory() {
  for (auto& [base, r] : reservations_) munmap(r.host, r.bytes);
}

cudaError_t VirtualMemory::granularity(std::size_t* out, const abi::MemAllocationProp* prop,
                                       int option) const {
  if (!out || !prop ||
      (option != abi::kGranularityMinimum && option != abi::kGranularityRecommended) ||
      prop->type != abi::kAllocationPinned || prop->location.type != abi::kLocationDevice)
    return cudaErrorInvalidValue;
  if (prop->location.id < 0 || prop->location.id >= rt_.device_count()) return kInvalidDevice;
  *out = kGranularity;
  return cudaSuccess;
}

std::shared_ptr<VirtualMemory::Physical> VirtualMemory::make_physical(
    int fd, std::uint64_t bytes, const abi::MemAllocationProp& prop) {
  struct stat st {};
  fstat(fd, &st);
  auto p = std::make_shared<Physical>();
  p->fd = fd;
  p->bytes = bytes;
  p->prop = prop;
  p->prop.win32_metadata = nullptr;
  p->file = {st.st_dev, st.st_ino};
  p->device_allocated = &rt_.device(prop.location.id).allocated;
  *p->device_allocated += bytes;
  return p;
}

std::uint64_t VirtualMemory::add_handle(std::shared_ptr<Physical> physical) {
  const std::uint64_t h = next_handle_++;
  handles_[h] = Handle{std::move(physical), 1};
  return h;
}

cudaError_t VirtualMemory::create(unsigned long long* handle, std::size_t bytes,
                                  const abi::MemAllocationProp* prop, unsigned long long flags) {
  if (!handle || !prop || flags != 0 || prop->type != abi::kAllocationPinned)
    return cudaErrorInvalidValue;
  if (prop->location.type != abi::kLocationDevice) {
    if (prop->location.type < abi::kLocationHost) return cudaErrorInvalidValue;
    return rt_.unsupported("cuMemCreate of host memory");
  }
  if (prop->location.id < 0 || prop->location.id >= rt_.device_count()) return kInvalidDevice;
  if ((prop->requested_handle_types & ~abi::kHandlePosixFd) != 0)
    return rt_.unsupported("cuMemCreate with a Win32 or fabric handle type");
  if (bytes == 0 || !multiple(bytes, kGranularity)) return cudaErrorInvalidValue;
  const DeviceState& d = rt_.device(prop->location.id);
  if (bytes > d.desc.memory_bytes - d.allocated) return kOutOfMemory;
  const int fd = memfd_create("cnuas-cuMemCreate", MFD_CLOEXEC);
  if (fd < 0) return kOutOfMemory;
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    close(fd);
    return kOutOfMemory;
  }
  *handle = add_handle(make_physical(fd, bytes, *prop));
  return cudaSuccess;
}

cudaError_t VirtualMemory::release(std::uint64_t handle) {
  auto h = handles_.find(handle);
  if (h == handles_.end()) return cudaErrorInvalidValue;
  // The memory itself goes with its last mapping (a Piece holds it too).
  if (--h->second.references == 0) handles_.erase(h);
  return cudaSuccess;
}

cudaError_t VirtualMemory::reserve(CUdeviceptr* ptr, std::size_t bytes, std::size_t alignment,
                                   std::uint64_t hint, unsigned long long flags) {
  if (!ptr || flags != 0 || bytes == 0 || !multiple(bytes, host_page()) ||
      !multiple(hint, host_page()) || (alignment & (alignment - 1)) != 0)
    return cudaErrorInvalidValue;
  void* host = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (host == MAP_FAILED) return kOutOfMemory;
  std::uint64_t base = 0;
  try {
    base = rt_.memory().reserve(bytes, alignment ? alignment : kGranularity, hint);
  } catch (const std::exception&) {
    munmap(host, bytes);
    return kOutOfMemory;
  }
  Reservation r;
  r.bytes = bytes;
  r.host = static_cast<std::uint8_t*>(host);
  reservations_.emplace(base, std::move(r));
  *ptr = base;
  return cudaSuccess;
}

cudaError_t VirtualMemory::free_reservation(std::uint64_t ptr, std::size_t bytes) {
  auto r = reservations_.find(ptr);
  // The whole reservation, nothing mapped in it any more.
  if (r == reservations_.end() || r->second.bytes != bytes || !r->second.pieces.empty())
    return cudaErrorInvalidValue;
  munmap(r->second.host, r->second.bytes);
  rt_.memory().unreserve(ptr);
  reservations_.erase(r);
  return cudaSuccess;
}

std::pair<std::uint64_t, VirtualMemory::Reservation*> VirtualMemory::reservation_of(
    std::uint64_t ptr, std::uint64_t bytes) {
  auto r = reservations_.upper_bound(ptr);
  if (r == reservations_.begin()) return {0, nullptr};
  --r;
  if (ptr + bytes < ptr || ptr + bytes > r->first + r->second.bytes) return {0, nullptr};
  return {r->first, &r->second};
}

const VirtualMemory::Piece* VirtualMemory::piece_at(std::uint64_t addr) const {
  auto r = reservations_.upper_bound(addr);
  if (r == reservations_.begin()) return nullptr;
  --r;
  auto p = r->second.pieces.upper_bound(addr);
  if (p == r->second.pieces.begin()) return nullptr;
  --p;
  return addr < p->first + p->second.bytes ? &p->second : nullptr;
}

std::vector<VirtualMemory::Piece*> VirtualMemory::pieces_covering(Reservation& r, std::uint64_t ptr,
                                                                  std::uint64_t bytes) {
  std::vector<Piece*> out;
  std::uint64_t at = ptr;
  for (auto p = r.pieces.find(ptr); p != r.pieces.end() && p->first == at && at < ptr + bytes;
       ++p) {
    out.push_back(&p->second);
    at += p->second.bytes;
  }
  if (at != ptr + bytes || bytes == 0) out.clear();
  return out;
}

cudaError_t VirtualMemory::map(std::uint64_t ptr, std::size_t bytes, std::size_t offset,
                               std::uint64_t handle, unsigned long long flags) {
  auto h = handles_.find(handle);
  if (flags != 0 || h == handles_.end() || bytes == 0 || !multiple(ptr, kGranularity) ||
      !multiple(bytes, kGranularity) || !multiple(offset, kGranularity))
    return cudaErrorInvalidValue;
  const std::shared_ptr<Physical>& physical = h->second.physical;
  if (offset > physical->bytes || bytes > physical->bytes - offset) return cudaErrorInvalidValue;
  auto [base, r] = reservation_of(ptr, bytes);
  if (!r) return cudaErrorInvalidValue;
  // Only where nothing is mapped yet.
  auto next = r->pieces.lower_bound(ptr + bytes);
  if (next != r->pieces.begin() && std::prev(next)->first + std::prev(next)->second.bytes > ptr)
    return cudaErrorInvalidValue;
  void* at = r->host + (ptr - base);
  if (mmap(at, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, physical->fd,
           static_cast<off_t>(offset)) == MAP_FAILED)
    return kOutOfMemory;
  Piece piece;
  piece.bytes = bytes;
  piece.offset = offset;
  piece.handle = handle;
  piece.physical = physical;
  // A mapping starts with no access for anyone (cuMemSetAccess grants it).
  piece.access.assign(static_cast<std::size_t>(rt_.device_count()), abi::kAccessNone);
  r->pieces.emplace(ptr, std::move(piece));
  return cudaSuccess;
}

void VirtualMemory::withdraw(Reservation& r) {
  for (std::uint64_t run : r.runs) rt_.memory().free(run);
  r.runs.clear();
  for (auto& [va, piece] : r.pieces) rt_.untrack(va);
}

void VirtualMemory::publish(std::uint64_t base, Reservation& r) {
  std::uint64_t run = 0, run_end = 0;
  auto close_run = [&] {
    if (run_end > run) {
      rt_.memory().map(run, r.host + (run - base), run_end - run);
      r.runs.push_back(run);
    }
    run = run_end = 0;
  };
  for (auto& [va, piece] : r.pieces) {
    if (!piece.accessible()) {
      close_run();
      continue;
    }
    if (va != run_end) {
      close_run();
      run = va;
    }
    run_end = va + piece.bytes;
    rt_.track({va, piece.bytes, piece.physical->prop.location.id, MemoryKind::Device, this});
  }
  close_run();
}

cudaError_t VirtualMemory::unmap(std::uint64_t ptr, std::size_t bytes) {
  auto [base, r] = reservation_of(ptr, bytes);
  if (!r || pieces_covering(*r, ptr, bytes).empty()) return cudaErrorInvalidValue;
  // Synchronous, as the driver's: work issued before still sees the memory.
  rt_.timeline().wait_all(-1);
  withdraw(*r);
  r->pieces.erase(r->pieces.find(ptr), r->pieces.lower_bound(ptr + bytes));
  // The host range goes back to reserved address space.
  mmap(r->host + (ptr - base), bytes, PROT_NONE,
       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
  publish(base, *r);
  return cudaSuccess;
}

cudaError_t VirtualMemory::set_access(std::uint64_t ptr, std::size_t bytes,
                                      const abi::MemAccessDesc* desc, std::size_t count) {
  if (!desc || count == 0) return cudaErrorInvalidValue;
  auto [base, r] = reservation_of(ptr, bytes);
  if (!r) return cudaErrorInvalidValue;
  const std::vector<Piece*> pieces = pieces_covering(*r, ptr, bytes);
  if (pieces.empty()) return cudaErrorInvalidValue;
  for (std::size_t i = 0; i < count; ++i) {
    const abi::MemAccessDesc& d = desc[i];
    if (d.location.type != abi::kLocationDevice ||
        (d.flags != abi::kAccessNone && d.flags != abi::kAccessRead &&
         d.flags != abi::kAccessReadWrite))
      return cudaErrorInvalidValue;
    if (d.location.id < 0 || d.location.id >= rt_.device_count()) return kInvalidDevice;
    // Another device reaches the memory over a peer link, or not at all.
    for (const Piece* p : pieces) {
      const int home = p->physical->prop.location.id;
      if (d.location.id != home && d.flags != abi::kAccessNone &&
          !rt_.can_access_peer(d.location.id, home))
        return kInvalidDevice;
    }
  }
  rt_.timeline().wait_all(-1);  // synchronous, as the driver's
  withdraw(*r);
  for (Piece* p : pieces)
    for (std::size_t i = 0; i < count; ++i)
      p->access[static_cast<std::size_t>(desc[i].location.id)] = desc[i].flags;
  publish(base, *r);
  return cudaSuccess;
}

cudaError_t VirtualMemory::get_access(unsigned long long* flags, const abi::MemLocation* location,
                                      std::uint64_t ptr) const {
  if (!flags || !location || location->type != abi::kLocationDevice) return cudaErrorInvalidValue;
  if (location->id < 0 || location->id >= rt_.device_count()) return kInvalidDevice;
  const Piece* p = piece_at(ptr);
  if (!p) return cudaErrorInvalidValue;
  *flags = static_cast<unsigned long long>(p->access[static_cast<std::size_t>(location->id)]);
  return cudaSuccess;
}

cudaError_t VirtualMemory::export_handle(void* out, std::uint64_t handle, int type,
                                         unsigned long long flags) {
  auto h = handles_.find(handle);
  if (!out || flags != 0 || h == handles_.end()) return cudaErrorInvalidValue;
  const std::shared_ptr<Physical>& p = h->second.physical;
  // Only the handle type the allocation asked for at creation.
  if (type != abi::kHandlePosixFd || (p->prop.requested_handle_types & type) == 0)
    return cudaErrorInvalidValue;
  const int fd = fcntl(p->fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) return kOutOfMemory;
  exported_[p->file] = Exported{p->bytes, p->prop, p};
  std::memcpy(out, &fd, sizeof fd);
  return cudaSuccess;
}

cudaError_t VirtualMemory::import_handle(unsigned long long* handle, void* os_handle, int type) {
  if (!handle || type != abi::kHandlePosixFd) return cudaErrorInvalidValue;
  // A POSIX descriptor travels in the pointer's bits.
  const int fd = static_cast<int>(reinterpret_cast<std::intptr_t>(os_handle));
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0) return cudaErrorInvalidValue;
  auto e = exported_.find({st.st_dev, st.st_ino});
  // A descriptor this process did not export: memory it cannot describe.
  if (e == exported_.end()) return cudaErrorNotSupported;
  std::shared_ptr<Physical> p = e->second.physical.lock();
  if (!p) {
    // Every handle and mapping had gone; the descriptor kept the bytes.
    const int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (own < 0) return kOutOfMemory;
    p = make_physical(own, e->second.bytes, e->second.prop);
    e->second.physical = p;
  }
  *handle = add_handle(std::move(p));
  return cudaSuccess;
}

cudaError_t VirtualMemory::retain(unsigned long long* handle, std::uint64_t addr) {
  const Piece* p = handle ? piece_at(addr) : nullptr;
  if (!p) return cudaErrorInvalidValue;
  // The value that mapped the memory, even if it was released since.
  auto h = handles_.find(p->handle);
  if (h == handles_.end())
    handles_[p->handle] = Handle{p->physical, 1};
  else
    ++h->second.references;
  *handle = p->handle;
  return cudaSuccess;
}

cudaError_t VirtualMemory::properties(abi::MemAllocationProp* prop, std::uint64_t handle) const {
  auto h = handles_.find(handle);
  if (!prop || h == handles_.end()) return cudaErrorInvalidValue;
  *prop = h->second.physical->prop;
  return cudaSuccess;
}

cudaError_t VirtualMemory::free(std::uint64_t, Stream*) {
  return cudaErrorInvalidValue;
}

}  // namespace cnuas::cuda
