// cnuas.pcie_root: a PCIe root complex or switch moving DMA traffic.
//
// Every port is a full-duplex x`width` link; a transfer leaves through the
// link of the port leading to its next hop (one wire per direction of each
// link), fed by that port's DMA engines. The payload rate comes from
// generation and width after line encoding; TLP headers are added per
// max-payload chunk and DLLP traffic takes a share of the link. A transfer
// takes the engine that frees first; after the fixed latency (and, for a read,
// the read-request round trip) its data reaches the link, which it holds for
// the wire time (occupancy); the engine stays busy until the data has left,
// and for a read at least as long as the tag window allows. Two copies in one
// direction share the link; opposite directions do not.
#pragma once

#include <string>

#include "core/kernel/element.h"
#include "core/kernel/linear_cost.h"

namespace cnuas {

class PcieRoot : public Element {
 public:
  PcieRoot(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override { return plan(stage).alone_ps(); }
  StagePlan plan(const Stage& stage) override;
  std::string lane_name(std::uint32_t lane) const override;
  // The port a stage leaves by: towards its next hop; ending here, towards the
  // host side (upstream) unless it came from there.
  std::uint32_t egress_port(const Stage& stage) const;

 private:
  std::uint32_t lanes_after_binding() const override;
  void check_bindings() override;

  LinearCost wire_;  // wire bytes -> ps on a link
  std::uint64_t max_payload_;
  std::uint64_t tlp_overhead_;
  std::uint64_t max_read_request_;
  std::uint64_t outstanding_;
  std::uint64_t read_round_trip_ps_;
  std::uint64_t latency_ps_;
  std::uint32_t engines_;
  std::string upstream_;  // full hierarchical name of the host-side neighbour
};

}  // namespace cnuas
