// cnuas.pcie_root: a PCIe root complex (or switch port) moving DMA traffic.
//
// The payload rate comes from generation and width after line encoding; TLP
// headers are added per max-payload chunk and DLLP traffic takes a share of
// the link. Reads additionally wait for read-request round trips, limited by
// the outstanding-request window. Lanes are DMA engines, one group per
// direction: traffic arriving from the `upstream` element (the host side) goes
// downstream, everything else upstream.
#pragma once

#include <string>

#include "core/kernel/element.h"

namespace cnuas {

class PcieRoot : public Element {
 public:
  PcieRoot(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override;
  LaneRange lane_range(const Stage& stage) const override;
  bool downstream(const Stage& stage) const;

 private:
  Rational ps_per_wire_byte_;
  std::uint64_t max_payload_;
  std::uint64_t tlp_overhead_;
  std::uint64_t max_read_request_;
  std::uint64_t outstanding_;
  Rational read_round_trip_ps_;
  Rational latency_ps_;
  std::uint32_t engines_;
  std::string upstream_;  // full hierarchical name of the host-side neighbour
};

}  // namespace cnuas
