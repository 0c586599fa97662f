#include "engine/host_mappings.h"

#include <sys/mman.h>

namespace cnuas::cuda {

namespace {
constexpr std::size_t kPage = 4096;
}

std::size_t HostMappings::rounded(std::size_t bytes) {
  return ((bytes ? bytes : 1) + kPage - 1) / kPage * kPage;
}

void* HostMappings::map(std::size_t bytes) {
  const std::size_t size = rounded(bytes);
  if (size > kEnd - next_) return nullptr;
  // MAP_FIXED_NOREPLACE fails rather than replace anything already there; a
  // guard page stays unmapped after each range.
  void* p = ::mmap(reinterpret_cast<void*>(next_), size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  if (reinterpret_cast<std::uint64_t>(p) != next_) {  // a kernel without MAP_FIXED_NOREPLACE
    ::munmap(p, size);
    return nullptr;
  }
  next_ += size + kPage;
  return p;
}

void HostMappings::unmap(void* p, std::size_t bytes) {
  ::munmap(p, rounded(bytes));
}

}  // namespace cnuas::cuda
