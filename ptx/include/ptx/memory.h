// Device memory the PTX engine reads and writes: allocations in one 64-bit
// address space, every access bounds-checked against the allocation it falls in.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <utility>

namespace cnuas::ptx {

// Generic-address windows for the per-CTA shared and per-thread local spaces;
// global allocations live far above them.
constexpr std::uint64_t kSharedWindow = 0x0000'0100'0000'0000ull;
constexpr std::uint64_t kLocalWindow = 0x0000'0200'0000'0000ull;
constexpr std::uint64_t kWindowSize = 0x0000'0001'0000'0000ull;
constexpr std::uint64_t kGlobalBase = 0x0000'7000'0000'0000ull;

class DeviceMemory {
 public:
  // Zero-filled, aligned to `align` (a power of two).
  std::uint64_t allocate(std::uint64_t bytes, std::uint64_t align = 256);
  // Makes host memory device-visible at its own address (managed and mapped
  // pinned memory); the caller keeps ownership. The range must not overlap an
  // existing allocation.
  void adopt(void* host, std::uint64_t bytes);
  // Whether [addr, addr+bytes) is an adopted host range (for pointer queries).
  bool is_adopted(std::uint64_t addr) const;
  // The allocation containing addr: its base and size, or {0, 0}.
  std::pair<std::uint64_t, std::uint64_t> allocation_of(std::uint64_t addr) const;
  // Throws std::invalid_argument when addr is not the start of an allocation.
  void free(std::uint64_t addr);
  // Host-side copies; throw std::out_of_range when the range is not allocated.
  void write(std::uint64_t addr, const void* src, std::uint64_t bytes);
  void read(std::uint64_t addr, void* dst, std::uint64_t bytes) const;
  // The bytes [addr, addr+bytes) when they lie inside one allocation, else nullptr.
  std::uint8_t* find(std::uint64_t addr, std::uint64_t bytes) {
    if (addr >= hit_base_ && addr + bytes <= hit_end_ && addr + bytes >= addr)
      return hit_data_ + (addr - hit_base_);
    return find_slow(addr, bytes);
  }
  std::uint64_t allocated_bytes() const { return allocated_; }

 private:
  std::uint8_t* find_slow(std::uint64_t addr, std::uint64_t bytes);
  struct Block {
    std::uint64_t size;
    std::unique_ptr<std::uint8_t[]> owned;
    std::uint8_t* data;  // owned.get(), or the adopted host memory
  };
  std::map<std::uint64_t, Block> blocks_;
  std::uint64_t next_ = kGlobalBase;
  std::uint64_t allocated_ = 0;
  // The last allocation hit: most accesses of a kernel fall in the same few.
  std::uint64_t hit_base_ = 0, hit_end_ = 0;
  std::uint8_t* hit_data_ = nullptr;
  // The allocations hit most recently before it, tried before the map: a
  // kernel that reads and writes several arrays in turn (a graph's offsets,
  // edges and flags) would otherwise search the map at almost every access.
  struct Recent {
    std::uint64_t base = 0, end = 0;
    std::uint8_t* data = nullptr;
  };
  static constexpr unsigned kRecent = 8;
  Recent recent_[kRecent];
  unsigned recent_next_ = 0;  // the entry to replace next
};

}  // namespace cnuas::ptx
