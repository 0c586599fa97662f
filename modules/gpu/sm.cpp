#include "gpu/sm.h"

#include <algorithm>
#include <sstream>

#include "gpu/sm_state.h"

namespace cnuas::gpu {

namespace {
constexpr std::uint32_t kNone = ~0u;
enum Event : std::uint32_t { kTick };

const WarpDeps& implicit_return() {
  static const WarpDeps d = [] {
    WarpDeps r;
    r.unit = Unit::Control;
    return r;
  }();
  return d;
}
}  // namespace

Sm::Sm(sc_core::sc_module_name name, std::uint32_t index, const ArchConfig& arch,
       EventQueue& events, RequestPool& pool, PerfRecorder& stats, DepsCache& deps, CtaSink& sink)
    : sc_core::sc_module(name),
      to_l1("to_l1"),
      index_(index),
      arch_(arch),
      clock_(stats.sm_clock()),
      events_(events),
      pool_(pool),
      stats_(stats),
      deps_(deps),
      sink_(sink),
      warps_(arch.sm.max_warps),
      not_before_(arch.sm.max_warps, 0),
      blocked_(arch.sm.max_warps, Stall::Idle),
      ctas_(arch.sm.max_ctas),
      scheduler_warps_(arch.sm.schedulers),
      last_issued_(arch.sm.schedulers, kNone),
      reason_(arch.sm.schedulers, Stall::Idle),
      pipe_free_(arch.sm.schedulers),
      tensor_free_(arch.sm.schedulers, 0) {
  to_l1.register_nb_transport_bw(this, &Sm::nb_transport_bw);
  record_.defer_transactions = arch.sm.tma.bytes_per_cycle != 0;
  for (auto& p : pipe_free_) p.fill(0);
}

Sm::~Sm() = default;

bool Sm::fits(const CtaShape& s) const {
  return resident_ctas_ < arch_.sm.max_ctas && used_warps_ + s.warps <= arch_.sm.max_warps &&
         used_registers_ + s.registers <= arch_.sm.registers &&
         used_shared_ + s.shared_bytes <= arch_.sm.shared_bytes;
}

std::uint32_t Sm::room(const CtaShape& s) const {
  std::uint32_t n = arch_.sm.max_ctas - resident_ctas_;
  n = std::min(n, (arch_.sm.max_warps - used_warps_) / std::max(1u, s.warps));
  if (s.registers) n = std::min(n, (arch_.sm.registers - used_registers_) / s.registers);
  if (s.shared_bytes) n = std::min(n, (arch_.sm.shared_bytes - used_shared_) / s.shared_bytes);
  return n;
}

void Sm::refresh_barrier_waiters(const ptx::Executor::Cta* cta, std::uint64_t cycle) {
  bool released = false;
  for (std::size_t k = 0; k < warps_.size(); ++k) {
    WarpSlot& w = warps_[k];
    if (!w.live || w.cta != cta) continue;
    w.waiting = w.cta->warp_waiting(w.warp);
    if (!w.waiting && blocked_[k] == Stall::Barrier) {
      not_before_[k] = 0;
      released = true;
    }
  }
  if (released) wake(cycle);
}

void Sm::launch(std::unique_ptr<ptx::Executor::Cta> cta, const CtaShape& shape,
                std::uint64_t cycle) {
  std::uint32_t c = 0;
  while (ctas_[c].cta) ++c;
  CtaSlot& slot = ctas_[c];
  slot.cta = std::move(cta);
  slot.shape = shape;
  slot.live_warps = static_cast<std::uint32_t>(slot.cta->warp_count());
  slot.cta->set_sm(index_);
  ++resident_ctas_;
  used_warps_ += shape.warps;
  used_registers_ += shape.registers;
  used_shared_ += shape.shared_bytes;
  const std::uint32_t warps = slot.live_warps;
  std::uint32_t w = 0;
  for (std::uint32_t s = 0; s < warps_.size() && w < warps; ++s) {
    WarpSlot& ws = warps_[s];
    if (ws.live) continue;
    // A CTA restored from a checkpoint inside a kernel may hold finished warps.
    while (w < warps && slot.cta->warp_done(w)) {
      ++w;
      --slot.live_warps;
    }
    if (w == warps) break;
    ws.cta = slot.cta.get();
    ws.cta_slot = c;
    ws.warp = w++;
    ws.live = true;
    ws.deps = nullptr;
    ws.waiting = slot.cta->warp_waiting(ws.warp);  // a restored warp may wait at a barrier
    not_before_[s] = 0;
    blocked_[s] = Stall::Idle;
    ws.age = ++age_;
    std::fill(ws.ready.begin(), ws.ready.end(), 0);
    std::fill(ws.from_memory.begin(), ws.from_memory.end(), 0);
    ws.carry_ready = 0;
    ws.wgmma_open = 0;
    ws.wgmma_groups.clear();
    scheduler_warps_[s % arch_.sm.schedulers].push_back(s);
  }
  wake(cycle);
}

void Sm::wake(std::uint64_t cycle) {
  cycle = std::max(cycle, evaluated_);
  if (running_) {
    pending_wake_ = std::min(pending_wake_, cycle);
    return;
  }
  if (scheduled_ && scheduled_cycle_ <= cycle) return;
  scheduled_ = true;
  scheduled_cycle_ = cycle;
  events_.schedule(clock_.ps(cycle), this, kTick, reinterpret_cast<void*>(++generation_));
}

void Sm::clock_changed(std::uint64_t from) {
  if (!scheduled_ || scheduled_cycle_ < from) return;
  events_.schedule(clock_.ps(scheduled_cycle_), this, kTick,
                   reinterpret_cast<void*>(++generation_));
}

void Sm::on_event(std::uint32_t, void* data, std::uint64_t) {
  if (reinterpret_cast<std::uint64_t>(data) != generation_) return;  // superseded by a wake
  scheduled_ = false;
  run_from(scheduled_cycle_);
}

void Sm::account_until(std::uint64_t cycle) {
  if (cycle <= evaluated_) return;
  const std::uint64_t gap = cycle - evaluated_;
  for (Stall r : reason_) stats_.stall(index_, evaluated_, gap, r);
  if (resident_ctas_) stats_.active(index_, evaluated_, gap);
  evaluated_ = cycle;
}

void Sm::begin(std::uint64_t cycle) {
  evaluated_ = std::max(evaluated_, cycle);
  std::fill(reason_.begin(), reason_.end(), Stall::Idle);
}

void Sm::finish(std::uint64_t end_cycle) {
  account_until(end_cycle);
}

void Sm::run_from(std::uint64_t c) {
  running_ = true;
  for (;;) {
    account_until(c);
    std::uint64_t next = kNever;
    const bool issued = cycle(c, &next);
    evaluated_ = c + 1;
    if (issued) next = c + 1;
    next = std::min(next, pending_wake_);
    pending_wake_ = kNever;
    if (resident_ctas_ == 0 || next == kNever) break;  // sleeps until a CTA or a response
    if (clock_.ps(next) < std::min(events_.next_time(), clock_.next_change_ps())) {
      c = next;  // nothing else happens before: no need to go through the calendar
      continue;
    }
    running_ = false;
    wake(next);
    return;
  }
  running_ = false;
}

bool Sm::cycle(std::uint64_t c, std::uint64_t* next) {
  bool any = false;
  Counters& window = stats_.at_cycle(c);
  for (std::uint32_t s = 0; s < scheduler_warps_.size(); ++s) {
    const std::vector<std::uint32_t>& list = scheduler_warps_[s];
    Stall first_reason = Stall::Idle;
    bool first = true, issued = false;
    const std::size_t n = list.size();
    // Greedy-then-oldest: the last warp issued, then the others oldest first.
    // Loose round robin: the warps after the last one issued, in turn.
    std::size_t start = 0;
    const bool gto = arch_.sm.policy == WarpScheduler::GreedyThenOldest;
    if (!gto && last_issued_[s] != kNone) {
      auto it = std::find(list.begin(), list.end(), last_issued_[s]);
      start = it == list.end() ? 0 : static_cast<std::size_t>(it - list.begin()) + 1;
    }
    for (std::size_t k = 0; k <= n && !issued; ++k) {
      std::uint32_t slot;
      if (gto) {
        if (k == 0) {
          if (last_issued_[s] == kNone) continue;
          slot = last_issued_[s];
        } else {
          slot = list[k - 1];
          if (slot == last_issued_[s]) continue;
        }
      } else {
        if (k == n) break;
        slot = list[(start + k) % n];
      }
      Stall why;
      std::uint64_t when = kNever;
      if (not_before_[slot] > c) {  // known to be blocked: no need to look at the warp
        why = blocked_[slot];
        when = not_before_[slot];
        if (first) {
          first_reason = why;
          first = false;
        }
        *next = std::min(*next, when);
        continue;
      }
      WarpSlot& w = warps_[slot];
      if (!w.live) continue;
      if (w.waiting) {
        why = Stall::Barrier;
      } else {
        if (!w.deps) {
          const ptx::Instruction* i = w.cta->next_instruction(w.warp);
          w.deps = i ? &deps_.of(*i) : &implicit_return();
          w.base = w.cta->register_base(w.warp);
        }
        const WarpDeps& d = *w.deps;
        const std::uint32_t base = w.base;
        std::uint64_t need = 0;
        bool memory = false;
        auto check = [&](std::int32_t r) {
          const std::size_t idx = base + static_cast<std::uint32_t>(r);
          if (idx < w.ready.size() && w.ready[idx] > c) {
            need = std::max(need, w.ready[idx]);
            memory |= w.from_memory[idx] != 0;
          }
        };
        for (std::int32_t r : d.reads()) check(r);
        for (std::int32_t r : d.writes()) check(r);
        if ((d.reads_carry || d.writes_carry) && w.carry_ready > c)
          need = std::max(need, w.carry_ready);
        // wgmma.wait_group n: the groups older than the newest n must have finished.
        if (d.wgmma == WarpDeps::Wgmma::Wait && w.wgmma_groups.size() > d.wgmma_wait)
          need = std::max(need, w.wgmma_groups[w.wgmma_groups.size() - d.wgmma_wait - 1]);
        if (need > c) {
          why = memory ? Stall::Memory : Stall::DataHazard;
          when = need;
        } else {
          const std::size_t u = static_cast<std::size_t>(d.unit);
          const std::uint64_t free = d.unit == Unit::Memory ? lsu_free_ : pipe_free_[s][u];
          if (free > c) {
            why = Stall::Structural;
            when = free;
          } else {
            issue(s, slot, c, window);
            issued = true;
            continue;
          }
        }
      }
      not_before_[slot] = when;
      blocked_[slot] = why;
      if (first) {
        first_reason = why;
        first = false;
      }
      *next = std::min(*next, when);
    }
    reason_[s] = issued ? Stall::Idle : first_reason;
    if (!issued) {
      const std::size_t r = static_cast<std::size_t>(first_reason);
      ++window.stalls[r];
      ++stats_.total().stalls[r];
    }
    any |= issued;
  }
  if (resident_ctas_ || any) {
    ++window.sm_active_cycles[index_];
    ++stats_.total().sm_active_cycles[index_];
  }
  return any;
}

void Sm::issue(std::uint32_t s, std::uint32_t slot, std::uint64_t c, Counters& window) {
  WarpSlot& w = warps_[slot];
  const WarpDeps& d = *w.deps;
  const std::uint32_t base = w.base;
  ptx::StepRecord& rec =
      record_;  // reused: zeroing its 32 addresses per issue costs more than the issue
  w.cta->set_clock(c);
  w.cta->step(w.warp, &rec);
  w.deps = nullptr;
  last_issued_[s] = slot;
  const std::size_t u = static_cast<std::size_t>(d.unit);
  const unsigned lanes = static_cast<unsigned>(__builtin_popcount(rec.active));
  for (Counters* k : {&window, &stats_.total()}) {
    ++k->sm_instructions[index_];
    ++k->unit_instructions[u];
    ++k->issue[lanes];
    k->thread_instructions += lanes;
    k->tensor_flops += d.tensor_flops;
  }
  not_before_[slot] = 0;
  // A barrier instruction may have stopped this warp or released its CTA's
  // waiters; so may threads that exit (they no longer hold a barrier back).
  const bool exits = rec.inst && (rec.inst->op == ptx::Opcode::exit ||
                                  (rec.inst->op == ptx::Opcode::ret && rec.active));
  if (d.unit == Unit::Sync || exits) {
    for (std::size_t k = 0; k < warps_.size(); ++k) {
      WarpSlot& other = warps_[k];
      if (!other.live || other.cta != w.cta || k == slot) continue;
      other.waiting = other.cta->warp_waiting(other.warp);
      if (!other.waiting && blocked_[k] == Stall::Barrier) not_before_[k] = 0;
    }
    if ((exits || (rec.inst && rec.inst->op == ptx::Opcode::barrier)) && w.cta->cluster_size() > 1)
      sink_.cluster_barrier_changed(w.cta, c + 1);
  }
  if (d.wgmma != WarpDeps::Wgmma::None && arch_.sm.wgmma.f16 != 0) {
    issue_wgmma(w, d, s, c);
  } else if (rec.defer_transactions && (!rec.bulk.empty() || !rec.transactions.empty())) {
    bulk_copy(w, rec, c);
  } else if (d.unit == Unit::Memory && rec.active) {
    memory(w, d, base, rec, c);
  } else {
    const PipeTiming& p = arch_.sm.pipes[u];
    std::uint64_t latency = p.latency, interval = p.interval;
    // A warp-level mma holds the tensor pipe for its FLOP at the profile's rate; its result
    // cannot be there before the pipe is done with it.
    if (d.tensor_flops != 0 && d.unit == Unit::Tensor) {
      const SmConfig::MmaTiming& mma = arch_.sm.mma;
      if (const std::uint64_t work = tensor_cycles(mma.rates, d, d.tensor_flops)) {
        interval = mma.overhead + work;
        latency = mma.stages ? mma.stages * interval : std::max(latency, interval);
      }
    }
    set_ready(w, d, base, c + latency, false);
    if (d.unit == Unit::Memory)
      lsu_free_ = std::max(lsu_free_, c + 1);
    else
      pipe_free_[s][u] = c + interval;
  }
  // A warp that ran its last instruction leaves; its CTA may free the SM's
  // room. Otherwise its next instruction is decoded now for the scheduler.
  const ptx::Instruction* next = w.cta->next_instruction(w.warp);
  if (!next && w.cta->warp_done(w.warp)) {
    retire_warp(slot, c);
    return;
  }
  w.deps = next ? &deps_.of(*next) : &implicit_return();
  w.base = w.cta->register_base(w.warp);
  // Lanes split off at a barrier wait once the warp's other lanes finish.
  w.waiting = w.cta->warp_waiting(w.warp);
}

std::uint64_t Sm::tensor_cycles(const SmConfig::TensorRates& r, const WarpDeps& d,
                                std::uint64_t flops) const {
  using In = WarpDeps::TensorInput;
  const std::uint64_t per_sm = d.tensor_input == In::Tf32   ? r.tf32
                               : d.tensor_input == In::Fp8  ? r.fp8
                               : d.tensor_input == In::Int8 ? r.int8
                               : d.tensor_input == In::F64  ? r.f64
                                                            : r.f16;
  if (per_sm == 0) return 0;
  // Each sub-partition's tensor core does its share of the SM's rate (a rate that does not
  // divide by the schedulers is not rounded down first).
  return (flops * arch_.sm.schedulers + per_sm - 1) / per_sm;
}

std::uint64_t Sm::wgmma_cycles(const WarpDeps& d) const {
  return std::max<std::uint64_t>(1, tensor_cycles(arch_.sm.wgmma, d, d.wgmma_flops));
}

// wgmma runs on the tensor core of the warp's sub-partition, asynchronously: the
// warp goes on issuing while its share works through the core's queue, which
// takes wgmmas in order, each wgmma_cycles() long; the result is there a tensor
// pipe latency after its last cycle. The accumulator registers are not
// scoreboarded (the next wgmma on the same accumulator chains inside the core);
// wait_group is what waits for them.
void Sm::issue_wgmma(WarpSlot& w, const WarpDeps& d, std::uint32_t s, std::uint64_t c) {
  const std::size_t tensor = static_cast<std::size_t>(Unit::Tensor);
  pipe_free_[s][tensor] = std::max(pipe_free_[s][tensor], c + 1);
  switch (d.wgmma) {
    case WarpDeps::Wgmma::Mma: {
      const std::uint64_t start = std::max(c, tensor_free_[s]);
      tensor_free_[s] = start + wgmma_cycles(d);
      w.wgmma_open = std::max(w.wgmma_open, tensor_free_[s] + arch_.sm.pipes[tensor].latency);
      break;
    }
    case WarpDeps::Wgmma::Commit:
      // Groups finish in order: a group finishes no earlier than the one before it.
      w.wgmma_groups.push_back(
          std::max({w.wgmma_open, c, w.wgmma_groups.empty() ? 0 : w.wgmma_groups.back()}));
      w.wgmma_open = 0;
      break;
    case WarpDeps::Wgmma::Wait:
      if (w.wgmma_groups.size() > d.wgmma_wait)
        w.wgmma_groups.erase(w.wgmma_groups.begin(),
                             w.wgmma_groups.end() - static_cast<std::ptrdiff_t>(d.wgmma_wait));
      break;
    default:
      break;
  }
}

void Sm::set_ready(WarpSlot& w, const WarpDeps& d, std::uint32_t base, std::uint64_t cycle,
                   bool from_memory) {
  if (d.writes_carry) w.carry_ready = cycle;
  for (std::int32_t r : d.writes()) {
    const std::size_t idx = base + static_cast<std::uint32_t>(r);
    if (idx >= w.ready.size()) {
      w.ready.resize(idx + 1, 0);
      w.from_memory.resize(idx + 1, 0);
    }
    w.ready[idx] = cycle;
    w.from_memory[idx] = from_memory;
  }
}

void Sm::retire_warp(std::uint32_t slot, std::uint64_t c) {
  WarpSlot& w = warps_[slot];
  w.live = false;
  std::vector<std::uint32_t>& list = scheduler_warps_[slot % arch_.sm.schedulers];
  list.erase(std::find(list.begin(), list.end(), slot));
  for (auto& last : last_issued_)
    if (last == slot) last = kNone;
  CtaSlot& cta = ctas_[w.cta_slot];
  w.cta = nullptr;
  if (--cta.live_warps) return;
  std::unique_ptr<ptx::Executor::Cta> done = std::move(cta.cta);
  tma_forget(done.get());
  --resident_ctas_;
  used_warps_ -= cta.shape.warps;
  used_registers_ -= cta.shape.registers;
  used_shared_ -= cta.shape.shared_bytes;
  sink_.cta_finished(index_, c + 1, std::move(done));
}

void Sm::blocked_warps(std::vector<std::string>& out) const {
  for (std::size_t s = 0; s < warps_.size(); ++s) {
    const WarpSlot& w = warps_[s];
    if (!w.live) continue;
    const ptx::Dim3 id = w.cta->cta_id();
    std::ostringstream one;
    one << "sm " << index_ << " CTA (" << id.x << "," << id.y << "," << id.z << ") warp " << w.warp
        << (w.cta->warp_waiting(w.warp) ? " waits at a barrier" : " waits on memory");
    out.push_back(one.str());
  }
}

}  // namespace cnuas::gpu
