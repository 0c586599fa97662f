// The SM's per-warp and per-CTA state, shared by its scheduling
// (sm.cpp) and memory (sm_memory.cpp) halves.
#pragma once

#include <memory>
#include <vector>

#include "gpu/sm.h"

namespace cnuas::gpu {

constexpr std::uint64_t kNever = UINT64_MAX;  // a register waiting on memory, or no next cycle

struct Sm::WarpSlot {
  ptx::Executor::Cta* cta = nullptr;
  std::uint32_t cta_slot = 0;
  std::uint32_t warp = 0;
  bool live = false;
  std::uint64_t age = 0;
  std::vector<std::uint64_t> ready;  // per register of the warp: cycle its value is ready
  std::vector<std::uint8_t> from_memory;
  std::uint64_t carry_ready = 0;   // cycle the carry flag of an add.cc chain is ready
  const WarpDeps* deps = nullptr;  // of the next instruction, once peeked
  std::uint32_t base = 0;          // its register base, with deps
  bool waiting = false;            // at a barrier (refreshed when a barrier instruction issues)
  // wgmma in flight: the cycle the uncommitted wgmmas finish, and per committed group not yet
  // waited for, the cycle it finishes (oldest first; a warp's tensor core works in order).
  std::uint64_t wgmma_open = 0;
  std::vector<std::uint64_t> wgmma_groups;
};

struct Sm::CtaSlot {
  std::unique_ptr<ptx::Executor::Cta> cta;
  CtaShape shape;
  std::uint32_t live_warps = 0;
};

struct Sm::TmaCopy {
  ptx::Executor::Cta* cta = nullptr;  // null once the CTA finished
  std::vector<ptx::PendingTransaction> transactions;
  std::uint32_t lines = 0;  // not arrived yet
};

struct Sm::LoadTracker {
  std::uint32_t slot = 0;
  std::uint32_t base = 0;
  const WarpDeps* deps = nullptr;
  std::uint32_t pending = 0;
  std::uint64_t ready = 0;
};

}  // namespace cnuas::gpu
