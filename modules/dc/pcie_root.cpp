#include "dc/pcie_root.h"

#include <algorithm>

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
             "PCIe root complex or switch: DMA engines feeding one full-duplex link per port at "
             "generation x width after encoding, TLP/DLLP overheads, read round trips")
          .timing(
              "Each port (outgoing connection) is a full-duplex link: a transfer leaving by it "
              "takes the port's DMA engine that frees first; after `latency` (and for a read the "
              "read_round_trip) its data reaches the link, which it holds for (bytes + TLPs x "
              "tlp_overhead) at the link's payload rate (occupancy). The engine stays busy until "
              "the data has left the link, and for a read at least latency + (requests / "
              "outstanding_reads) x read_round_trip (the tag window). Copies in one direction "
              "share the link; opposite directions use different links.")
          .choice("generation", {"1", "2", "3", "4", "5", "6"}, std::nullopt, "PCIe generation")
          .integer("width", 16, "lanes of each link (x1 ... x32)", 1, 32)
          .quantity("max_payload", Dimension::Data, "256 B", "maximum TLP payload (MPS)")
          .quantity("tlp_overhead", Dimension::Data, "24 B",
                    "bytes per TLP besides payload: framing, sequence number, header, LCRC")
          .quantity("dllp_share", Dimension::Count, "0 %",
                    "share of link time taken by DLLPs (ACK, flow control)")
          .quantity("max_read_request", Dimension::Data, "512 B",
                    "maximum read request size (MRRS)")
          .integer("outstanding_reads", 64, "read requests in flight at once per engine (tags)", 1,
                   65536)
          .quantity("read_round_trip", Dimension::Time, "1 us",
                    "read request to first completion (holds the engine before the link)")
          .quantity("latency", Dimension::Time, "0 ns",
                    "fixed time of every DMA before its data reaches the link (holds the engine)")
          .integer("dma_engines", 1, "DMA transfers in flight per port (engines feeding its link)",
                   1, 65535)
          .text("upstream", "",
                "the host-side neighbour: a transfer ending at this element leaves towards it "
                "unless it came from it (empty: by the first port)")
          .needs({WorkDim::Bytes});
  return s;
}

PcieRoot::PcieRoot(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, static_cast<std::uint32_t>(params.integer("dma_engines")) + 1),
      max_payload_(nonzero_bytes(params, "max_payload", this->name())),
      tlp_overhead_(params.whole_bytes("tlp_overhead", this->name())),
      max_read_request_(nonzero_bytes(params, "max_read_request", this->name())),
      outstanding_(params.integer("outstanding_reads")),
      read_round_trip_ps_(params.time_ps("read_round_trip")),
      latency_ps_(params.time_ps("latency")),
      engines_(static_cast<std::uint32_t>(params.integer("dma_engines"))) {
  const Rational dllp = params.quantity("dllp_share");
  if (!(dllp < Rational(1)))
    throw InputError(params.get("dllp_share").where, describe("dllp_share must be below 100 %"));
  const Rational rate = lane_rate(params.text("generation")) * Rational(params.integer("width")) *
                        (Rational(1) - dllp);
  wire_ = LinearCost(Rational(0), Rational(8) * ps_per_second() / rate);
  if (!params.text("upstream").empty()) {
    std::string full = this->name();
    upstream_ = full.substr(0, full.rfind('.') + 1) + params.text("upstream");
  }
}

std::uint32_t PcieRoot::lanes_after_binding() const {
  return std::max<std::uint32_t>(1, static_cast<std::uint32_t>(targets().size())) * (engines_ + 1);
}

