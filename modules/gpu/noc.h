// The SM-to-L2 crossbar. A request holds the input port of its L2 slice for
// its flits (header, plus data for writes and atomics), a response holds the
// output port of its SM; each direction adds the crossbar latency. Ports are
// lanes of the shared adapter, so contention shows as waiting for a port.
#pragma once

#include <memory>
#include <systemc>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "core/kernel/lanes.h"
#include "gpu/clock.h"
#include "gpu/event_queue.h"
#include "gpu/mem_request.h"
#include "gpu/perf_stats.h"

namespace cnuas::gpu {

class Noc : public sc_core::sc_module, public EventTarget {
 public:
  // One socket per SM's L1 and per L2 slice, tagged with its index. (Simple
  // sockets resolve at bind time, so the model runs without sc_start.)
  std::vector<std::unique_ptr<tlm_utils::simple_target_socket_tagged<Noc>>> from_sm;
  std::vector<std::unique_ptr<tlm_utils::simple_initiator_socket_tagged<Noc>>> to_l2;

  Noc(sc_core::sc_module_name name, const ArchConfig& arch, EventQueue& events,
      PerfRecorder& stats);
  void on_event(std::uint32_t kind, void* data, std::uint64_t now_ps) override;

 private:
  enum Event : std::uint32_t { kDeliver, kReturn };
  tlm::tlm_sync_enum nb_transport_fw(int sm, tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(int slice, tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  std::uint64_t cross(LaneSet& ports, std::uint32_t port, std::uint64_t bytes, std::uint64_t now);

  const NocConfig& cfg_;
  Clock clock_;
  EventQueue& events_;
  PerfRecorder& stats_;
  LaneSet to_slice_;  // input port of each slice
  LaneSet to_sm_;     // output port toward each SM
};

}  // namespace cnuas::gpu
