// The SM's Tensor Memory Accelerator: cp.async.bulk copies (plain and tensor) become line
// requests the engine sends at its own rate (sm.tma.bytes_per_cycle) with at most
// sm.tma.outstanding reads in flight; reads go to L2 past L1. The PTX engine moved the data at
// issue but left the copy's mbarrier transaction bytes to this engine, which completes them when
// the copy's last line arrived: a consumer's mbarrier wait sees the phase complete only then.
// Copies to global memory are writes nobody waits for.
#include <algorithm>

#include "gpu/sm_state.h"

namespace cnuas::gpu {

void Sm::bulk_copy(WarpSlot& w, const ptx::StepRecord& rec, std::uint64_t c) {
  lsu_free_ = std::max(lsu_free_, c + 1);
  const L1Config& l1 = arch_.l1;
  TmaCopy* copy = nullptr;
  if (!rec.transactions.empty()) {
    tma_copies_.push_back(std::make_unique<TmaCopy>());
    copy = tma_copies_.back().get();
    copy->cta = w.cta;
    copy->transactions = rec.transactions;
  }
  for (const ptx::BulkRange& r : rec.bulk) {
    const std::uint64_t end = r.address + r.bytes;
    for (std::uint64_t a = r.address; a < end;) {
      const std::uint64_t line = a / l1.line_bytes * l1.line_bytes;
      const std::uint64_t stop = std::min<std::uint64_t>(end, line + l1.line_bytes);
      std::uint32_t sectors = 0;
      for (std::uint64_t s = (a - line) / l1.sector_bytes; s * l1.sector_bytes < stop - line; ++s)
        sectors |= 1u << s;
      TmaCopy* waiter = rec.bulk_to_global ? nullptr : copy;
      // A box's rows often share a line with the previous range's end: one request.
      if (!tma_queue_.empty() && tma_queue_.back().line == line &&
          tma_queue_.back().copy == waiter) {
        tma_queue_.back().sectors |= sectors;
      } else {
        tma_queue_.push_back({line, sectors, waiter});
        if (waiter) ++waiter->lines;
      }
      a = stop;
    }
  }
  tma_next_ = std::max(tma_next_, c + arch_.sm.tma.latency);
  if (copy && copy->lines == 0) {  // nothing to read (a box wholly out of bounds, or a store)
    tma_arrived(copy, c + arch_.sm.tma.latency);
    return;
  }
  tma_send(c);
}

void Sm::tma_send(std::uint64_t c) {
  const SmConfig::Tma& tma = arch_.sm.tma;
  const L1Config& l1 = arch_.l1;
  while (!tma_queue_.empty() &&
         (tma_queue_.front().copy == nullptr || tma_in_flight_ < tma.outstanding)) {
    const TmaLine l = tma_queue_.front();
    tma_queue_.pop_front();
    const std::uint64_t at = std::max(c, tma_next_);
    const std::uint32_t bytes =
        static_cast<std::uint32_t>(__builtin_popcount(l.sectors)) * l1.sector_bytes;
    tma_next_ = at + (bytes + tma.bytes_per_cycle - 1) / tma.bytes_per_cycle;
    MemRequest* r = pool_.get();
    r->line = l.line;
    r->sectors = l.sectors;
    r->access = l.copy ? Access::Read : Access::Write;
    r->sm = index_;
    r->bytes = bytes;
    r->waiter = l.copy;
    r->tma = l.copy != nullptr;
    r->issued_ps = clock_.ps(at);
    r->seal();
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time delay = sc_core::sc_time::from_value(clock_.ps(at) - events_.now());
    if (to_l1->nb_transport_fw(r->payload, phase, delay) == tlm::TLM_COMPLETED)
      pool_.put(r);
    else
      ++tma_in_flight_;
  }
}

void Sm::tma_arrived(TmaCopy* copy, std::uint64_t c) {
  if (copy->lines) {
    --tma_in_flight_;
    --copy->lines;
  }
  if (copy->lines == 0) {
    if (copy->cta)
      for (const ptx::PendingTransaction& t : copy->transactions)
        copy->cta->complete_transaction(t.rank, t.offset, t.bytes);
    tma_copies_.erase(
        std::find_if(tma_copies_.begin(), tma_copies_.end(),
                     [&](const std::unique_ptr<TmaCopy>& p) { return p.get() == copy; }));
    // Warps spinning on the mbarrier see the phase at their next try.
    wake(c);
  }
  tma_send(c);
}

// A CTA that leaves with copies in flight: their transactions complete now (other CTAs of its
// cluster may wait for a multicast), and the lines still coming complete nothing (its storage
// may serve another CTA by then).
void Sm::tma_forget(ptx::Executor::Cta* cta) {
  for (auto& copy : tma_copies_) {
    if (copy->cta != cta) continue;
    for (const ptx::PendingTransaction& t : copy->transactions)
      cta->complete_transaction(t.rank, t.offset, t.bytes);
    copy->cta = nullptr;
  }
}

}  // namespace cnuas::gpu