// `upstream` names a neighbour by its local name; a name that matches none
// would silently send host-bound transfers out of the first port.
void PcieRoot::check_bindings() {
  // Without known neighbours (sockets bound by hand, no platform) there is nothing to check.
  const bool known = std::any_of(targets().begin(), targets().end(),
                                 [](const Element* t) { return t != nullptr; });
  if (upstream_.empty() || !known) return;
  std::vector<std::string> neighbours, copies;
  const std::string& written = params().text("upstream");
  // Names relative to this element's own group, as `upstream` is written.
  const std::string prefix = upstream_.substr(0, upstream_.size() - written.size());
  for (const Element* t : targets()) {
    if (t == nullptr) continue;
    const std::string name = t->name();
    if (name == upstream_) return;
    const std::string local = name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
    neighbours.push_back(local);
    if (local.rfind(written + "[", 0) == 0) copies.push_back(local);
  }
  const SourceLocation& where = params().get("upstream").where;
  if (!copies.empty())
    throw InputError(
        where, describe(fmt::format("upstream '{}' is ambiguous: the count: block made {} (name "
                                    "one, e.g. upstream: {})",
                                    written, join_names(copies), copies.front())));
  const std::string hint = nearest_name(written, neighbours);
  throw InputError(
      where, describe(fmt::format("upstream '{}' is no element it is connected to{}; its "
                                  "neighbours: {}",
                                  written, hint.empty() ? "" : " (did you mean '" + hint + "'?)",
                                  neighbours.empty() ? "none" : join_names(neighbours))));
}

std::uint32_t PcieRoot::egress_port(const Stage& stage) const {
  if (stage.next() != nullptr) return stage.out_port();
  std::optional<std::uint32_t> up;
  for (std::uint32_t p = 0; p < targets().size(); ++p)
    if (targets()[p] != nullptr && upstream_ == targets()[p]->name()) up = p;
  const Element* from = stage.previous();
  if (up && (from == nullptr || upstream_ != from->name())) return *up;
  // From the host side (or no host side known): the first port that does not lead back.
  for (std::uint32_t p = 0; p < targets().size(); ++p)
    if (p != up && (from == nullptr || targets()[p] != from)) return p;
  return 0;
}

StagePlan PcieRoot::plan(const Stage& stage) {
  const std::uint64_t bytes = stage.dims().get(WorkDim::Bytes);
  const std::uint64_t tlps = bytes == 0 ? 1 : (bytes + max_payload_ - 1) / max_payload_;
  const std::uint32_t first = egress_port(stage) * (engines_ + 1);
  std::uint64_t wire_bytes;
  if (__builtin_mul_overflow(tlps, tlp_overhead_, &wire_bytes) ||
      __builtin_add_overflow(wire_bytes, bytes, &wire_bytes))
    throw OverflowError();
  StagePlan p =
      StagePlan::simple(wire_.ceil_at(wire_bytes), 0, LaneChoice::among(first + engines_, 1));
  p.feed = Feed::Engine;
  p.feed_lanes = LaneChoice::among(first, engines_);
  p.lead_ps = latency_ps_;
  if (stage.op.spec->read) {
    // Completions stream once the first returns, unless the tag window throttles
    // them to outstanding x MRRS per round trip: the engine is held for that.
    const std::uint64_t requests =
        bytes == 0 ? 1 : (bytes + max_read_request_ - 1) / max_read_request_;
    const std::uint64_t windows = (requests + outstanding_ - 1) / outstanding_;
    p.lead_ps += read_round_trip_ps_;
    p.feed_occupancy_ps =
        (Rational(latency_ps_) + Rational(windows) * Rational(read_round_trip_ps_)).ceil_u64();
  }
  return p;
}

std::string PcieRoot::lane_name(std::uint32_t lane) const {
  const std::uint32_t port = lane / (engines_ + 1), k = lane % (engines_ + 1);
  const std::string to = port < targets().size() && targets()[port] != nullptr
                             ? std::string("to ") + targets()[port]->basename()
                             : "port " + std::to_string(port);
  return k == engines_ ? "link " + to : fmt::format("DMA engine {} {}", k, to);
}

CNUAS_REGISTER_MODEL(PcieRoot);

}  // namespace cnuas
