#include "gpu/cluster_placement.h"

#include <algorithm>

namespace cnuas::gpu {

ClusterPlacement::ClusterPlacement(const SmConfig& sm) : sm_(sm) {
  const std::uint32_t gpcs = std::max(1u, std::min(sm.gpcs, sm.count));
  // TPC pairs when the count is even (an odd count: single SMs).
  const std::uint32_t unit = sm.count % 2 == 0 && sm.count / 2 >= gpcs ? 2 : 1;
  const std::uint32_t units = sm.count / unit;
  std::uint32_t next = 0;
  for (std::uint32_t g = 0; g < gpcs; ++g) {
    const std::uint32_t n = (units / gpcs + (g < units % gpcs ? 1 : 0)) * unit;
    first_.push_back(next);
    count_.push_back(n);
    next += n;
  }
}

std::uint32_t ClusterPlacement::gpc_of(std::uint32_t sm) const {
  std::uint32_t g = 0;
  while (g + 1 < first_.size() && sm >= first_[g + 1]) ++g;
  return g;
}

std::string ClusterPlacement::refusal(std::uint32_t ctas, bool non_portable,
                                      std::uint32_t ctas_per_sm) const {
  const std::uint32_t limit = non_portable ? sm_.max_cluster_non_portable : sm_.max_cluster;
  if (ctas > limit) {
    std::string why =
        "a cluster of " + std::to_string(ctas) + " CTAs (at most " + std::to_string(limit);
    if (!non_portable && sm_.max_cluster_non_portable > limit)
      why += ", " + std::to_string(sm_.max_cluster_non_portable) +
             " for a kernel that allows non-portable cluster sizes";
    return why + ")";
  }
  const std::uint64_t largest =
      std::uint64_t{*std::max_element(count_.begin(), count_.end())} * ctas_per_sm;
  if (ctas > largest)
    return "a cluster of " + std::to_string(ctas) + " CTAs: the largest GPC holds " +
           std::to_string(largest) + " of these CTAs";
  return {};
}

std::vector<std::uint32_t> ClusterPlacement::place(std::uint32_t ctas,
                                                   const std::vector<std::uint32_t>& free_slots) {
  for (std::uint32_t tried = 0; tried < gpcs(); ++tried) {
    const std::uint32_t g = (cursor_ + tried) % gpcs();
    std::uint64_t room = 0;
    for (std::uint32_t s = first_[g]; s < first_[g] + count_[g]; ++s) room += free_slots[s];
    if (room < ctas) continue;
    std::vector<std::uint32_t> left(free_slots.begin() + first_[g],
                                    free_slots.begin() + first_[g] + count_[g]);
    std::vector<std::uint32_t> sms;
    while (sms.size() < ctas)
      for (std::uint32_t k = 0; k < count_[g] && sms.size() < ctas; ++k)
        if (left[k]) --left[k], sms.push_back(first_[g] + k);
    cursor_ = (g + 1) % gpcs();
    return sms;
  }
  return {};
}

}  // namespace cnuas::gpu
