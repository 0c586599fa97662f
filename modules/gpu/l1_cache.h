// The L1 data cache of one SM: sectored tags with LRU, MSHRs that merge misses
// to a line in flight, write-through stores (allocating or not, per profile),
// and atomics performed at L2. The SM sends one transaction per cache line a
// warp instruction touches; a hit completes at once with the hit latency
// annotated, a miss completes later on the backward path.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>

#include "gpu/address_map.h"
#include "gpu/cache_hint.h"
#include "gpu/clock.h"
#include "gpu/event_queue.h"
#include "gpu/mshr_table.h"
#include "gpu/perf_stats.h"
#include "gpu/tag_array.h"

namespace cnuas::gpu {

class L1Cache : public sc_core::sc_module, public EventTarget {
 public:
  tlm_utils::simple_target_socket<L1Cache> from_sm;
  tlm_utils::simple_initiator_socket<L1Cache> to_noc;

  L1Cache(sc_core::sc_module_name name, std::uint32_t sm, const ArchConfig& arch,
          const AddressMap& map, EventQueue& events, RequestPool& pool, PerfRecorder& stats);
  void on_event(std::uint32_t kind, void* data, std::uint64_t now_ps) override;

 private:
  enum Event : std::uint32_t { kSend, kRespond, kRetry };
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  // A read at time t: true when it hit (answered at t + hit latency).
  bool read(MemRequest& r, std::uint64_t t);
  void send(MemRequest& upstream, std::uint32_t sectors, Access a, std::uint64_t at);
  void respond(MemRequest& r);
  static Retention l1_retention(CacheHint h) {
    return h.has(CacheHint::kL1Streaming) ? Retention::Streaming : Retention::Normal;
  }

  std::uint32_t sm_;
  const L1Config& cfg_;
  const AddressMap& map_;
  EventQueue& events_;
  RequestPool& pool_;
  PerfRecorder& stats_;
  TagArray tags_;
  MshrTable mshrs_;
  std::uint64_t hit_ps_;
  std::vector<MemRequest*> done_;
};

}  // namespace cnuas::gpu
