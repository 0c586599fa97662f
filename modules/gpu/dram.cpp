#include "gpu/dram.h"

#include <string>

namespace cnuas::gpu {

DramBank::DramBank(sc_core::sc_module_name name, std::uint32_t global_index)
    : sc_core::sc_module(name), index(global_index) {}

DramChannel::DramChannel(sc_core::sc_module_name name, std::uint32_t index, std::uint32_t slices,
                         const ArchConfig& arch, const AddressMap& map, EventQueue& events,
                         PerfRecorder& stats)
    : sc_core::sc_module(name),
      index_(index),
      cfg_(arch.dram),
      map_(map),
      events_(events),
      stats_(stats),
      burst_ps_((ps_per_second() * Rational(arch.dram.burst_bytes) / arch.dram.channel_bytes_per_s)
                    .ceil_u64()),
      bank_lanes_(arch.dram.banks),
      bus_(1),
      first_slice_(index * slices) {
  for (std::uint32_t s = 0; s < slices; ++s) {
    from_l2.push_back(std::make_unique<tlm_utils::simple_target_socket_tagged<DramChannel>>(
        ("from_l2_" + std::to_string(s)).c_str()));
    from_l2.back()->register_nb_transport_fw(this, &DramChannel::nb_transport_fw,
                                             static_cast<int>(s));
  }
  for (std::uint32_t b = 0; b < cfg_.banks; ++b)
    banks_.push_back(
        std::make_unique<DramBank>(("bank" + std::to_string(b)).c_str(), index * cfg_.banks + b));
}

tlm::tlm_sync_enum DramChannel::nb_transport_fw(int, tlm::tlm_generic_payload& p,
                                                tlm::tlm_phase& phase, sc_core::sc_time&) {
  MemRequest& r = MemRequest::of(p);
  const std::uint64_t now = events_.now();
  if (outstanding_++ == 0) busy_since_ps_ = now;
  const DramLocation at = map_.dram(r.line);
  DramBank& bank = *banks_[at.bank];
  if (bank.queue.empty() && !bank.pick_scheduled)
    bank.busy_since_ps = std::max(now, bank.idle_from_ps);
  bank.queue.push_back({&r, at.row, now});
  if (!bank.pick_scheduled) {
    bank.pick_scheduled = true;
    events_.schedule(std::max(now, bank_lanes_.free_at(at.bank)), this, kPick, &bank);
  }
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

// Refresh windows [k tREFI, k tREFI + tRFC), k >= 1, for all banks at once: a
// command cannot start inside one, and a refresh closes the open row.
std::uint64_t DramChannel::refresh_adjust(DramBank& bank, std::uint64_t t) {
  if (cfg_.tREFI_ps == 0) return t;
  std::uint64_t k = t / cfg_.tREFI_ps;
  if (k >= 1 && t < k * cfg_.tREFI_ps + cfg_.tRFC_ps) t = k * cfg_.tREFI_ps + cfg_.tRFC_ps;
  if (k > bank.refresh_epoch) bank.open = false;
  bank.refresh_epoch = k;
  return t;
}

void DramChannel::pick(DramBank& bank, std::uint64_t now) {
  // First ready: the oldest request to the open row; else the oldest.
  auto chosen = bank.queue.begin();
  if (bank.open)
    for (auto it = bank.queue.begin(); it != bank.queue.end(); ++it)
      if (it->row == bank.open_row) {
        chosen = it;
        break;
      }
  const DramBank::Pending req = *chosen;
  bank.queue.erase(chosen);
  MemRequest& r = *req.request;
  const bool write = r.access == Access::Write;

  std::uint64_t t = refresh_adjust(bank, now);
  std::uint64_t column;
  Counters& window = stats_.at_ps(t);
  if (bank.open && bank.open_row == req.row) {
    column = t;
    ++stats_.total().dram_row_hits;
    ++window.dram_row_hits;
  } else {
    std::uint64_t activate = t;
    if (bank.open) activate = std::max(t, bank.precharge_ok_ps) + cfg_.tRP_ps;  // row conflict
    activate = refresh_adjust(bank, activate);
    bank.open = true;
    bank.open_row = req.row;
    bank.activated_ps = activate;
    bank.precharge_ok_ps = activate + cfg_.tRAS_ps;
    column = activate + cfg_.tRCD_ps;
    ++stats_.total().dram_activates;
    ++window.dram_activates;
  }
  const std::uint32_t bursts =
      std::max<std::uint32_t>(1, (r.bytes + cfg_.burst_bytes - 1) / cfg_.burst_bytes);
  // The bank is occupied from its first command until its last burst leaves
  // (booked on the shared adapter with the bank's lane pinned); the data
  // crosses the channel's bus in turn with the other banks'.
  const Booking data = bus_.book(column + cfg_.tCL_ps, bursts * burst_ps_);
  const std::uint32_t lane = bank.index % cfg_.banks;
  const std::uint64_t from = std::max(now, bank_lanes_.free_at(lane));
  const Booking held =
      bank_lanes_.book_pinned(lane, from, data.end_ps > from ? data.end_ps - from : 0);
  // Precharge waits for tRAS, for a read's bursts, and for write recovery.
  bank.precharge_ok_ps = std::max(bank.precharge_ok_ps,
                                  write ? data.end_ps + cfg_.tWR_ps : column + bursts * burst_ps_);
  (write ? stats_.total().dram_writes : stats_.total().dram_reads) += bursts;
  (write ? window.dram_writes : window.dram_reads) += bursts;
  stats_.span(&Counters::bank_data_ps, bank.index, data.start_ps, data.end_ps);

  // The next column command may follow once this one's bursts are under way.
  const std::uint64_t next = column + bursts * burst_ps_;
  if (bank.queue.empty()) {
    bank.pick_scheduled = false;
    stats_.span(&Counters::bank_active_ps, bank.index, bank.busy_since_ps, held.end_ps);
    bank.idle_from_ps = held.end_ps;
  } else {
    events_.schedule(std::max(next, now), this, kPick, &bank);
  }
  events_.schedule(data.end_ps + cfg_.controller_ps, this, kRespond, &r);
}

void DramChannel::on_event(std::uint32_t kind, void* data, std::uint64_t now) {
  if (kind == kPick) {
    pick(*static_cast<DramBank*>(data), now);
    return;
  }
  MemRequest& r = *static_cast<MemRequest*>(data);
  if (--outstanding_ == 0) stats_.span(&Counters::channel_active_ps, index_, busy_since_ps_, now);
  r.payload.set_response_status(tlm::TLM_OK_RESPONSE);
  tlm::tlm_phase phase = tlm::BEGIN_RESP;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  (*from_l2[r.slice - first_slice_])->nb_transport_bw(r.payload, phase, delay);
}

}  // namespace cnuas::gpu
