// Device memory the PTX engine reads and writes: allocations in one 64-bit
// address space, placed as the CUDA driver places them. Allocations are
// rounded to their alignment and carved out of 2 MiB pages (an allocation of
// 2 MiB or more gets pages of its own); an access inside a mapped page but
// past the end of every allocation is what the hardware lets through and a
// memory checker reports (see find_mapped); one outside every mapped page faults.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace cnuas::ptx {

// Generic-address windows for the per-CTA shared and per-thread local spaces;
// global allocations live far above them.
constexpr std::uint64_t kSharedWindow = 0x0000'0100'0000'0000ull;
constexpr std::uint64_t kLocalWindow = 0x0000'0200'0000'0000ull;
constexpr std::uint64_t kWindowSize = 0x0000'0001'0000'0000ull;
// cvta.param: a kernel parameter's generic address (a __grid_constant__ parameter's, such as a
// tensor map passed by value) is its offset in the parameter buffer above this.
constexpr std::uint64_t kParamWindow = 0x0000'0400'0000'0000ull;
constexpr std::uint64_t kGlobalBase = 0x0000'7000'0000'0000ull;
// The GPU maps device memory in pages of this size.
constexpr std::uint64_t kDevicePage = 2ull << 20;

// One read-modify-write of `bytes` (1, 2, 4 or 8, aligned) at p as a single
// host atomic operation, so that host threads working on the same memory at
// the same time (managed, mapped pinned and registered memory is the
// program's own) lose no update; op maps the old value, zero-extended, to the
// new one. Returns the old value. Other sizes or misaligned bytes: a plain
// read and write.
template <class Op>
std::uint64_t atomic_update(std::uint8_t* p, unsigned bytes, Op op) {
  auto exchange = [&](auto* at) -> std::uint64_t {
    using T = std::remove_pointer_t<decltype(at)>;
    T old = __atomic_load_n(at, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(at, &old, static_cast<T>(op(std::uint64_t{old})), true,
                                        __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
    }
    return old;
  };
  if (reinterpret_cast<std::uintptr_t>(p) % bytes == 0) {
    switch (bytes) {
      case 1:
        return exchange(p);
      case 2:
        return exchange(reinterpret_cast<std::uint16_t*>(p));
      case 4:
        return exchange(reinterpret_cast<std::uint32_t*>(p));
      case 8:
        return exchange(reinterpret_cast<std::uint64_t*>(p));
      default:
        break;
    }
  }
  const unsigned n = bytes > 8 ? 8 : bytes;
  std::uint64_t old = 0;
  std::memcpy(&old, p, n);
  const std::uint64_t value = op(old);
  std::memcpy(p, &value, n);
  return old;
}

class DeviceMemory {
 public:
  // Zero-filled, aligned to `align` (a power of two) and rounded up to a
  // multiple of it. Addresses depend only on the order of the calls.
  std::uint64_t allocate(std::uint64_t bytes, std::uint64_t align = 256);
  // Makes host memory device-visible at its own address (managed and mapped
  // pinned memory); the caller keeps ownership. The range must not overlap an
  // existing allocation.
  void adopt(void* host, std::uint64_t bytes);
  // Address space only, for mappings the caller places later (virtual memory
  // management): `bytes` at a multiple of `align` (a power of two) that no
  // allocation will take; at `hint` when that range is free. Addresses depend
  // only on the order of the calls.
  std::uint64_t reserve(std::uint64_t bytes, std::uint64_t align, std::uint64_t hint = 0);
  // Gives a reserved range back to the address space (its mappings gone).
  void unreserve(std::uint64_t base);
  // Makes `bytes` of host memory the caller owns device-visible at `addr`,
  // inside a reservation, until free(addr). The range must not overlap an
  // existing mapping.
  void map(std::uint64_t addr, std::uint8_t* data, std::uint64_t bytes);
  // A second device address for the bytes [addr, addr+bytes) of an
  // allocation: the same memory (a write through one is read through the
  // other), kept alive until both are freed.
  std::uint64_t alias(std::uint64_t addr, std::uint64_t bytes);
  // Whether [addr, addr+bytes) is an adopted host range (for pointer queries).
  bool is_adopted(std::uint64_t addr) const;
  // The allocation containing addr: its base and size, or {0, 0}.
  std::pair<std::uint64_t, std::uint64_t> allocation_of(std::uint64_t addr) const;
  // The allocation at or below addr that addr is not inside (for messages):
  // its base and size, or {0, 0}.
  std::pair<std::uint64_t, std::uint64_t> allocation_below(std::uint64_t addr) const;
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
  // find(), and the allocation holding the bytes: [base, end), whose first
  // byte the result points to.
  std::uint8_t* find_block(std::uint64_t addr, std::uint64_t bytes, std::uint64_t& base,
                           std::uint64_t& end) {
    if (!find(addr, bytes)) return nullptr;
    base = hit_base_;
    end = hit_end_;
    return hit_data_;
  }
  // The bytes [addr, addr+bytes) when they lie in one mapped page range (what
  // the hardware lets a kernel reach), else nullptr. Never for host copies.
  std::uint8_t* find_mapped(std::uint64_t addr, std::uint64_t bytes);
  std::uint64_t allocated_bytes() const { return allocated_; }
  // Every mapped range, in address order: f(device address, host bytes, size).
  template <class F>
  void for_each_mapping(F f) const {
    for (const auto& [base, m] : mappings_) f(base, m.data, m.size);
  }

  // Strict: a kernel access outside every allocation faults even inside a
  // mapped page (a memory checker's view). Off by default for a CUDA program
  // (the hardware's view); the engine on its own is strict.
  bool strict() const { return strict_; }
  void set_strict(bool strict) { strict_ = strict; }
  // Accesses let through past an allocation's end: the first of each kernel
  // and PTX line is reported, as a memory checker would (a warning to show).
  bool first_report(const std::string& kernel, std::uint32_t line) {
    return reported_.emplace(kernel, line).second;
  }
  void add_report(std::string message) { reports_.push_back(std::move(message)); }
  std::vector<std::string> take_reports() { return std::exchange(reports_, {}); }

 private:
  std::uint8_t* find_slow(std::uint64_t addr, std::uint64_t bytes);
  // A run of mapped pages: the pages of one large allocation, one page that
  // small allocations share, an adopted host range, memory mapped by the
  // caller, or an alias of another mapping's bytes.
  struct Mapping {
    std::uint64_t size;
    // The pages, shared by the aliases of this mapping's allocations; null
    // for memory the caller owns (adopted or mapped).
    std::shared_ptr<std::uint8_t> owned;
    std::uint8_t* data;
    std::uint64_t live = 0;  // allocations in it; unmapped when the last is freed
  };
  struct Block {
    std::uint64_t size;
    std::uint8_t* data;
    std::uint64_t mapping;  // base of the Mapping it lies in
    bool adopted;
  };
  std::uint64_t map_pages(std::uint64_t bytes);  // a fresh Mapping; returns its base
  // Whether [base, base+bytes) meets a mapping or a reservation.
  bool overlaps(std::uint64_t base, std::uint64_t bytes) const;
  std::map<std::uint64_t, Mapping> mappings_;
  std::map<std::uint64_t, std::uint64_t> reserved_;  // base -> bytes
  std::map<std::uint64_t, Block> blocks_;
  std::uint64_t next_ = kGlobalBase;  // where the next Mapping starts
  // The page small allocations are being carved from: [pool_, pool_end_).
  std::uint64_t pool_ = 0, pool_next_ = 0, pool_end_ = 0;
  std::uint64_t allocated_ = 0;
  bool strict_ = true;
  std::set<std::pair<std::string, std::uint32_t>> reported_;
  std::vector<std::string> reports_;
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
