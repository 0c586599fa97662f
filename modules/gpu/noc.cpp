#include "gpu/noc.h"

#include <string>

namespace cnuas::gpu {

Noc::Noc(sc_core::sc_module_name name, const ArchConfig& arch, EventQueue& events,
         PerfRecorder& stats)
    : sc_core::sc_module(name),
      cfg_(arch.noc),
      clock_(arch.noc.clock_hz),
      events_(events),
      stats_(stats),
      to_slice_(arch.l2.slices),
      to_sm_(arch.sm.count) {
  for (std::uint32_t i = 0; i < arch.sm.count; ++i) {
    from_sm.push_back(std::make_unique<tlm_utils::simple_target_socket_tagged<Noc>>(
        ("from_sm" + std::to_string(i)).c_str()));
    from_sm.back()->register_nb_transport_fw(this, &Noc::nb_transport_fw, static_cast<int>(i));
  }
  for (std::uint32_t i = 0; i < arch.l2.slices; ++i) {
    to_l2.push_back(std::make_unique<tlm_utils::simple_initiator_socket_tagged<Noc>>(
        ("to_l2_" + std::to_string(i)).c_str()));
    to_l2.back()->register_nb_transport_bw(this, &Noc::nb_transport_bw, static_cast<int>(i));
  }
}

// Books `bytes` on a port; returns when the last flit arrives at the far end.
std::uint64_t Noc::cross(LaneSet& ports, std::uint32_t port, std::uint64_t bytes,
                         std::uint64_t now) {
  const std::uint64_t flits = (bytes + cfg_.flit_bytes - 1) / cfg_.flit_bytes;
  const Booking b = ports.book_pinned(port, now, clock_.span_ps(flits));
  stats_.total().noc_flits += flits;
  stats_.total().noc_busy_ps += b.end_ps - b.start_ps;
  Counters& w = stats_.at_ps(b.start_ps);
  w.noc_flits += flits;
  w.noc_busy_ps += b.end_ps - b.start_ps;
  return b.end_ps + clock_.span_ps(cfg_.latency);
}

tlm::tlm_sync_enum Noc::nb_transport_fw(int, tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                        sc_core::sc_time& delay) {
  MemRequest& r = MemRequest::of(p);
  const std::uint64_t now = events_.now() + delay.value();
  const std::uint64_t data = r.access == Access::Read ? 0 : r.bytes;
  events_.schedule(cross(to_slice_, r.slice, cfg_.request_header_bytes + data, now), this, kDeliver,
                   &r);
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

tlm::tlm_sync_enum Noc::nb_transport_bw(int, tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                        sc_core::sc_time&) {
  MemRequest& r = MemRequest::of(p);
  events_.schedule(cross(to_sm_, r.sm, r.bytes, events_.now()), this, kReturn, &r);
  phase = tlm::END_RESP;
  return tlm::TLM_COMPLETED;
}

void Noc::on_event(std::uint32_t kind, void* data, std::uint64_t) {
  MemRequest& r = *static_cast<MemRequest*>(data);
  tlm::tlm_phase phase = kind == kDeliver ? tlm::BEGIN_REQ : tlm::BEGIN_RESP;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  if (kind == kDeliver)
    (*to_l2[r.slice])->nb_transport_fw(r.payload, phase, delay);
  else
    (*from_sm[r.sm])->nb_transport_bw(r.payload, phase, delay);
}

}  // namespace cnuas::gpu
