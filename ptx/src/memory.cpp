#include "ptx/memory.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string>

namespace cnuas::ptx {

std::uint64_t DeviceMemory::allocate(std::uint64_t bytes, std::uint64_t align) {
  if (align == 0 || (align & (align - 1)) != 0)
    throw std::invalid_argument("alignment must be a power of two");
  const std::uint64_t base = (next_ + align - 1) & ~(align - 1);
  Block b{bytes, std::make_unique<std::uint8_t[]>(bytes ? bytes : 1), nullptr};  // zero-filled
  b.data = b.owned.get();
  blocks_.emplace(base, std::move(b));
  // A gap after each block so that running off its end never lands in the next.
  next_ = base + (bytes ? bytes : 1) + 256;
  allocated_ += bytes;
  return base;
}

void DeviceMemory::adopt(void* host, std::uint64_t bytes) {
  const auto base = reinterpret_cast<std::uint64_t>(host);
  const std::uint64_t size = bytes ? bytes : 1;
  auto next = blocks_.lower_bound(base);
  if (next != blocks_.end() && next->first < base + size)
    throw std::invalid_argument("adopted host range overlaps an allocation");
  if (next != blocks_.begin() && std::prev(next)->first + std::prev(next)->second.size > base)
    throw std::invalid_argument("adopted host range overlaps an allocation");
  blocks_.emplace(base, Block{bytes, nullptr, static_cast<std::uint8_t*>(host)});
  allocated_ += bytes;
}

bool DeviceMemory::is_adopted(std::uint64_t addr) const {
  auto f = blocks_.upper_bound(addr);
  if (f == blocks_.begin()) return false;
  --f;
  return addr < f->first + std::max<std::uint64_t>(f->second.size, 1) && !f->second.owned;
}

std::pair<std::uint64_t, std::uint64_t> DeviceMemory::allocation_of(std::uint64_t addr) const {
  auto f = blocks_.upper_bound(addr);
  if (f == blocks_.begin()) return {0, 0};
  --f;
  if (addr >= f->first + std::max<std::uint64_t>(f->second.size, 1)) return {0, 0};
  return {f->first, f->second.size};
}

void DeviceMemory::free(std::uint64_t addr) {
  auto f = blocks_.find(addr);
  if (f == blocks_.end()) throw std::invalid_argument("not the start of an allocation");
  allocated_ -= f->second.size;
  if (hit_base_ == addr) hit_base_ = hit_end_ = 0, hit_data_ = nullptr;
  for (Recent& r : recent_)
    if (r.base == addr) r = Recent{};
  blocks_.erase(f);
}

std::uint8_t* DeviceMemory::find_slow(std::uint64_t addr, std::uint64_t bytes) {
  if (addr + bytes < addr) return nullptr;
  for (const Recent& r : recent_)
    if (addr >= r.base && addr + bytes <= r.end) {
      hit_base_ = r.base;
      hit_end_ = r.end;
      hit_data_ = r.data;
      return hit_data_ + (addr - r.base);
    }
  auto f = blocks_.upper_bound(addr);
  if (f == blocks_.begin()) return nullptr;
  --f;
  const std::uint64_t base = f->first, end = base + f->second.size;
  if (addr + bytes > end) return nullptr;
  hit_base_ = base;
  hit_end_ = end;
  hit_data_ = f->second.data;
  recent_[recent_next_] = {base, end, hit_data_};
  recent_next_ = (recent_next_ + 1) % kRecent;
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
  std::memcpy(dst, f->second.data + (addr - f->first), bytes);
}

}  // namespace cnuas::ptx
