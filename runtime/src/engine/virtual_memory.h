// Virtual memory management (cuMemCreate, cuMemAddressReserve, cuMemMap,
// cuMemSetAccess, ...): physical allocations the program maps into address
// ranges it reserved, as many times and wherever it likes.
//
// A physical allocation is a memfd of its size, so that two mappings of it
// are the same bytes (a write through one is read through the other) and its
// exported POSIX file descriptor is a real one: a dup of the memfd, which
// keeps the memory alive as the driver's shareable handle does. A reservation
// is device address space (ptx::DeviceMemory::reserve) shadowed by a host
// reservation of the same size, into which each mapping maps its part of the
// memfd; pieces mapped side by side are therefore contiguous host memory too,
// and a kernel or a copy may run across them.
//
// A mapping is reachable by kernels and copies only once cuMemSetAccess gave
// some device access to it, as on the GPU; until then an access faults
// (cudaErrorIllegalAddress). Accessibility is per device and read back by
// cuMemGetAccess; as everywhere in the simulator's unified memory, a kernel on
// a device without access is not refused once any device has access, and
// read-only access does not refuse writes.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "engine/runtime.h"
#include "memory_abi.h"

namespace cnuas::cuda {

class VirtualMemory : public MemoryOwner {
 public:
  explicit VirtualMemory(Runtime& rt);
  ~VirtualMemory() override;
  VirtualMemory(const VirtualMemory&) = delete;
  VirtualMemory& operator=(const VirtualMemory&) = delete;

  // The GPUs' page: the minimum and recommended granularity of sizes,
  // offsets and addresses.
  static constexpr std::uint64_t kGranularity = 2ull << 20;

  // Each returns cudaSuccess or the code the driver documents (the runtime
  // and driver numbers agree for all of them); none sets the last error.
  cudaError_t granularity(std::size_t* out, const abi::MemAllocationProp* prop, int option) const;
  cudaError_t create(unsigned long long* handle, std::size_t bytes,
                     const abi::MemAllocationProp* prop, unsigned long long flags);
  cudaError_t release(std::uint64_t handle);
  cudaError_t reserve(CUdeviceptr* ptr, std::size_t bytes, std::size_t alignment,
                      std::uint64_t hint, unsigned long long flags);
  cudaError_t free_reservation(std::uint64_t ptr, std::size_t bytes);
  cudaError_t map(std::uint64_t ptr, std::size_t bytes, std::size_t offset, std::uint64_t handle,
                  unsigned long long flags);
  cudaError_t unmap(std::uint64_t ptr, std::size_t bytes);
  cudaError_t set_access(std::uint64_t ptr, std::size_t bytes, const abi::MemAccessDesc* desc,
                         std::size_t count);
  cudaError_t get_access(unsigned long long* flags, const abi::MemLocation* location,
                         std::uint64_t ptr) const;
  cudaError_t export_handle(void* out, std::uint64_t handle, int type, unsigned long long flags);
  cudaError_t import_handle(unsigned long long* handle, void* os_handle, int type);
  cudaError_t retain(unsigned long long* handle, std::uint64_t addr);
  cudaError_t properties(abi::MemAllocationProp* prop, std::uint64_t handle) const;

  // cudaFree and cudaFreeAsync do not take mapped memory: cudaErrorInvalidValue.
  cudaError_t free(std::uint64_t base, Stream* stream) override;

 private:
  // The memory of one cuMemCreate (or of an import whose allocation had
  // gone): alive while a handle or a mapping refers to it.
  struct Physical {
    int fd = -1;
    std::uint64_t bytes = 0;
    abi::MemAllocationProp prop{};
    std::pair<dev_t, ino_t> file{};             // identifies the memfd behind any descriptor of it
    std::uint64_t* device_allocated = nullptr;  // DeviceState::allocated of its device
    ~Physical();
  };
  struct Handle {
    std::shared_ptr<Physical> physical;
    int references = 1;  // the creation or import, plus each retain
  };
  struct Piece {  // one cuMemMap
    std::uint64_t bytes = 0, offset = 0, handle = 0;
    std::shared_ptr<Physical> physical;
    std::vector<int> access;  // per device, abi::kAccess*
    bool accessible() const;
  };
  struct Reservation {
    std::uint64_t bytes = 0;
    std::uint8_t* host = nullptr;           // the host range shadowing it
    std::map<std::uint64_t, Piece> pieces;  // by address
    std::vector<std::uint64_t> runs;        // device ranges now given to DeviceMemory
  };
  // What an exported descriptor's memfd holds, to import it after every
  // handle of its allocation was released (the descriptor keeps the bytes).
  struct Exported {
    std::uint64_t bytes = 0;
    abi::MemAllocationProp prop{};
    std::weak_ptr<Physical> physical;
  };

  std::shared_ptr<Physical> make_physical(int fd, std::uint64_t bytes,
                                          const abi::MemAllocationProp& prop);
  std::uint64_t add_handle(std::shared_ptr<Physical> physical);
  // The reservation holding [ptr, ptr + bytes) and its base, or null.
  std::pair<std::uint64_t, Reservation*> reservation_of(std::uint64_t ptr, std::uint64_t bytes);
  const Piece* piece_at(std::uint64_t addr) const;
  // The pieces covering exactly [ptr, ptr + bytes), side by side; empty when
  // the range does not start and end at piece boundaries or has a gap.
  std::vector<Piece*> pieces_covering(Reservation& r, std::uint64_t ptr, std::uint64_t bytes);
  // Gives DeviceMemory (and the runtime's allocation table) the accessible
  // pieces of `r` anew, side-by-side pieces as one range.
  void publish(std::uint64_t base, Reservation& r);
  void withdraw(Reservation& r);

  Runtime& rt_;
  std::uint64_t next_handle_ = 0x10000;  // handle values are never reused
  std::map<std::uint64_t, Handle> handles_;
  std::map<std::uint64_t, Reservation> reservations_;  // by base address
  std::map<std::pair<dev_t, ino_t>, Exported> exported_;
};

}  // namespace cnuas::cuda
