#include "ptx/memory.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace cnuas::ptx {

std::uint64_t DeviceMemory::allocate(std::uint64_t bytes, std::uint64_t align) {
  if (align == 0 || (align & (align - 1)) != 0)
    throw std::invalid_argument("alignment must be a power of two");
  const std::uint64_t base = (next_ + align - 1) & ~(align - 1);
  Block b{bytes, std::make_unique<std::uint8_t[]>(bytes ? bytes : 1)};  // zero-filled
  blocks_.emplace(base, std::move(b));
  // A gap after each block so that running off its end never lands in the next.
  next_ = base + (bytes ? bytes : 1) + 256;
  allocated_ += bytes;
  return base;
}

void DeviceMemory::free(std::uint64_t addr) {
  auto f = blocks_.find(addr);
  if (f == blocks_.end()) throw std::invalid_argument("not the start of an allocation");
  allocated_ -= f->second.size;
  if (hit_base_ == addr) hit_base_ = hit_end_ = 0, hit_data_ = nullptr;
  blocks_.erase(f);
}

std::uint8_t* DeviceMemory::find_slow(std::uint64_t addr, std::uint64_t bytes) {
  auto f = blocks_.upper_bound(addr);
  if (f == blocks_.begin()) return nullptr;
  --f;
  const std::uint64_t base = f->first, end = base + f->second.size;
  if (addr + bytes > end || addr + bytes < addr) return nullptr;
  hit_base_ = base;
  hit_end_ = end;
  hit_data_ = f->second.data.get();
  return hit_data_ + (addr - base);
}

void DeviceMemory::write(std::uint64_t addr, const void* src, std::uint64_t bytes) {
  std::uint8_t* p = find(addr, bytes);
  if (!p) throw std::out_of_range("device write outside any allocation at " + std::to_string(addr));
  std::memcpy(p, src, bytes);
}

void DeviceMemory::read(std::uint64_t addr, void* dst, std::uint64_t bytes) const {
  auto f = blocks_.upper_bound(addr);
  if (f == blocks_.begin()) throw std::out_of_range("device read outside any allocation");
  --f;
  if (addr + bytes > f->first + f->second.size)
    throw std::out_of_range("device read outside any allocation");
  std::memcpy(dst, f->second.data.get() + (addr - f->first), bytes);
}

}  // namespace cnuas::ptx
