#include "gpu/l2_slice.h"

#include <algorithm>

namespace cnuas::gpu {

L2Slice::L2Slice(sc_core::sc_module_name name, std::uint32_t index, const ArchConfig& arch,
                 const AddressMap& map, EventQueue& events, RequestPool& pool, PerfRecorder& stats)
    : sc_core::sc_module(name),
      from_noc("from_noc"),
      to_dram("to_dram"),
      index_(index),
      cfg_(arch.l2),
      map_(map),
      clock_(arch.l2.clock_hz),
      events_(events),
      pool_(pool),
      stats_(stats),
      tags_(arch.l2.size_bytes / arch.l2.slices, arch.l2.line_bytes, arch.l2.ways),
      mshrs_(arch.l2.mshrs),
      port_(1),
      link_(1),
      latency_ps_(clock_.span_ps(arch.l2.hit_latency)),
      far_ps_(clock_.span_ps(arch.l2.far_latency)),
      header_bytes_(arch.noc.request_header_bytes),
      group_sectors_(std::max(1u, arch.l2.fetch_bytes / arch.l2.sector_bytes)) {
  from_noc.register_nb_transport_fw(this, &L2Slice::nb_transport_fw);
  to_dram.register_nb_transport_bw(this, &L2Slice::nb_transport_bw);
}

void L2Slice::set_policy(const L2AccessPolicy& policy) {
  policy_ = &policy;
  const std::uint32_t fetch =
      policy.fetch_bytes ? std::min(policy.fetch_bytes, cfg_.line_bytes) : cfg_.fetch_bytes;
  group_sectors_ = std::max(1u, fetch / cfg_.sector_bytes);
  // The set-aside as a share of every set's ways, to the nearest way, at
  // least one when any is set aside.
  const std::uint64_t ways = tags_.ways();
  std::uint64_t share = 0;
  if (policy.set_aside_bytes > 0)
    share = std::max<std::uint64_t>(
        1, (policy.set_aside_bytes * ways + cfg_.size_bytes / 2) / cfg_.size_bytes);
  tags_.set_persisting_ways(static_cast<std::uint32_t>(std::min(share, ways)));
}

tlm::tlm_sync_enum L2Slice::nb_transport_fw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                            sc_core::sc_time&) {
  access(MemRequest::of(p), events_.now());
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

std::uint32_t L2Slice::fetch_groups(std::uint32_t sectors) const {
  if (group_sectors_ <= 1) return 0;
  const std::uint32_t group = (1u << group_sectors_) - 1;
  const std::uint32_t per_line = cfg_.line_bytes / cfg_.sector_bytes;
  std::uint32_t out = 0;
  for (std::uint32_t first = 0; first < per_line; first += group_sectors_)
    if ((sectors >> first) & group) out |= group << first;
  return out;
}

std::uint64_t L2Slice::book_port(const MemRequest& r, std::uint64_t now) {
  const std::uint64_t bytes = std::max<std::uint64_t>(r.bytes, 1);
  return port_.book(now, clock_.span_ps(bytes, cfg_.bytes_per_cycle)).start_ps;
}

void L2Slice::count(std::uint64_t at, std::uint32_t hits, std::uint32_t misses) {
  Counters& w = stats_.at_ps(at);
  stats_.total().l2_hits += hits;
  w.l2_hits += hits;
  stats_.total().l2_misses += misses;
  w.l2_misses += misses;
}

void L2Slice::access(MemRequest& r, std::uint64_t now) {
  if (r.home != index_ && r.slice == index_) {
    access_copy(r, now);
    return;
  }
  const std::uint64_t key = map_.slice_local(r.line);
  // .cv: the clean sectors asked for are dropped, so that they come from DRAM again.
  if (r.access == Access::Read && CacheHint{r.hint}.has(CacheHint::kRefetch))
    tags_.invalidate_clean(r.line, key, r.sectors);
  const std::uint32_t valid = tags_.lookup(r.line, key);
  // A read that finds no free MSHR waits in the input queue without using
  // the data port (it is back-pressured, not served twice).
  std::uint32_t fetch = 0;
  MshrTable::Outcome outcome = MshrTable::Outcome::Hit;
  if (r.access != Access::Write) {
    outcome = mshrs_.track(&r, r.line, r.sectors, valid, &fetch, /*waits_on_peer=*/false,
                           r.access == Access::Read ? fetch_groups(r.sectors) : 0);
    if (outcome == MshrTable::Outcome::Full) {
      mshrs_.stall(&r);  // counted when retried
      return;
    }
  }
  // The slice moves bytes_per_cycle per L2 cycle: a request holds its port
  // for the sectors it reads or writes.
  const std::uint64_t start = book_port(r, now);
  const std::uint32_t hits = static_cast<std::uint32_t>(__builtin_popcount(r.sectors & valid));
  const std::uint32_t misses = static_cast<std::uint32_t>(__builtin_popcount(r.sectors)) - hits;
  if (r.access == Access::Write) {
    // Whole sectors are written: allocate without fetching.
    count(start, hits, misses);
    write_back(tags_.fill(r.line, key, r.sectors, true, retention(r)), start + latency_ps_);
    pool_.put(&r);
    return;
  }
  switch (outcome) {
    case MshrTable::Outcome::Hit:
      count(start, hits, 0);
      if (r.access == Access::Atomic)
        tags_.fill(r.line, key, r.sectors, true, retention(r));
      else if (retention(r) == Retention::Persisting)
        tags_.fill(r.line, key, 0, false, Retention::Persisting);  // a hit makes it persist
      events_.schedule(start + latency_ps_, this, kRespond, &r);
      return;
    case MshrTable::Outcome::Waiting:
      count(start, hits, misses);
      if (fetch) to_dram_at(start + latency_ps_, r.line, fetch, Access::Read, r.hint);
      return;
    case MshrTable::Outcome::Full:
      return;  // handled above
  }
}

void L2Slice::access_copy(MemRequest& r, std::uint64_t now) {
  const std::uint64_t key = map_.slice_local(r.line);
  const std::uint64_t data = r.access == Access::Read ? 0 : r.bytes;
  if (r.access != Access::Read) {
    // The home slice performs it; this partition's copy of those sectors is stale.
    tags_.invalidate(r.line, key, r.sectors);
    cross(r, header_bytes_ + data, now, kToHome);
    return;
  }
  if (CacheHint{r.hint}.has(CacheHint::kRefetch)) tags_.invalidate(r.line, key, r.sectors);
  const std::uint32_t valid = tags_.lookup(r.line, key);
  std::uint32_t fetch = 0;
  const MshrTable::Outcome outcome =
      mshrs_.track(&r, r.line, r.sectors, valid, &fetch, /*waits_on_peer=*/true);
  if (outcome == MshrTable::Outcome::Full) {
    mshrs_.stall(&r, /*waits_on_peer=*/true);
    return;
  }
  const std::uint64_t start = book_port(r, now);
  // Sectors found here are hits; the others are counted where they are found (the home slice).
  count(start, static_cast<std::uint32_t>(__builtin_popcount(r.sectors & valid)), 0);
  if (outcome == MshrTable::Outcome::Hit) {
    events_.schedule(start + latency_ps_, this, kRespond, &r);
    return;
  }
  if (!fetch) return;  // waits for a fetch already on its way
  MemRequest* d = pool_.get();
  d->line = r.line;
  d->sectors = fetch;
  d->access = Access::Read;
  d->sm = r.sm;
  d->slice = index_;
  d->home = r.home;
  d->hint = r.hint;
  d->bytes = static_cast<std::uint32_t>(__builtin_popcount(fetch)) * cfg_.sector_bytes;
  d->seal();
  cross(*d, header_bytes_, start + latency_ps_, kToHome);
}

void L2Slice::cross(MemRequest& r, std::uint64_t bytes, std::uint64_t at, Event kind) {
  const Booking b = link_.book(at, clock_.span_ps(bytes, cfg_.far_bytes_per_cycle));
  events_.schedule(b.end_ps + far_ps_, mirror_, kind, &r);
}

void L2Slice::respond(MemRequest& r, std::uint64_t now) {
  if (r.slice != index_) {  // it came from the mirror: back across the crossbar
    cross(r, r.bytes, now, kFromHome);
    return;
  }
  r.payload.set_response_status(tlm::TLM_OK_RESPONSE);
  tlm::tlm_phase phase = tlm::BEGIN_RESP;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  from_noc->nb_transport_bw(r.payload, phase, delay);
}

void L2Slice::from_home(MemRequest& r, std::uint64_t now) {
  if (r.access != Access::Read) {  // an atomic's answer
    respond(r, now);
    return;
  }
  const std::uint64_t key = map_.slice_local(r.line);
  write_back(tags_.fill(r.line, key, r.sectors, false, retention(r)), now);
  done_.clear();
  mshrs_.arrive(r.line, r.sectors, done_);
  for (MemRequest* w : done_) events_.schedule(now, this, kRespond, w);
  if (mshrs_.retry_due()) events_.schedule(now, this, kRetry);
  pool_.put(&r);
}

void L2Slice::to_dram_at(std::uint64_t at, std::uint64_t line, std::uint32_t sectors, Access a,
                         std::uint8_t hint) {
  MemRequest* d = pool_.get();
  d->line = line;
  d->sectors = sectors;
  d->access = a;
  d->slice = index_;
  d->home = index_;
  d->hint = hint;
  d->bytes = static_cast<std::uint32_t>(__builtin_popcount(sectors)) * cfg_.sector_bytes;
  d->seal();
  events_.schedule(at, this, kToDram, d);
}

void L2Slice::write_back(const TagArray::Eviction& e, std::uint64_t at) {
  if (e.happened && e.dirty) to_dram_at(at, e.line, e.dirty, Access::Write, 0);
}

tlm::tlm_sync_enum L2Slice::nb_transport_bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                            sc_core::sc_time&) {
  MemRequest& d = MemRequest::of(p);
  const std::uint64_t now = events_.now();
  if (d.access == Access::Read) {
    const std::uint64_t key = map_.slice_local(d.line);
    write_back(tags_.fill(d.line, key, d.sectors, false, retention(d)), now);
    done_.clear();
    mshrs_.arrive(d.line, d.sectors, done_);
    for (MemRequest* r : done_) {
      if (r->access == Access::Atomic) tags_.fill(r->line, key, r->sectors, true, retention(*r));
      events_.schedule(now, this, kRespond, r);
    }
    if (mshrs_.retry_due()) events_.schedule(now, this, kRetry);
  }
  pool_.put(&d);
  phase = tlm::END_RESP;
  return tlm::TLM_COMPLETED;
}

void L2Slice::on_event(std::uint32_t kind, void* data, std::uint64_t now) {
  switch (kind) {
    case kToDram: {
      tlm::tlm_phase phase = tlm::BEGIN_REQ;
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      to_dram->nb_transport_fw(static_cast<MemRequest*>(data)->payload, phase, delay);
      return;
    }
    case kRespond:
      respond(*static_cast<MemRequest*>(data), now);
      return;
    case kToHome:
      access(*static_cast<MemRequest*>(data), now);
      return;
    case kFromHome:
      from_home(*static_cast<MemRequest*>(data), now);
      return;
    case kRetry:
      while (MemRequest* r = mshrs_.take_retry()) access(*r, now);
      return;
    default:
      return;
  }
}

}  // namespace cnuas::gpu
