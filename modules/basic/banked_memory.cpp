#include "basic/banked_memory.h"

#include <fmt/format.h>

#include "core/kernel/registry.h"

namespace cnuas {

const Schema& BankedMemory::schema() {
  static const Schema s =
      Schema("cnuas.banked_memory", "Banked memory: the address picks the bank (a pinned lane)")
          .timing(
              "An access is pinned to the bank its address selects and holds it for bytes / "
              "bank_bandwidth (occupancy); `access_latency` follows, during which the bank "
              "serves the next access.")
          .integer("banks", 1, "independent banks; each is one lane", 1, 65536)
          .quantity("bank_bandwidth", Dimension::DataRate, std::nullopt,
                    "bandwidth of one bank (occupancy: bytes / bank_bandwidth)", true)
          .quantity("access_latency", Dimension::Time, "0 ns",
                    "time until an access completes after its data has moved (latency: the bank "
                    "is free meanwhile)")
          .quantity("interleave", Dimension::Data, "256 B", "consecutive bytes mapped to one bank",
                    true)
          .needs({WorkDim::Bytes, WorkDim::Address});
  return s;
}

BankedMemory::BankedMemory(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, static_cast<std::uint32_t>(params.integer("banks"))),
      occupancy_(Rational(0), Rational(8) * ps_per_second() / params.quantity("bank_bandwidth")),
      latency_ps_(params.time_ps("access_latency")),
      banks_(static_cast<std::uint32_t>(params.integer("banks"))) {
  interleave_bytes_ = params.whole_bytes("interleave", this->name());
}

StagePlan BankedMemory::plan(const Stage& stage) {
  return StagePlan::simple(occupancy_.ceil_at(stage.dims().get(WorkDim::Bytes)), latency_ps_,
                           LaneChoice::pin(*pinned_lane(stage)));
}

std::optional<std::uint32_t> BankedMemory::pinned_lane(const Stage& stage) const {
  return static_cast<std::uint32_t>((stage.dims().get(WorkDim::Address) / interleave_bytes_) %
                                    banks_);
}

CNUAS_REGISTER_MODEL(BankedMemory);

}  // namespace cnuas
