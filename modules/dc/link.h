// cnuas.link: a serial link (NVLink, Ethernet, PCIe cable): bonded lanes, line encoding,
// propagation delay from length.
//
// Full duplex: one wire per direction (per outgoing connection), or `channels`
// independent wires per direction. A stage holds its direction's wire for its
// serialization (occupancy); the propagation delay follows (latency), while the
// wire already carries the next frame.
#pragma once

#include "core/kernel/element.h"
#include "core/kernel/linear_cost.h"

namespace cnuas {

class Link : public Element {
 public:
  Link(sc_core::sc_module_name name, const ParamSet& params);
  static const Schema& schema();
  std::uint64_t service_ps(const Stage& stage) override { return plan(stage).alone_ps(); }
  StagePlan plan(const Stage& stage) override;
  std::string lane_name(std::uint32_t lane) const override;
  void on_booked(const Stage& stage, const Booking& main) override;
  std::string fault_stats() const override;

  // A span with another bit error rate (a workload's link_errors event).
  struct ErrorSpan {
    std::uint64_t from_ps, to_ps;  // to exclusive
    double ber;
  };
  void set_error_spans(std::vector<ErrorSpan> spans) { error_spans_ = std::move(spans); }
  // Whether packets may be dropped on it at all.
  bool lossy() const { return ber_ > 0 || !error_spans_.empty(); }
  // The bit error rate at `t_ps`.
  double ber_at(std::uint64_t t_ps) const;
  std::uint64_t propagation_ps() const { return propagation_ps_; }
  // A NIC recovering from this link's drops counts them here.
  void count_drops(std::uint64_t drops) { crc_drops_ += drops; }

 private:
  std::uint32_t lanes_after_binding() const override;
  // The direction a stage travels: the outgoing connection it leaves by.
  std::uint32_t direction(const Stage& stage) const;

  LinearCost occupancy_;
  std::uint64_t propagation_ps_;
  std::uint32_t channels_;
  double ber_;
  std::vector<ErrorSpan> error_spans_;
  std::uint64_t crc_drops_ = 0, retransmitted_bytes_ = 0;
};

}  // namespace cnuas
