// Where the CTAs of a thread-block cluster run: all in one GPC, as the hardware guarantees
// so that they can reach each other's shared memory. The SMs are numbered GPC by GPC; they come
// in pairs (TPCs), spread as evenly as the pairs allow, the first GPCs taking the remainder
// (an assumption: a chip's disabled TPCs are not public, and vary between chips).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpu/arch_config.h"

namespace cnuas::gpu {

class ClusterPlacement {
 public:
  explicit ClusterPlacement(const SmConfig& sm);

  std::uint32_t gpcs() const { return static_cast<std::uint32_t>(first_.size()); }
  std::uint32_t first_sm(std::uint32_t gpc) const { return first_[gpc]; }
  std::uint32_t sms_in(std::uint32_t gpc) const { return count_[gpc]; }
  std::uint32_t gpc_of(std::uint32_t sm) const;

  // Why a cluster of `ctas` CTAs, of which one SM holds `ctas_per_sm`, can never run (more than
  // the profile's limit, or more than the largest GPC holds); empty when it can.
  std::string refusal(std::uint32_t ctas, bool non_portable, std::uint32_t ctas_per_sm) const;

  // The SM of each of the cluster's CTAs, all in the first GPC (round robin from the last
  // placement) whose SMs have `ctas` free CTA slots together, one CTA per SM in turn; empty when
  // no GPC has room now. free_slots[s]: the CTAs SM s can still take.
  std::vector<std::uint32_t> place(std::uint32_t ctas,
                                   const std::vector<std::uint32_t>& free_slots);

 private:
  const SmConfig& sm_;
  std::vector<std::uint32_t> first_, count_;
  std::uint32_t cursor_ = 0;  // the GPC to try first
};

}  // namespace cnuas::gpu
