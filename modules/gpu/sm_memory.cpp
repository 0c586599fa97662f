// The SM's load/store unit: global and local accesses coalesced into line
// transactions to L1, shared-memory wavefronts, constant-cache hits, and the
// responses that make a load's registers ready.
#include <algorithm>

#include "gpu/coalescer.h"
#include "gpu/sm_state.h"

namespace cnuas::gpu {

void Sm::memory(WarpSlot& w, const WarpDeps& d, std::uint32_t base, const ptx::StepRecord& rec,
                std::uint64_t c) {
  const L1Config& l1 = arch_.l1;
  switch (rec.space) {
    case ptx::Space::Global:
    case ptx::Space::Local:
    case ptx::Space::Generic:
      global_access(w, d, base, rec, c);
      return;
    case ptx::Space::SharedCluster:
      if (arch_.sm.dsmem.bytes_per_cycle) {
        cluster_shared_access(w, d, base, rec, c);
        return;
      }
      [[fallthrough]];
    case ptx::Space::Shared:
    case ptx::Space::SharedCta:
      own_shared_access(w, d, base, rec, c);
      return;
    default:  // constant and parameter space: the constant cache
      lsu_free_ = c + 1;
      set_ready(w, d, base, c + l1.constant_latency, true);
      return;
  }
}

// A warp's access to this CTA's shared memory: the banks serve it in wavefronts.
void Sm::own_shared_access(WarpSlot& w, const WarpDeps& d, std::uint32_t base,
                           const ptx::StepRecord& rec, std::uint64_t c) {
  const L1Config& l1 = arch_.l1;
  const unsigned waves = shared_wavefronts(rec, l1.shared_banks, l1.shared_bank_bytes);
  lsu_free_ = c + waves;
  set_ready(w, d, base, c + l1.shared_latency + waves - 1, true);
  for (Counters* k : {&stats_.at_cycle(c), &stats_.total()}) {
    k->shared_wavefronts += waves;
    ++k->shared_accesses;
  }
}

// A warp's access that names another CTA's shared memory leaves through the SM's port to the
// SM-to-SM network: its bytes take their turn on the port, and a load's value is back the
// network's latency after its last byte left. An access to this CTA's own memory (also
// reachable through shared::cluster addresses) stays local.
void Sm::cluster_shared_access(WarpSlot& w, const WarpDeps& d, std::uint32_t base,
                               const ptx::StepRecord& rec, std::uint64_t c) {
  const std::uint32_t own = w.cta->cluster_rank();
  std::uint32_t lanes = 0;
  bool remote = false;
  for (std::uint32_t m = rec.active; m; m &= m - 1) {
    const unsigned l = static_cast<unsigned>(__builtin_ctz(m));
    remote |= w.cta->rank_of_shared_cluster_address(rec.addresses[l]) != own;
    ++lanes;
  }
  if (!remote) {
    own_shared_access(w, d, base, rec, c);
    return;
  }
  const SmConfig::Dsmem& net = arch_.sm.dsmem;
  const std::uint64_t bytes = std::uint64_t{lanes} * std::max(1u, rec.access_bytes);
  const std::uint64_t cycles = (bytes + net.bytes_per_cycle - 1) / net.bytes_per_cycle;
  const std::uint64_t start = std::max(c, dsmem_free_);
  dsmem_free_ = start + cycles;
  lsu_free_ = c + 1;
  set_ready(w, d, base, start + cycles - 1 + net.latency, true);
}

void Sm::global_access(WarpSlot& w, const WarpDeps& d, std::uint32_t base,
                       const ptx::StepRecord& rec, std::uint64_t c) {
  const L1Config& l1 = arch_.l1;
  LineAccess lines[64];
  const unsigned n = coalesce(rec, l1.line_bytes, l1.sector_bytes, lines);
  const ptx::Opcode op = rec.inst->op;
  const Access access = op == ptx::Opcode::st                                 ? Access::Write
                        : (op == ptx::Opcode::atom || op == ptx::Opcode::red) ? Access::Atomic
                                                                              : Access::Read;
  LoadTracker* t = nullptr;
  if (d.waits_for_memory) {
    if (free_trackers_.empty()) {
      tracker_storage_.push_back(std::make_unique<LoadTracker>());
      free_trackers_.push_back(tracker_storage_.back().get());
    }
    t = free_trackers_.back();
    free_trackers_.pop_back();
    *t = LoadTracker{static_cast<std::uint32_t>(&w - warps_.data()), base, &d, 0, c + 1};
  }
  std::uint64_t ready = c + 1;
  for (unsigned k = 0; k < n; ++k) {
    const std::uint64_t at = clock_.ps(c + k / l1.lines_per_cycle);
    MemRequest* r = pool_.get();
    r->line = lines[k].line;
    r->sectors = lines[k].sectors;
    r->access = access;
    r->sm = index_;
    r->bytes = static_cast<std::uint32_t>(__builtin_popcount(lines[k].sectors)) * l1.sector_bytes;
    r->waiter = t;
    r->hint = d.cache_hint.bits;
    r->issued_ps = at;
    r->seal();
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time delay = sc_core::sc_time::from_value(at - events_.now());
    if (to_l1->nb_transport_fw(r->payload, phase, delay) == tlm::TLM_COMPLETED) {
      if (access == Access::Read)
        ready = std::max(ready, clock_.cycle_at_or_after(events_.now() + delay.value()));
      pool_.put(r);
    } else if (t) {
      ++t->pending;
    }
  }
  lsu_free_ = c + (n + l1.lines_per_cycle - 1) / l1.lines_per_cycle;
  if (!t) return;
  if (t->pending == 0) {
    set_ready(w, d, base, ready, true);
    free_trackers_.push_back(t);
  } else {
    t->ready = ready;
    set_ready(w, d, base, kNever, true);
  }
}

tlm::tlm_sync_enum Sm::nb_transport_bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                       sc_core::sc_time&) {
  MemRequest& r = MemRequest::of(p);
  phase = tlm::END_RESP;
  if (r.tma) {
    TmaCopy* copy = static_cast<TmaCopy*>(r.waiter);
    pool_.put(&r);
    tma_arrived(copy, clock_.cycle_at_or_after(events_.now()));
    return tlm::TLM_COMPLETED;
  }
  LoadTracker* t = static_cast<LoadTracker*>(r.waiter);
  pool_.put(&r);
  if (!t) return tlm::TLM_COMPLETED;
  t->ready = std::max(t->ready, clock_.cycle_at_or_after(events_.now()));
  if (--t->pending == 0) {
    WarpSlot& w = warps_[t->slot];
    // Only registers still waiting: the slot may hold a new warp by now.
    for (std::int32_t reg : t->deps->writes()) {
      const std::size_t idx = t->base + static_cast<std::uint32_t>(reg);
      if (idx < w.ready.size() && w.ready[idx] == kNever) w.ready[idx] = t->ready;
    }
    not_before_[t->slot] = 0;
    free_trackers_.push_back(t);
    wake(t->ready);
  }
  return tlm::TLM_COMPLETED;
}

}  // namespace cnuas::gpu
