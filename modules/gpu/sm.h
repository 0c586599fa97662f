// A streaming multiprocessor: resident CTAs within the occupancy limits, warp
// schedulers (greedy-then-oldest or loose round robin), a scoreboard of
// register ready cycles, functional-unit pipes with latency and initiation
// interval, the load/store unit with coalescing and shared-memory bank
// conflicts, and barriers through the PTX engine.
//
// Instructions execute when they issue (the PTX engine's step interface), so
// results equal functional mode. The SM runs only while it has work: when no
// warp can issue it computes the next cycle one can, or sleeps until a memory
// response wakes it; skipped cycles are still counted, by stall reason.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>

#include "gpu/event_queue.h"
#include "gpu/mem_request.h"
#include "gpu/perf_stats.h"
#include "gpu/sm_clock.h"
#include "gpu/warp_deps.h"
#include "ptx/executor.h"

namespace cnuas::gpu {

// What one CTA of a kernel needs of an SM.
struct CtaShape {
  std::uint32_t warps = 1;
  std::uint32_t registers = 0;
  std::uint32_t shared_bytes = 0;
};

class CtaSink {
 public:
  virtual ~CtaSink() = default;
  // An SM finished a CTA at `cycle` and has room for another; the finished
  // CTA's storage comes along for reuse.
  virtual void cta_finished(std::uint32_t sm, std::uint64_t cycle,
                            std::unique_ptr<ptx::Executor::Cta> done) = 0;
  // A warp of `cta`, whose cluster has several CTAs, reached the cluster barrier or exited at
  // `cycle`: the cluster's warps on other SMs may go on.
  virtual void cluster_barrier_changed(const ptx::Executor::Cta* /*cta*/, std::uint64_t /*cycle*/) {
  }
};

class Sm : public sc_core::sc_module, public EventTarget {
 public:
  tlm_utils::simple_initiator_socket<Sm> to_l1;

  Sm(sc_core::sc_module_name name, std::uint32_t index, const ArchConfig& arch, EventQueue& events,
     RequestPool& pool, PerfRecorder& stats, DepsCache& deps, CtaSink& sink);
  ~Sm() override;

  bool fits(const CtaShape& shape) const;
  // How many more CTAs of this shape the SM holds now.
  std::uint32_t room(const CtaShape& shape) const;
  // The cluster barrier may have released warps of `cta` (resident here) at `cycle`.
  void refresh_barrier_waiters(const ptx::Executor::Cta* cta, std::uint64_t cycle);
  // Makes the CTA resident; its warps may issue from `cycle`.
  void launch(std::unique_ptr<ptx::Executor::Cta> cta, const CtaShape& shape, std::uint64_t cycle);
  bool idle() const { return resident_ctas_ == 0; }
  // A kernel starts at `cycle`: statistics count from there.
  void begin(std::uint64_t cycle);
  // Counts the cycles up to `end_cycle` (exclusive) not yet accounted.
  void finish(std::uint64_t end_cycle);
  // Cycles before this one have been evaluated or accounted: the kernel ends no earlier.
  std::uint64_t evaluated() const { return evaluated_; }
  // Appends a description of each live warp, for a kernel that cannot finish.
  void blocked_warps(std::vector<std::string>& out) const;
  // The SM clock changed from cycle `from`: a tick already in the calendar for a later cycle
  // moves to that cycle's new time.
  void clock_changed(std::uint64_t from);

  void on_event(std::uint32_t kind, void* data, std::uint64_t now_ps) override;

 private:
  struct WarpSlot;
  struct CtaSlot;
  struct LoadTracker;

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& p, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void run_from(std::uint64_t cycle);
  // One cycle: each scheduler issues at most one warp instruction. Returns
  // whether any issued; *next is the earliest later cycle something could.
  bool cycle(std::uint64_t cycle, std::uint64_t* next);
  void issue(std::uint32_t scheduler, std::uint32_t slot, std::uint64_t cycle, Counters& window);
  // `base`: the warp's register base when the instruction issued.
  void memory(WarpSlot& w, const WarpDeps& d, std::uint32_t base, const ptx::StepRecord& rec,
              std::uint64_t cycle);
  void global_access(WarpSlot& w, const WarpDeps& d, std::uint32_t base, const ptx::StepRecord& rec,
                     std::uint64_t cycle);
  void set_ready(WarpSlot& w, const WarpDeps& d, std::uint32_t base, std::uint64_t cycle,
                 bool from_memory);
  void retire_warp(std::uint32_t slot, std::uint64_t cycle);
  void wake(std::uint64_t cycle);
  void account_until(std::uint64_t cycle);

