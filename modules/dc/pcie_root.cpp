#include "dc/pcie_root.h"

#include <fmt/format.h>

#include "core/kernel/registry.h"

namespace cnuas {
namespace {

struct Generation {
  const char* name;
  std::uint64_t megatransfers;  // per lane per second, in millions
  Rational efficiency;          // payload bits per line bit
};

// PCI-SIG base specifications: transfer rate per lane and line code (Gen6's
// FLIT mode carries 242 payload bytes per 256-byte flit).
const Generation kGenerations[] = {
    {"1", 2'500, Rational(8, 10)},     {"2", 5'000, Rational(8, 10)},
    {"3", 8'000, Rational(128, 130)},  {"4", 16'000, Rational(128, 130)},
    {"5", 32'000, Rational(128, 130)}, {"6", 64'000, Rational(242, 256)}};

// Payload bits per second of one lane.
Rational lane_rate(const std::string& generation) {
  for (const auto& g : kGenerations)
    if (generation == g.name) return Rational(g.megatransfers) * Rational(1'000'000) * g.efficiency;
  return Rational(0);
}

// A size that must be a whole, non-zero number of bytes (a TLP payload, a request).
std::uint64_t nonzero_bytes(const ParamSet& params, const char* field, const std::string& owner) {
  const std::uint64_t bytes = params.whole_bytes(field, owner);
  if (bytes == 0)
    throw InputError(params.get(field).where,
                     fmt::format("{}: {} must be above 0 B", owner, field));
  return bytes;
}

}  // namespace

const Schema& PcieRoot::schema() {
  static const Schema s =
      Schema("cnuas.pcie_root",
             "PCIe root complex: DMA at generation x width after encoding, TLP/DLLP overheads, "
             "read round trips")
          .choice("generation", {"1", "2", "3", "4", "5", "6"}, std::nullopt, "PCIe generation")
          .integer("width", 16, "lanes of the link (x1 ... x32)", 1, 32)
          .quantity("max_payload", Dimension::Data, "256 B", "maximum TLP payload (MPS)")
          .quantity("tlp_overhead", Dimension::Data, "24 B",
                    "bytes per TLP besides payload: framing, sequence number, header, LCRC")
          .quantity("dllp_share", Dimension::Count, "0 %",
                    "share of link time taken by DLLPs (ACK, flow control)")
          .quantity("max_read_request", Dimension::Data, "512 B",
                    "maximum read request size (MRRS)")
          .integer("outstanding_reads", 64, "read requests in flight at once (tags)", 1, 65536)
          .quantity("read_round_trip", Dimension::Time, "1 us", "read request to first completion")
          .quantity("latency", Dimension::Time, "0 ns", "fixed time added to every DMA")
          .integer("dma_engines", 1, "DMA transfers in flight per direction (lanes per direction)",
                   1, 256)
          .text("upstream", "",
                "the host-side neighbour; traffic from it flows downstream (empty: all downstream)")
          .needs({WorkDim::Bytes});
  return s;
}

PcieRoot::PcieRoot(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, 2 * static_cast<std::uint32_t>(params.integer("dma_engines"))),
      max_payload_(nonzero_bytes(params, "max_payload", this->name())),
      tlp_overhead_(params.whole_bytes("tlp_overhead", this->name())),
      max_read_request_(nonzero_bytes(params, "max_read_request", this->name())),
      outstanding_(params.integer("outstanding_reads")),
      read_round_trip_ps_(params.quantity("read_round_trip")),
      latency_ps_(params.quantity("latency")),
      engines_(static_cast<std::uint32_t>(params.integer("dma_engines"))) {
  const Rational dllp = params.quantity("dllp_share");
  if (!(dllp < Rational(1)))
    throw InputError(params.get("dllp_share").where, describe("dllp_share must be below 100 %"));
  const Rational rate = lane_rate(params.text("generation")) * Rational(params.integer("width")) *
                        (Rational(1) - dllp);
  ps_per_wire_byte_ = Rational(8) * ps_per_second() / rate;
  if (!params.text("upstream").empty()) {
    std::string full = this->name();
    upstream_ = full.substr(0, full.rfind('.') + 1) + params.text("upstream");
  }
}

bool PcieRoot::downstream(const Stage& stage) const {
  if (upstream_.empty()) return true;
  if (const Element* from = stage.previous()) return upstream_ == from->name();
  const Element* to = stage.next();
  return to == nullptr || upstream_ != to->name();
}

Element::LaneRange PcieRoot::lane_range(const Stage& stage) const {
  return {downstream(stage) ? 0 : engines_, engines_};
}

std::uint64_t PcieRoot::service_ps(const Stage& stage) {
  const std::uint64_t bytes = stage.dims().get(WorkDim::Bytes);
  const std::uint64_t tlps = bytes == 0 ? 1 : (bytes + max_payload_ - 1) / max_payload_;
  Rational t = latency_ps_ + Rational(bytes + tlps * tlp_overhead_) * ps_per_wire_byte_;
  if (stage.op.spec->read) {
    // max(round trip + wire time, windows x round trip): completions stream
    // once the first returns, unless the tag window throttles them to
    // outstanding x MRRS per round trip.
    const std::uint64_t requests =
        bytes == 0 ? 1 : (bytes + max_read_request_ - 1) / max_read_request_;
    const std::uint64_t windows = (requests + outstanding_ - 1) / outstanding_;
    const Rational streamed = t - latency_ps_ + read_round_trip_ps_;
    const Rational throttled = Rational(windows) * read_round_trip_ps_;
    t = latency_ps_ + (streamed < throttled ? throttled : streamed);
  }
  return t.ceil_u64();
}

CNUAS_REGISTER_MODEL(PcieRoot);

}  // namespace cnuas
