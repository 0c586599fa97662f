#include "dc/switch.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/kernel/registry.h"

namespace cnuas {

const Schema& Switch::schema() {
  static const Schema s =
      Schema("cnuas.switch",
             "Packet switch: an output queue per port; latency + bytes / port_rate (+ one frame if "
             "store-and-forward)")
          .integer("ports", std::nullopt, "number of ports; each output port is one lane", 1, 65536)
          .quantity("port_rate", Dimension::DataRate, std::nullopt, "line rate of one port", true)
          .quantity("latency", Dimension::Time, "0 ns", "port-to-port latency")
          .choice("forwarding", {"cut_through", "store_and_forward"}, "cut_through",
                  "cut-through starts sending before a frame is complete; store-and-forward "
                  "receives it first")
          .quantity("frame", Dimension::Data, "4 KiB",
                    "frame size: the unit of store-and-forward and of buffering", true)
          .quantity("buffer", Dimension::Data, "0 B",
                    "buffer per output port (0: unlimited); full means back-pressure")
          .needs({WorkDim::Bytes});
  return s;
}

Switch::Switch(sc_core::sc_module_name name, const ParamSet& params)
    : Element(name, params, static_cast<std::uint32_t>(params.integer("ports"))),
      ps_per_byte_(Rational(8) * ps_per_second() / params.quantity("port_rate")),
      latency_ps_(params.quantity("latency")),
      store_and_forward_(params.text("forwarding") == "store_and_forward"),
      frame_bytes_(params.whole_bytes("frame", this->name())),
      buffer_bytes_(params.whole_bytes("buffer", this->name())),
      buffered_(params.integer("ports")) {
  if (buffer_bytes_ != 0 && buffer_bytes_ < frame_bytes_)
    throw InputError(params.get("buffer").where,
                     describe(fmt::format("a buffer of {} B cannot hold one {} B frame",
                                          buffer_bytes_, frame_bytes_)));
}

void Switch::end_of_elaboration() {
  if (out.size() > lanes().size())
    throw InputError(describe(
        fmt::format("{} outgoing connections but only {} ports", out.size(), lanes().size())));
}

std::optional<std::uint32_t> Switch::pinned_lane(const Stage& stage) const {
  if (stage.next() == nullptr) return std::nullopt;  // the operation ends here
  return stage.out_port();
}

std::uint64_t Switch::service_ps(const Stage& stage) {
  const std::uint64_t bytes = stage.dims().get(WorkDim::Bytes);
  Rational t = latency_ps_ + Rational(bytes) * ps_per_byte_;
  if (store_and_forward_) t = t + Rational(std::min(bytes, frame_bytes_)) * ps_per_byte_;
  return t.ceil_u64();
}

std::uint64_t Switch::admission_ps(const Stage& stage, std::uint32_t lane, std::uint64_t ready_ps,
                                   std::uint64_t service) {
  if (buffer_bytes_ == 0) return ready_ps;
  auto& queue = buffered_[lane];
  while (!queue.empty() && queue.front().first <= ready_ps) queue.pop_front();
  const std::uint64_t frame = std::min(stage.dims().get(WorkDim::Bytes), frame_bytes_);
  std::uint64_t occupied = 0;
  for (const auto& [leaves, bytes] : queue) occupied += bytes;
  std::uint64_t admitted = ready_ps;
  // Wait for the oldest frames to leave until this one fits.
  for (auto it = queue.begin(); occupied + frame > buffer_bytes_ && it != queue.end(); ++it) {
    occupied -= it->second;
    admitted = it->first;
  }
  // FIFO port: it leaves when its transmission ends, after everything queued before it.
  const std::uint64_t free_at = lanes().free_at(lane);
  queue.emplace_back(std::max(admitted, free_at) + service, frame);
  return admitted;
}

CNUAS_REGISTER_MODEL(Switch);

}  // namespace cnuas
