// How a warp's memory instruction meets the memory system: global accesses
// coalesce into the cache lines (and the sectors within them) the active lanes
// touch; shared accesses take as many wavefronts as the most-used bank has
// distinct words (the same word in a bank is a broadcast, not a conflict).
#pragma once

#include <cstdint>

#include "ptx/executor.h"

namespace cnuas::gpu {

struct LineAccess {
  std::uint64_t line;
  std::uint32_t sectors;
};

// The lines touched, in order of first touch; returns how many (at most 64).
unsigned coalesce(const ptx::StepRecord& rec, std::uint32_t line_bytes, std::uint32_t sector_bytes,
                  LineAccess out[64]);

// Wavefronts (bank-serialized passes) of a shared-memory access; at least 1.
unsigned shared_wavefronts(const ptx::StepRecord& rec, std::uint32_t banks,
                           std::uint32_t bank_bytes);

}  // namespace cnuas::gpu
