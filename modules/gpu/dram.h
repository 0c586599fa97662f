// DRAM: a channel (memory controller + data bus) and its banks, each bank an
// sc_module with a row buffer. The controller queues requests per bank and
// serves them first-ready first-come-first-served: the oldest request to the
// open row goes first, else the oldest request. Timing: tRCD, tRP, tCL, tRAS,
// tWR, one burst per `burst` bytes on the channel's data bus, and all-bank
// refresh of tRFC every tREFI (rows close).
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>

#include "core/kernel/lanes.h"
#include "gpu/address_map.h"
#include "gpu/event_queue.h"
#include "gpu/mem_request.h"
#include "gpu/perf_stats.h"

namespace cnuas::gpu {

class DramBank : public sc_core::sc_module {
 public:
  DramBank(sc_core::sc_module_name name, std::uint32_t global_index);

  struct Pending {
    MemRequest* request;
    std::uint64_t row;
    std::uint64_t arrived_ps;
  };
  std::uint32_t index;  // across all channels, for statistics
  std::deque<Pending> queue;
  bool open = false;
  std::uint64_t open_row = 0;
  std::uint64_t activated_ps = 0;     // when the open row was activated
  std::uint64_t precharge_ok_ps = 0;  // tRAS and write recovery satisfied
  std::uint64_t refresh_epoch = 0;    // refresh intervals seen
  bool pick_scheduled = false;
  std::uint64_t busy_since_ps = 0;  // start of the current span with requests pending
  std::uint64_t idle_from_ps = 0;   // end of the last such span
};

class DramChannel : public sc_core::sc_module, public EventTarget {
 public:
  // Requests arrive from the L2 slices in front of this channel, one socket each.
  std::vector<std::unique_ptr<tlm_utils::simple_target_socket_tagged<DramChannel>>> from_l2;

  DramChannel(sc_core::sc_module_name name, std::uint32_t index, std::uint32_t slices,
              const ArchConfig& arch, const AddressMap& map, EventQueue& events,
              PerfRecorder& stats);

  void on_event(std::uint32_t kind, void* data, std::uint64_t now_ps) override;

 private:
  enum Event : std::uint32_t { kPick, kRespond };
  tlm::tlm_sync_enum nb_transport_fw(int from, tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void pick(DramBank& bank, std::uint64_t now);
  std::uint64_t refresh_adjust(DramBank& bank, std::uint64_t t);

  std::uint32_t index_;
  const DramConfig& cfg_;
  const AddressMap& map_;
  EventQueue& events_;
  PerfRecorder& stats_;
  std::uint64_t burst_ps_;
  std::vector<std::unique_ptr<DramBank>> banks_;
  LaneSet bank_lanes_;               // the shared adapter, one lane per bank, pinned by address
  LaneSet bus_;                      // the channel's data bus
  std::uint32_t first_slice_;        // slices first_slice_ ... bind from_l2[0 ...]
  std::uint32_t outstanding_ = 0;    // requests arrived and not yet answered
  std::uint64_t busy_since_ps_ = 0;  // when outstanding_ last left zero
};

}  // namespace cnuas::gpu
