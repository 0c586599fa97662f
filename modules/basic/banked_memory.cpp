#include "basic/banked_memory.h"

#include <fmt/format.h>

#include "core/kernel/registry.h"

namespace cnuas {

const Schema& BankedMemory::schema() {
  static const Schema s =
      Schema("cnuas.banked_memory", "Banked memory: the address picks the bank (a pinned lane)")
          .integer("banks", 1, "independent banks; each is one lane", 1, 65536)
          .quantity("bank_bandwidth", Dimension::DataRate, std::nullopt, "bandwidth of one bank",
                    true)
          .quantity("access_latency", Dimension::Time, "0 ns", "fixed time of every access")
          .quantity("interleave", Dimension::Data, "256 B", "consecutive bytes mapped to one bank",
                    true)
          .needs({WorkDim::Bytes, WorkDim::Address});
  return s;
}

BankedMemory::BankedMemory(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, static_cast<std::uint32_t>(params.integer("banks"))),
      cost_(params.quantity("access_latency"),
            Rational(8) * ps_per_second() / params.quantity("bank_bandwidth")),
      banks_(static_cast<std::uint32_t>(params.integer("banks"))) {
  interleave_bytes_ = params.whole_bytes("interleave", this->name());
}

std::uint64_t BankedMemory::service_ps(const Stage& stage) {
  return cost_.ceil_at(stage.dims().get(WorkDim::Bytes));
}

std::optional<std::uint32_t> BankedMemory::pinned_lane(const Stage& stage) const {
  return static_cast<std::uint32_t>((stage.dims().get(WorkDim::Address) / interleave_bytes_) %
                                    banks_);
}

CNUAS_REGISTER_MODEL(BankedMemory);

}  // namespace cnuas
