#include "ptx/memory.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <new>
#include <stdexcept>
#include <string>

#include "ptx/host_backing.h"

namespace cnuas::ptx {
namespace {

std::uint64_t round_up(std::uint64_t v, std::uint64_t to) {
  return (v + to - 1) & ~(to - 1);
}

}  // namespace

// Pages are address space that costs host memory only once touched, 2 MiB
// at a time, within the host-memory budget (ptx/host_backing.h).
std::uint64_t DeviceMemory::map_pages(std::uint64_t bytes) {
  const std::uint64_t size = round_up(bytes, kDevicePage);
  if (size < bytes || size > (1ull << 46)) throw std::bad_alloc();
  std::uint8_t* data = host_backing::reserve(size);
  if (!data) throw std::bad_alloc();
  const std::uint64_t base = next_;
  std::shared_ptr<std::uint8_t> owned(data,
                                      [size](std::uint8_t* p) { host_backing::release(p, size); });
  mappings_.emplace(base, Mapping{size, std::move(owned), data, 0});
  // An unmapped page after each mapping, so that running off its end faults.
  next_ = base + size + kDevicePage;
  return base;
}

std::uint64_t DeviceMemory::allocate(std::uint64_t bytes, std::uint64_t align) {
  if (align == 0 || (align & (align - 1)) != 0 || align > kDevicePage)
    throw std::invalid_argument("alignment must be a power of two up to 2 MiB");
  const std::uint64_t rounded = round_up(std::max<std::uint64_t>(bytes, 1), align);
  if (rounded < bytes) throw std::bad_alloc();
  std::uint64_t base = 0, mapping = 0;
  if (rounded >= kDevicePage) {
    mapping = base = map_pages(rounded);
  } else {
    // Small allocations share a page, one after another, as the driver's
    // sub-allocator places them; a new page when this one is full.
    if (pool_ == 0 || round_up(pool_next_, align) + rounded > pool_end_) {
      pool_ = pool_next_ = map_pages(kDevicePage);
      pool_end_ = pool_ + kDevicePage;
    }
    mapping = pool_;
    base = round_up(pool_next_, align);
    pool_next_ = base + rounded;
  }
  Mapping& m = mappings_.at(mapping);
  ++m.live;
  blocks_.emplace(base, Block{bytes, m.data + (base - mapping), mapping, false});
  allocated_ += bytes;
  return base;
}

void DeviceMemory::adopt(void* host, std::uint64_t bytes) {
  const auto base = reinterpret_cast<std::uint64_t>(host);
  const std::uint64_t size = bytes ? bytes : 1;
  auto next = mappings_.lower_bound(base);
  if (next != mappings_.end() && next->first < base + size)
    throw std::invalid_argument("adopted host range overlaps an allocation");
  if (next != mappings_.begin() && std::prev(next)->first + std::prev(next)->second.size > base)
    throw std::invalid_argument("adopted host range overlaps an allocation");
  auto* data = static_cast<std::uint8_t*>(host);
  mappings_.emplace(base, Mapping{size, nullptr, data, 1});
  blocks_.emplace(base, Block{bytes, data, base, true});
  allocated_ += bytes;
}

bool DeviceMemory::overlaps(std::uint64_t base, std::uint64_t bytes) const {
  // Mappings (and reservations) do not overlap one another, so only the last
  // one starting before the range's end can reach into it.
  const std::uint64_t end = base + bytes;
  auto m = mappings_.lower_bound(end);
  if (m != mappings_.begin() && std::prev(m)->first + std::prev(m)->second.size > base) return true;
  auto r = reserved_.lower_bound(end);
  return r != reserved_.begin() && std::prev(r)->first + std::prev(r)->second > base;
}

std::uint64_t DeviceMemory::reserve(std::uint64_t bytes, std::uint64_t align, std::uint64_t hint) {
  if (bytes == 0 || bytes > (1ull << 46) || align == 0 || (align & (align - 1)) != 0)
    throw std::invalid_argument("a reservation needs a size and a power-of-two alignment");
  align = std::max(align, kDevicePage);
  std::uint64_t base = round_up(next_, align);
  if (hint != 0 && hint % align == 0 && hint >= kGlobalBase && hint + bytes > hint &&
      !overlaps(hint, bytes))
    base = hint;
  // The page after the range stays unmapped, as after every mapping.
  next_ = std::max(next_, round_up(base + bytes, kDevicePage) + kDevicePage);
  reserved_.emplace(base, bytes);
  return base;
}

void DeviceMemory::unreserve(std::uint64_t base) {
  reserved_.erase(base);
}

void DeviceMemory::map(std::uint64_t addr, std::uint8_t* data, std::uint64_t bytes) {
  if (bytes == 0 || addr + bytes < addr)
    throw std::invalid_argument("an empty or wrapping range cannot be mapped");
  auto next = mappings_.lower_bound(addr + bytes);
  if (next != mappings_.begin() && std::prev(next)->first + std::prev(next)->second.size > addr)
    throw std::invalid_argument("mapped range overlaps a mapping");
  mappings_.emplace(addr, Mapping{bytes, nullptr, data, 1});
  blocks_.emplace(addr, Block{bytes, data, addr, false});
  allocated_ += bytes;
}

std::uint64_t DeviceMemory::alias(std::uint64_t addr, std::uint64_t bytes) {
  auto f = blocks_.upper_bound(addr);
  if (f == blocks_.begin() || bytes == 0)
    throw std::invalid_argument("no allocation to alias at " + std::to_string(addr));
  --f;
  if (addr + bytes > f->first + f->second.size || addr + bytes < addr)
    throw std::invalid_argument("the aliased range leaves its allocation");
  std::uint8_t* data = f->second.data + (addr - f->first);
  std::shared_ptr<std::uint8_t> owned = mappings_.at(f->second.mapping).owned;
  const std::uint64_t base = next_;
  next_ = base + round_up(bytes, kDevicePage) + kDevicePage;
  mappings_.emplace(base, Mapping{bytes, std::move(owned), data, 1});
  blocks_.emplace(base, Block{bytes, data, base, false});
  allocated_ += bytes;
  return base;
}

bool DeviceMemory::is_adopted(std::uint64_t addr) const {
  auto f = blocks_.upper_bound(addr);
  if (f == blocks_.begin()) return false;
  --f;
  return addr < f->first + std::max<std::uint64_t>(f->second.size, 1) && f->second.adopted;
}

std::pair<std::uint64_t, std::uint64_t> DeviceMemory::allocation_of(std::uint64_t addr) const {
  auto f = blocks_.upper_bound(addr);
  if (f == blocks_.begin()) return {0, 0};
  --f;
  if (addr >= f->first + std::max<std::uint64_t>(f->second.size, 1)) return {0, 0};
  return {f->first, f->second.size};
}

std::pair<std::uint64_t, std::uint64_t> DeviceMemory::allocation_below(std::uint64_t addr) const {
  auto f = blocks_.upper_bound(addr);
  if (f == blocks_.begin()) return {0, 0};
  --f;
  if (addr < f->first + f->second.size) return {0, 0};
  return {f->first, f->second.size};
}

void DeviceMemory::free(std::uint64_t addr) {
  auto f = blocks_.find(addr);
  if (f == blocks_.end()) throw std::invalid_argument("not the start of an allocation");
  allocated_ -= f->second.size;
  if (hit_base_ == addr) hit_base_ = hit_end_ = 0, hit_data_ = nullptr;
  const std::uint64_t mapping = f->second.mapping;
  for (Recent& r : recent_)
    if (r.base == addr) r = Recent{};
  blocks_.erase(f);
  // The last allocation of a mapping unmaps its pages; their addresses are
  // not used again, so a stale pointer faults.
  auto m = mappings_.find(mapping);
  if (--m->second.live == 0) {
    mappings_.erase(m);
    if (pool_ == mapping) pool_ = pool_next_ = pool_end_ = 0;
  }
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

std::uint8_t* DeviceMemory::find_mapped(std::uint64_t addr, std::uint64_t bytes) {
  auto f = mappings_.upper_bound(addr);
  if (f == mappings_.begin()) return nullptr;
  --f;
  if (addr + bytes > f->first + f->second.size || addr + bytes < addr) return nullptr;
  return f->second.data + (addr - f->first);
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
