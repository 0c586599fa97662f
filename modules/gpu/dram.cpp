#include "gpu/dram.h"

#include <algorithm>
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
      first_slice_(index * slices),
      group_column_ps_(arch.dram.bank_groups, 0),
      group_used_(arch.dram.bank_groups, false) {
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
  if (bank.queue.empty()) bank.busy_since_ps = std::max(now, bank.last_data_end_ps);
  bank.queue.push_back({&r, at.row, now});
  ++queued_;
  wake(std::max(now, next_column_ps_));
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

void DramChannel::wake(std::uint64_t at) {
  if (issue_scheduled_) return;
  issue_scheduled_ = true;
  events_.schedule(at, this, kIssue, nullptr);
}

// Refresh windows [k tREFI, k tREFI + tRFC), k >= 1, for all banks at once: a
// command cannot start inside one, and a refresh closes every open row.
std::uint64_t DramChannel::refresh_adjust(std::uint64_t t) {
  if (cfg_.tREFI_ps == 0 || cfg_.refresh_per_bank) return t;
  const std::uint64_t k = t / cfg_.tREFI_ps;
  if (k >= 1 && t < k * cfg_.tREFI_ps + cfg_.tRFC_ps) t = k * cfg_.tREFI_ps + cfg_.tRFC_ps;
  if (k > refresh_epoch_)
    for (auto& b : banks_) b->open = false;
  refresh_epoch_ = std::max(refresh_epoch_, k);
  return t;
}

// Per-bank refresh: bank b of the channel refreshes for tRFC from
// k tREFI + b tREFI / banks, k >= 1; the refresh closes its row.
void DramChannel::refresh_bank(DramBank& bank, std::uint64_t now) {
  if (cfg_.tREFI_ps == 0 || !cfg_.refresh_per_bank) return;
  const std::uint64_t offset = cfg_.tREFI_ps / cfg_.banks * (bank.index % cfg_.banks);
  if (now < cfg_.tREFI_ps + offset) return;
  const std::uint64_t k = (now - offset) / cfg_.tREFI_ps;
  if (k <= bank.refresh_epoch) return;
  bank.refresh_epoch = k;
  const std::uint64_t start = k * cfg_.tREFI_ps + offset;
  bank.open = false;
  bank.refreshed_until_ps = std::max(start, bank.precharge_ok_ps) + cfg_.tRFC_ps;
}

// Precharge (when another row is open) and activate `row`, as early as tRP,
// tRAS, write recovery and tRRD allow.
void DramChannel::activate(DramBank& bank, std::uint64_t row, std::uint64_t now) {
  std::uint64_t at = std::max(now, bank.refreshed_until_ps);
  if (bank.open) at = std::max(at, bank.precharge_ok_ps) + cfg_.tRP_ps;
  if (activated_) at = std::max(at, last_activate_ps_ + cfg_.tRRD_ps);
  at = refresh_adjust(at);
  activated_ = true;
  last_activate_ps_ = at;
  bank.open = true;
  bank.open_row = row;
  bank.row_used = false;
  bank.column_ok_ps = at + cfg_.tRCD_ps;
  bank.precharge_ok_ps = at + cfg_.tRAS_ps;
  ++stats_.total().dram_activates;
  ++stats_.at_ps(at).dram_activates;
}

std::uint64_t DramChannel::column_time(const DramBank& bank, bool write, std::uint64_t now) const {
  std::uint64_t t = std::max({now, bank.column_ok_ps, next_column_ps_});
  const std::uint32_t group = bank.index % cfg_.banks % cfg_.bank_groups;
  if (group_used_[group]) t = std::max(t, group_column_ps_[group] + cfg_.tCCD_L_ps);
  if (write && read_issued_) t = std::max(t, read_column_ps_ + cfg_.tRTW_ps);
  if (!write && write_issued_) t = std::max(t, write_data_end_ps_ + cfg_.tWTR_ps);
  return t;
}

void DramChannel::issue(std::uint64_t now) {
  issue_scheduled_ = false;
  if (queued_ == 0) return;
  now = refresh_adjust(now);
  // Open rows for banks with nothing to do in theirs; then the first ready column.
  DramBank* best = nullptr;
  std::size_t best_at = 0;
  std::uint64_t best_data = 0, best_arrived = 0;
  for (auto& bank_ptr : banks_) {
    DramBank& bank = *bank_ptr;
    if (bank.queue.empty()) continue;
    refresh_bank(bank, now);
    std::size_t hit = bank.queue.size();
    for (std::size_t i = 0; i < bank.queue.size(); ++i) {
      if (bank.open && bank.queue[i].row == bank.open_row) {
        hit = i;
        break;
      }
    }
    if (hit == bank.queue.size()) {
      activate(bank, bank.queue.front().row, now);  // the oldest request's row
      hit = 0;
    }
    const bool write = bank.queue[hit].request->access == Access::Write;
    const std::uint64_t data = std::max(column_time(bank, write, now) + cfg_.tCL_ps, bus_free_ps_);
    const std::uint64_t arrived = bank.queue[hit].arrived_ps;
    if (!best || data < best_data || (data == best_data && arrived < best_arrived)) {
      best = &bank;
      best_at = hit;
      best_data = data;
      best_arrived = arrived;
    }
  }
  if (!best) return;  // cannot happen: queued_ > 0

  DramBank& bank = *best;
  const DramBank::Pending req = bank.queue[best_at];
  bank.queue.erase(bank.queue.begin() + static_cast<std::ptrdiff_t>(best_at));
  --queued_;
  MemRequest& r = *req.request;
  const bool write = r.access == Access::Write;
  const std::uint64_t column = column_time(bank, write, now);
  const std::uint32_t bursts =
      std::max<std::uint32_t>(1, (r.bytes + cfg_.burst_bytes - 1) / cfg_.burst_bytes);
  const std::uint64_t data_start = std::max(column + cfg_.tCL_ps, bus_free_ps_);
  const std::uint64_t data_end = data_start + bursts * burst_ps_;
  bus_free_ps_ = data_end;
  next_column_ps_ = column + bursts * burst_ps_;
  const std::uint32_t group = bank.index % cfg_.banks % cfg_.bank_groups;
  group_used_[group] = true;
  group_column_ps_[group] = column;
  if (write) {
    write_issued_ = true;
    write_data_end_ps_ = data_end;
  } else {
    read_issued_ = true;
    read_column_ps_ = column;
  }
  // Precharge waits for tRAS, for a read's bursts, and for write recovery.
  bank.precharge_ok_ps =
      std::max(bank.precharge_ok_ps, write ? data_end + cfg_.tWR_ps : column + bursts * burst_ps_);
  Counters& window = stats_.at_ps(column);
  // A column to a row that an earlier column already used is a row hit.
  if (bank.row_used) {
    ++stats_.total().dram_row_hits;
    ++window.dram_row_hits;
  }
  bank.row_used = true;
  bank.last_data_end_ps = data_end;
  (write ? stats_.total().dram_writes : stats_.total().dram_reads) += bursts;
  (write ? window.dram_writes : window.dram_reads) += bursts;
  stats_.span(&Counters::bank_data_ps, bank.index, data_start, data_end);
  if (bank.queue.empty())
    stats_.span(&Counters::bank_active_ps, bank.index, bank.busy_since_ps, data_end);
  events_.schedule(data_end + cfg_.controller_ps, this, kRespond, &r);
  if (queued_ > 0) wake(std::max(now, next_column_ps_));
}

void DramChannel::on_event(std::uint32_t kind, void* data, std::uint64_t now) {
  if (kind == kIssue) {
    issue(now);
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
