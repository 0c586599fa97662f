// The registers a PTX instruction reads and writes, for the SM's scoreboard.
// Decoded once per instruction and cached.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "ptx/executor.h"
#include "ptx/ir.h"

namespace cnuas::gpu {

struct WarpDeps {
  static constexpr unsigned kMax = 16;
  std::uint8_t reads = 0, writes = 0;
  std::int32_t read[kMax];
  std::int32_t write[kMax];
  ptx::UnitClass unit = ptx::UnitClass::Int;
  bool waits_for_memory = false;  // a load or atomic whose result comes from the memory system
};

class DepsCache {
 public:
  const WarpDeps& of(const ptx::Instruction& i) {
    auto it = cache_.find(&i);
    if (it != cache_.end()) return it->second;
    return cache_.emplace(&i, decode(i)).first->second;
  }
  static WarpDeps decode(const ptx::Instruction& i);

 private:
  std::unordered_map<const ptx::Instruction*, WarpDeps> cache_;
};

}  // namespace cnuas::gpu
