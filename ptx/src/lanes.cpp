#include "lanes.h"

namespace cnuas::ptx {

// A variable shift per lane: vectorized where the host has AVX2.
__attribute__((target_clones("avx2", "default"))) void blend_lanes(std::uint64_t* d,
                                                                   const std::uint64_t* r,
                                                                   std::uint32_t m) {
  for (unsigned l = 0; l < 32; ++l) {
    const std::uint64_t take = 0 - static_cast<std::uint64_t>((m >> l) & 1u);
    d[l] = (r[l] & take) | (d[l] & ~take);
  }
}

}  // namespace cnuas::ptx
