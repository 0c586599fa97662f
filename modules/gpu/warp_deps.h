// The registers a PTX instruction reads and writes, for the SM's scoreboard.
// Decoded once per instruction and cached. Every register operand is held:
// the common forms fit an inline buffer; matrix fragments (an f32 wmma.mma
// names 32 registers) spill to the heap, once, at decode.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "gpu/cache_hint.h"
#include "ptx/ir.h"
#include "ptx/unit_class.h"

namespace cnuas::gpu {

class WarpDeps {
 public:
  // A read-only run of register indices (of the instruction's frame).
  class Regs {
   public:
    Regs(const std::int32_t* first, const std::int32_t* last) : first_(first), last_(last) {}
    const std::int32_t* begin() const { return first_; }
    const std::int32_t* end() const { return last_; }
    std::size_t size() const { return static_cast<std::size_t>(last_ - first_); }

   private:
    const std::int32_t* first_;
    const std::int32_t* last_;
  };

  // Registers whose values the instruction needs at issue (the guard included).
  Regs reads() const { return {data(), data() + reads_}; }
  // Registers the instruction produces.
  Regs writes() const { return {data() + reads_, data() + reads_ + writes_}; }
  // Replaces the register sets (each without duplicates).
  void assign(const std::vector<std::int32_t>& reads, const std::vector<std::int32_t>& writes);

  ptx::UnitClass unit = ptx::UnitClass::Int;
  bool waits_for_memory = false;  // a load or atomic whose result comes from the memory system
  CacheHint cache_hint;           // a global load's or store's cache qualifiers
  // The carry flag of add.cc / addc / mad.cc chains: state of the warp outside the registers.
  bool reads_carry = false;
  bool writes_carry = false;
  // The wgmma family: which one this is; for wait_group, the groups it leaves in flight; for
  // mma_async, the FLOP of one warp's share (16 of the 64 rows).
  enum class Wgmma : std::uint8_t { None, Fence, Mma, Commit, Wait };
  Wgmma wgmma = Wgmma::None;
  // The input class of an mma.sync, wmma.mma or wgmma.mma_async, which sets its tensor rate
  // (f16 and bf16 share one; the sub-byte integer forms count as int8).
  enum class TensorInput : std::uint8_t { F16, Tf32, Fp8, Int8, F64 };
  TensorInput tensor_input = TensorInput::F16;
  std::uint32_t wgmma_wait = 0;
  std::uint64_t wgmma_flops = 0;
  // FLOP this warp's issue of an mma.sync, wmma.mma or wgmma.mma_async does (for its energy).
  std::uint64_t tensor_flops = 0;

 private:
  static constexpr std::size_t kInline = 12;
  const std::int32_t* data() const { return spill_.empty() ? inline_ : spill_.data(); }

  std::uint32_t reads_ = 0, writes_ = 0;
  std::int32_t inline_[kInline] = {};
  std::vector<std::int32_t> spill_;  // all the registers, when more than kInline
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
