// Host memory that the device sees at the same address (managed memory,
// pinned memory from cudaMallocHost): mapped at addresses that depend only on
// the order of the program's allocations, never on the C library's heap or
// address-space randomization, so that the performance model, whose cache
// sets and DRAM banks follow addresses, gives the same times in every run.
// Pages are zero and backed by host memory only once touched.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cnuas::cuda {

class HostMappings {
 public:
  // The region the mappings are placed in (16 TiB): below the device address
  // space (ptx::kGlobalBase), the executable and the shared libraries, above
  // AddressSanitizer's shadow memory and below its allocator (0x6000'0000'0000).
  static constexpr std::uint64_t kBase = 0x0000'3000'0000'0000ull;
  static constexpr std::uint64_t kEnd = 0x0000'4000'0000'0000ull;

  // `bytes` rounded up to whole pages, zero-filled; nullptr when the host
  // refuses the mapping.
  void* map(std::size_t bytes);
  void unmap(void* p, std::size_t bytes);
  static std::size_t rounded(std::size_t bytes);

 private:
  std::uint64_t next_ = kBase;  // addresses are not reused, so a freed range faults
};

}  // namespace cnuas::cuda
