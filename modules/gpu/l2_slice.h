// One L2 slice: its own sectored tags (write-back, write-allocate), MSHRs and
// port bandwidth, in front of one DRAM channel. Reads and atomics answer after
// the hit latency, or when their sectors come back from DRAM.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>

#include "core/kernel/lanes.h"
#include "gpu/address_map.h"
#include "gpu/clock.h"
#include "gpu/event_queue.h"
#include "gpu/l2_policy.h"
#include "gpu/mshr_table.h"
#include "gpu/perf_stats.h"
#include "gpu/tag_array.h"

namespace cnuas::gpu {

class L2Slice : public sc_core::sc_module, public EventTarget {
 public:
  tlm_utils::simple_target_socket<L2Slice> from_noc;
  tlm_utils::simple_initiator_socket<L2Slice> to_dram;

  L2Slice(sc_core::sc_module_name name, std::uint32_t index, const ArchConfig& arch,
          const AddressMap& map, EventQueue& events, RequestPool& pool, PerfRecorder& stats);
  void on_event(std::uint32_t kind, void* data, std::uint64_t now_ps) override;
  // The access policy of the kernel about to run (kept by the caller); its
  // set-aside decides how many ways of each set persisting lines may hold.
  void set_policy(const L2AccessPolicy& policy);
  void reset_persisting() { tags_.reset_persisting(); }

 private:
  enum Event : std::uint32_t { kRespond, kToDram, kRetry };
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void access(MemRequest& r, std::uint64_t now);
  void to_dram_at(std::uint64_t at, std::uint64_t line, std::uint32_t sectors, Access a);
  void write_back(const TagArray::Eviction& e, std::uint64_t at);
  Retention retention(std::uint64_t line) const {
    return policy_ ? policy_->retention(line, cfg_.line_bytes) : Retention::Normal;
  }

  std::uint32_t index_;
  const L2Config& cfg_;
  const AddressMap& map_;
  Clock clock_;
  EventQueue& events_;
  RequestPool& pool_;
  PerfRecorder& stats_;
  TagArray tags_;
  MshrTable mshrs_;
  LaneSet port_;
  std::uint64_t latency_ps_;
  std::vector<MemRequest*> done_;
  const L2AccessPolicy* policy_ = nullptr;
};

}  // namespace cnuas::gpu
