// What a load's or store's cache qualifiers ask of L1 and L2 (PTX ISA, "Cache operators" and
// the eviction-priority qualifiers): .ca caches at every level (the default); .cg caches in L2,
// not L1; .cs and .lu (a last use, which on global memory behaves as .cs) allocate with evict-
// first priority in L1 and L2; .cv caches nowhere and fetches again; .L1::no_allocate and
// .L1::evict_first change the L1 only, .L2::evict_first and .L2::evict_last the L2 only.
// createpolicy and .L2::cache_hint policies are not read (the PTX engine does not produce them).
#pragma once

#include <cstdint>

#include "gpu/l2_policy.h"
#include "ptx/ir.h"

namespace cnuas::gpu {

struct CacheHint {
  enum Bits : std::uint8_t {
    kBypassL1 = 1,      // .cg, .cv: L1 neither looked up nor filled
    kL1NoAllocate = 2,  // .L1::no_allocate: looked up, not filled on a miss
    kL1Streaming = 4,   // .cs, .lu, .L1::evict_first: filled at the LRU end
    kRefetch = 8,       // .cv: the L2's clean copy is dropped and fetched again
    kL2Streaming = 16,  // .cs, .lu, .L2::evict_first: filled at the LRU end of the L2
    kL2Last = 32,       // .L2::evict_last: kept as a persisting line (within the set-aside)
  };
  std::uint8_t bits = 0;
  bool has(Bits b) const { return (bits & b) != 0; }
  // The retention the L2 gives the line when no access policy window covers it.
  Retention l2_retention() const {
    return has(kL2Last)        ? Retention::Persisting
           : has(kL2Streaming) ? Retention::Streaming
                               : Retention::Normal;
  }
};

// The hint of a global ld/ldu/st (from its mnemonic's qualifiers); none for other instructions.
CacheHint cache_hint_of(const ptx::Instruction& i);

}  // namespace cnuas::gpu
