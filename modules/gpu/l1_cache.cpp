#include "gpu/l1_cache.h"

namespace cnuas::gpu {

L1Cache::L1Cache(sc_core::sc_module_name name, std::uint32_t sm, const ArchConfig& arch,
                 const AddressMap& map, EventQueue& events, RequestPool& pool, PerfRecorder& stats)
    : sc_core::sc_module(name),
      from_sm("from_sm"),
      to_noc("to_noc"),
      sm_(sm),
      cfg_(arch.l1),
      map_(map),
      events_(events),
      pool_(pool),
      stats_(stats),
      tags_(arch.l1.size_bytes, arch.l1.line_bytes, arch.l1.ways),
      mshrs_(arch.l1.mshrs),
      hit_ps_(Clock(arch.sm.clock_hz).span_ps(arch.l1.hit_latency)) {
  from_sm.register_nb_transport_fw(this, &L1Cache::nb_transport_fw);
  to_noc.register_nb_transport_bw(this, &L1Cache::nb_transport_bw);
}

tlm::tlm_sync_enum L1Cache::nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                            sc_core::sc_time& delay) {
  MemRequest& r = MemRequest::of(p);
  const std::uint64_t t = events_.now() + delay.value();
  const std::uint32_t sectors = static_cast<std::uint32_t>(__builtin_popcount(r.sectors));
  if (r.tma && r.access == Access::Read) {  // the TMA reads from L2, past L1
    send(r, r.sectors, Access::Read, t);
    phase = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  const CacheHint hint{r.hint};
  if (hint.has(CacheHint::kBypassL1) && r.access == Access::Read) {
    // .cg/.cv: to L2 after the L1 stage, without looking at or filling the tags.
    stats_.total().l1_misses += sectors;
    stats_.at_ps(t).l1_misses += sectors;
    send(r, r.sectors, Access::Read, t + hit_ps_);
    phase = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  switch (r.access) {
    case Access::Write: {
      // Write-through: the sectors go on to L2; the line is updated when present
      // (or allocated, when the profile says so), or dropped by a store that
      // bypasses L1 (.cg/.cv). The warp does not wait.
      const std::uint32_t valid = tags_.lookup(r.line, r.line);
      if (hint.has(CacheHint::kBypassL1))
        tags_.invalidate(r.line, r.line, r.sectors);
      else if (valid || cfg_.write_allocate)
        tags_.fill(r.line, r.line, r.sectors, false, l1_retention(hint));
      send(r, r.sectors, Access::Write, t);
      phase = tlm::BEGIN_RESP;
      return tlm::TLM_COMPLETED;
    }
    case Access::Atomic:
      tags_.invalidate(r.line, r.line, r.sectors);
      stats_.total().l1_misses += sectors;
      stats_.at_ps(t).l1_misses += sectors;
      send(r, r.sectors, Access::Atomic, t);
      phase = tlm::END_REQ;
      return tlm::TLM_UPDATED;
    case Access::Read:
      break;
  }
  if (read(r, t)) {
    delay += sc_core::sc_time::from_value(hit_ps_);
    phase = tlm::BEGIN_RESP;
    return tlm::TLM_COMPLETED;
  }
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

bool L1Cache::read(MemRequest& r, std::uint64_t t) {
  const std::uint32_t valid = tags_.lookup(r.line, r.line);
  std::uint32_t fetch = 0;
  const MshrTable::Outcome o = mshrs_.track(&r, r.line, r.sectors, valid, &fetch);
  if (o == MshrTable::Outcome::Full) {
    mshrs_.stall(&r);  // counted when retried
    return false;
  }
  const std::uint32_t hits = static_cast<std::uint32_t>(__builtin_popcount(r.sectors & valid));
  const std::uint32_t misses = static_cast<std::uint32_t>(__builtin_popcount(r.sectors)) - hits;
  Counters& w = stats_.at_ps(t);
  stats_.total().l1_hits += hits;
  w.l1_hits += hits;
  stats_.total().l1_misses += misses;
  w.l1_misses += misses;
  // A miss goes out after the tag check.
  if (fetch) send(r, fetch, Access::Read, t + hit_ps_);
  return o == MshrTable::Outcome::Hit;
}

void L1Cache::send(MemRequest& upstream, std::uint32_t sectors, Access a, std::uint64_t at) {
  MemRequest* d = pool_.get();
  d->line = upstream.line;
  d->sectors = sectors;
  d->access = a;
  d->sm = sm_;
  d->home = map_.slice(upstream.line);
  d->slice = map_.near_slice(d->home, sm_);
  d->hint = upstream.hint;
  d->bytes = static_cast<std::uint32_t>(__builtin_popcount(sectors)) * cfg_.sector_bytes;
  // The waiter hears of the response itself: it was not tracked in the MSHRs.
  const bool bypass = a == Access::Read && CacheHint{upstream.hint}.has(CacheHint::kBypassL1);
  d->waiter = a == Access::Atomic || upstream.tma || bypass ? &upstream : nullptr;
  d->seal();
  events_.schedule(at, this, kSend, d);
}

void L1Cache::respond(MemRequest& r) {
  r.payload.set_response_status(tlm::TLM_OK_RESPONSE);
  tlm::tlm_phase phase = tlm::BEGIN_RESP;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  from_sm->nb_transport_bw(r.payload, phase, delay);
}

tlm::tlm_sync_enum L1Cache::nb_transport_bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                            sc_core::sc_time&) {
  MemRequest& d = MemRequest::of(p);
  if (d.waiter) {  // an atomic, a TMA read or a read past L1
    respond(*static_cast<MemRequest*>(d.waiter));
  } else {
    const CacheHint hint{d.hint};
    if (!hint.has(CacheHint::kL1NoAllocate))
      tags_.fill(d.line, d.line, d.sectors, false, l1_retention(hint));
    done_.clear();
    mshrs_.arrive(d.line, d.sectors, done_);
    for (MemRequest* r : done_) respond(*r);
    if (mshrs_.retry_due()) events_.schedule(events_.now(), this, kRetry);
  }
  pool_.put(&d);
  phase = tlm::END_RESP;
  return tlm::TLM_COMPLETED;
}

void L1Cache::on_event(std::uint32_t kind, void* data, std::uint64_t now) {
  switch (kind) {
    case kSend: {
      tlm::tlm_phase phase = tlm::BEGIN_REQ;
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      to_noc->nb_transport_fw(static_cast<MemRequest*>(data)->payload, phase, delay);
      return;
    }
    case kRespond:
      respond(*static_cast<MemRequest*>(data));
      return;
    default:  // kRetry: reads that found the MSHRs full try again
      while (MemRequest* r = mshrs_.take_retry())
        if (read(*r, now)) events_.schedule(now + hit_ps_, this, kRespond, r);
      return;
  }
}

}  // namespace cnuas::gpu
