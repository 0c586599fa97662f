// DRAM: a channel (memory controller + data bus) and its banks, each bank an
// sc_module with a row buffer. The controller keeps one queue per bank and
// issues one column command at a time for the whole channel:
//  - open page: a bank whose pending requests all miss its open row (or whose
//    row is closed) precharges and activates the oldest one's row at once,
//    tRRD after the channel's last activate, so activates overlap other banks'
//    data;
//  - first ready: of the requests that hit an open row, the one whose data can
//    start first goes, the oldest on a tie;
//  - column spacing: tCCD_L between columns to the same bank group, the data
//    bus (one burst per `burst` bytes) between any two;
//  - read/write turnaround: a read waits tWTR after write data, a write tRTW
//    after a read command; as the first-ready pick sees these delays, it runs
//    reads and writes in batches of its own accord;
//  - refresh every tREFI for tRFC, of all banks at once (rows close), or with
//    per-bank refresh of one bank at a time, staggered across the interval,
//    so that the others keep serving (HBM's REFpb).
// Timing: tRCD, tRP, tCL, tRAS, tWR as JEDEC names them.
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include <tlm_utils/simple_target_socket.h>
#include <systemc>

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
  bool row_used = false;  // a column has used the open row since its activate
  std::uint64_t open_row = 0;
  std::uint64_t column_ok_ps = 0;     // tRCD after the activate of the open row
  std::uint64_t precharge_ok_ps = 0;  // tRAS, read bursts and write recovery satisfied
  std::uint64_t busy_since_ps = 0;    // start of the current span with requests pending
  std::uint64_t last_data_end_ps = 0;
  std::uint64_t refresh_epoch = 0;       // per-bank refresh windows seen
  std::uint64_t refreshed_until_ps = 0;  // end of the last per-bank refresh
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
  enum Event : std::uint32_t { kIssue, kRespond };
  tlm::tlm_sync_enum nb_transport_fw(int from, tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void issue(std::uint64_t now);
  void wake(std::uint64_t at);
  std::uint64_t refresh_adjust(std::uint64_t t);
  void refresh_bank(DramBank& bank, std::uint64_t now);
  void activate(DramBank& bank, std::uint64_t row, std::uint64_t now);
  // When a column command (a read, or a write) to `bank`'s open row may issue.
  std::uint64_t column_time(const DramBank& bank, bool write, std::uint64_t now) const;

  std::uint32_t index_;
  const DramConfig& cfg_;
  const AddressMap& map_;
  EventQueue& events_;
  PerfRecorder& stats_;
  std::uint64_t burst_ps_;
  std::vector<std::unique_ptr<DramBank>> banks_;
  std::uint32_t first_slice_;        // slices first_slice_ ... bind from_l2[0 ...]
  std::uint32_t outstanding_ = 0;    // requests arrived and not yet answered
  std::uint32_t queued_ = 0;         // requests waiting for their column command
  std::uint64_t busy_since_ps_ = 0;  // when outstanding_ last left zero
  bool issue_scheduled_ = false;
  std::uint64_t refresh_epoch_ = 0;
  std::uint64_t bus_free_ps_ = 0;        // end of the last burst booked on the data bus
  std::uint64_t next_column_ps_ = 0;     // the command bus takes one column command at a time
  std::uint64_t last_activate_ps_ = 0;   // for tRRD
  bool activated_ = false;               // any activate yet
  std::uint64_t write_data_end_ps_ = 0;  // for tWTR
  std::uint64_t read_column_ps_ = 0;     // for tRTW
  bool read_issued_ = false, write_issued_ = false;
  std::vector<std::uint64_t> group_column_ps_;  // last column command per bank group (tCCD_L)
  std::vector<bool> group_used_;
};

}  // namespace cnuas::gpu