  std::uint32_t index_;
  const ArchConfig& arch_;
  const SmClock& clock_;  // shared by all SMs (PerfRecorder::sm_clock)
  EventQueue& events_;
  RequestPool& pool_;
  PerfRecorder& stats_;
  DepsCache& deps_;
  CtaSink& sink_;

  std::vector<WarpSlot> warps_;
  // A blocked warp is not looked at again before not_before_[slot] (kNever:
  // until its memory response or a barrier release clears it); blocked_ says why.
  std::vector<std::uint64_t> not_before_;
  std::vector<Stall> blocked_;
  std::vector<CtaSlot> ctas_;
  std::vector<std::vector<std::uint32_t>> scheduler_warps_;   // slots per scheduler, oldest first
  std::vector<std::uint32_t> last_issued_;                    // per scheduler, or ~0u
  std::vector<Stall> reason_;                                 // per scheduler, last cycle evaluated
  std::vector<std::array<std::uint64_t, kUnits>> pipe_free_;  // per scheduler and unit
  std::vector<std::uint64_t> tensor_free_;  // per scheduler: its tensor core's wgmma queue ends
  // The cycles `flops` of tensor work keep a sub-partition's tensor core busy at rates `r` for
  // the instruction's input type; 0 where the rate is 0.
  std::uint64_t tensor_cycles(const SmConfig::TensorRates& r, const WarpDeps& d,
                              std::uint64_t flops) const;
  // The cycles a wgmma of this warp's share keeps its sub-partition's tensor core busy.
  std::uint64_t wgmma_cycles(const WarpDeps& d) const;
  // wgmma issue: queues mma_async on the tensor core, closes a group, retires waited groups.
  void issue_wgmma(WarpSlot& w, const WarpDeps& d, std::uint32_t scheduler, std::uint64_t cycle);
  std::uint64_t lsu_free_ = 0;
  std::uint64_t dsmem_free_ = 0;  // the SM's port to the SM-to-SM network is busy until then
  // An access to this CTA's shared memory, through its banks.
  void own_shared_access(WarpSlot& w, const WarpDeps& d, std::uint32_t base,
                         const ptx::StepRecord& rec, std::uint64_t cycle);
  // An access to shared::cluster memory: to another CTA's, over the SM-to-SM network.
  void cluster_shared_access(WarpSlot& w, const WarpDeps& d, std::uint32_t base,
                             const ptx::StepRecord& rec, std::uint64_t cycle);

  // The Tensor Memory Accelerator (sm_tma.cpp): bulk copies split into line requests that go
  // past L1, at most tma.outstanding reads in flight; a copy's mbarrier transactions complete
  // when its last line arrived.
  struct TmaCopy;
  struct TmaLine {
    std::uint64_t line = 0;
    std::uint32_t sectors = 0;
    TmaCopy* copy = nullptr;  // null: a write, which nobody waits for
  };
  void bulk_copy(WarpSlot& w, const ptx::StepRecord& rec, std::uint64_t cycle);
  void tma_send(std::uint64_t cycle);
  void tma_arrived(TmaCopy* copy, std::uint64_t cycle);
  void tma_forget(ptx::Executor::Cta* cta);
  std::deque<TmaLine> tma_queue_;
  std::vector<std::unique_ptr<TmaCopy>> tma_copies_;  // in flight
  std::uint32_t tma_in_flight_ = 0;
  std::uint64_t tma_next_ = 0;  // the engine's next line request may go out from this cycle
  std::uint32_t resident_ctas_ = 0, used_warps_ = 0, used_registers_ = 0, used_shared_ = 0;
  std::uint64_t age_ = 0;
  std::uint64_t evaluated_ = 0;  // cycles before this one are accounted
  bool scheduled_ = false;       // a tick is in the calendar for scheduled_cycle_
  std::uint64_t scheduled_cycle_ = 0;
  std::uint64_t generation_ = 0;  // ticks of older generations were superseded
  bool running_ = false;          // inside run_from: wakes are collected, not scheduled
  std::uint64_t pending_wake_ = UINT64_MAX;
  ptx::StepRecord record_;
  std::vector<std::unique_ptr<LoadTracker>> tracker_storage_;
  std::vector<LoadTracker*> free_trackers_;
};

}  // namespace cnuas::gpu
