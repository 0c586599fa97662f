// One L2 slice: its own sectored tags (write-back, write-allocate), MSHRs and
// port bandwidth, in front of one DRAM channel. Reads and atomics answer after
// the hit latency, or when their sectors come back from DRAM.
//
// With two partitions a slice also keeps, for the SMs of its partition, copies
// of the lines homed at its mirror slice in the other partition (in the same
// tags, so copies and homed lines share the capacity). A read that finds the
// copy answers after the hit latency; otherwise the missing sectors are fetched
// from the home slice over the partition crossbar (its latency each way, its
// bandwidth per slice pair and direction) and kept. Writes and atomics drop the
// copy's sectors and go on to the home slice, an atomic's answer coming back
// the same way.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <systemc>

#include "core/kernel/lanes.h"
#include "gpu/address_map.h"
#include "gpu/cache_hint.h"
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
  // The slice of the other partition whose lines this one copies (and which copies its lines).
  void set_mirror(L2Slice* mirror) { mirror_ = mirror; }

 private:
  enum Event : std::uint32_t { kRespond, kToDram, kRetry, kToHome, kFromHome };
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void access(MemRequest& r, std::uint64_t now);
  // An access at the SM's near slice to a line homed at the mirror.
  void access_copy(MemRequest& r, std::uint64_t now);
  // A read's fetched sectors, an atomic's answer, back from the home slice.
  void from_home(MemRequest& r, std::uint64_t now);
  // Sends `r` across the partition crossbar (`bytes` on this slice's link) to arrive at `kind`.
  void cross(MemRequest& r, std::uint64_t bytes, std::uint64_t at, Event kind);
  // Answers `r` (toward its SM, or back across the crossbar when it came from the mirror).
  void respond(MemRequest& r, std::uint64_t now);
  // Books the data port for r's bytes from `now`; returns when r's turn starts.
  std::uint64_t book_port(const MemRequest& r, std::uint64_t now);
  void count(std::uint64_t at, std::uint32_t hits, std::uint32_t misses);
  void to_dram_at(std::uint64_t at, std::uint64_t line, std::uint32_t sectors, Access a,
                  std::uint8_t hint);
  void write_back(const TagArray::Eviction& e, std::uint64_t at);
  // The sectors a read miss of `sectors` fetches along: their aligned groups of the fetch
  // granularity (0 without one).
  std::uint32_t fetch_groups(std::uint32_t sectors) const;
  // An access policy window decides for the lines it covers; the instruction's hint elsewhere.
  Retention retention(const MemRequest& r) const {
    if (policy_ && policy_->covers(r.line)) return policy_->retention(r.line, cfg_.line_bytes);
    return CacheHint{r.hint}.l2_retention();
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
  LaneSet link_;  // this slice's side of the partition crossbar, toward its mirror
  std::uint64_t latency_ps_, far_ps_;
  std::uint32_t header_bytes_;
  std::uint32_t group_sectors_;  // sectors per fetch group; 1: the sector alone
  std::vector<MemRequest*> done_;
  const L2AccessPolicy* policy_ = nullptr;
  L2Slice* mirror_ = nullptr;
};

}  // namespace cnuas::gpu
