// Grids, CTAs and warps; the SIMT stack, calls, barriers and the dispatch of
// each instruction to its group.
#include "ptx/executor.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <ostream>
#include <stdexcept>
#include <utility>

#include "cycle_watch.h"
#include "exec_state.h"
#include "fast_paths.h"
#include "lanes.h"
#include "launch_replay.h"
#include "printf.h"

namespace cnuas::ptx {

// --- LoadedModule -------------------------------------------------------------

LoadedModule::LoadedModule(std::shared_ptr<const Module> module, DeviceMemory& memory)
    : module_(std::move(module)) {
  static std::atomic<std::uint64_t> next_serial{1};
  serial_ = next_serial++;
  const auto& vars = module_->variables;
  addresses_.assign(vars.size(), 0);
  for (std::size_t i = 0; i < vars.size(); ++i) {
    const Variable& v = vars[i];
    if (v.space != Space::Global && v.space != Space::Const) continue;
    addresses_[i] =
        memory.allocate(std::max<std::uint64_t>(v.size, 1), std::max<std::uint64_t>(v.align, 16));
    if (!v.init.empty()) memory.write(addresses_[i], v.init.data(), v.init.size());
  }
  // Initializers that hold the address of another variable.
  for (std::size_t i = 0; i < vars.size(); ++i)
    for (const auto& [offset, name] : vars[i].address_init) {
      std::uint64_t target = 0;
      for (std::size_t j = 0; j < vars.size(); ++j)
        if (vars[j].name == name) target = addresses_[j];
      if (auto f = module_->function_index.find(name); f != module_->function_index.end())
        target = function_address(f->second);  // a function pointer table or a vtable
      memory.write(addresses_[i] + offset, &target, 8);
    }
}

std::uint64_t LoadedModule::symbol_address(const std::string& name) const {
  const auto& vars = module_->variables;
  for (std::size_t i = 0; i < vars.size(); ++i)
    if (vars[i].name == name && (vars[i].space == Space::Global || vars[i].space == Space::Const))
      return addresses_[i];
  throw std::invalid_argument("no .global or .const variable named '" + name + "'");
}

// --- operands -----------------------------------------------------------------

std::uint64_t Ctx::symbol_value(const Operand& o, unsigned) const {
  const Function& f = *frame.fn;
  switch (o.symbol_kind) {
    case SymbolKind::Global:
    case SymbolKind::Const:
      return s.module->variable_address(static_cast<std::size_t>(o.symbol));
    case SymbolKind::Shared:
      if (o.symbol < 0) return s.dynamic_shared_base;
      if (o.symbol & kEntrySharedBit)
        return f.entry_shared_base + static_cast<std::uint64_t>(o.symbol & ~kEntrySharedBit);
      return static_cast<std::uint64_t>(o.symbol);
    case SymbolKind::Local:
      return frame.stack_base + locals_offset(f) + static_cast<std::uint64_t>(o.symbol);
    case SymbolKind::KernelParam:
      return static_cast<std::uint64_t>(o.symbol);
    case SymbolKind::FuncParam:
      return frame.stack_base + static_cast<std::uint64_t>(o.symbol);
    case SymbolKind::CallParam:
      return frame.stack_base + call_params_offset(f) + static_cast<std::uint64_t>(o.symbol);
    case SymbolKind::Function:
      return function_address(static_cast<std::size_t>(o.symbol));
  }
  return 0;
}

std::uint64_t Ctx::special(const Operand& o, unsigned lane) const {
  const LaunchConfig& cfg = *s.config;
  auto pick = [&](Dim3 d) -> std::uint64_t {
    return o.component == 0 ? d.x : o.component == 1 ? d.y : d.z;
  };
  const std::uint32_t bit = 1u << lane;
  switch (o.special) {
    case SpecialReg::Tid:
      return pick(s.thread_of(w, lane));
    case SpecialReg::Ntid:
      return pick(cfg.block);
    case SpecialReg::Ctaid:
      return pick(s.cta);
    case SpecialReg::Nctaid:
      return pick(cfg.grid);
    case SpecialReg::Laneid:
      return lane;
    case SpecialReg::Warpid:
      return w.index;
    case SpecialReg::Nwarpid:
      return 64;
    case SpecialReg::Smid:
      if (s.sm != ~0u) return s.sm;
      return (s.cta.x + cfg.grid.x * (s.cta.y + std::uint64_t{cfg.grid.y} * s.cta.z)) %
             cfg.sm_count;
    case SpecialReg::Nsmid:
      return cfg.sm_count;
    case SpecialReg::Gridid:
      return 1;
    case SpecialReg::LanemaskEq:
      return bit;
    case SpecialReg::LanemaskLe:
      return (bit << 1) - 1;
    case SpecialReg::LanemaskLt:
      return bit - 1;
    case SpecialReg::LanemaskGe:
      return ~(bit - 1) & 0xffffffffu;
    case SpecialReg::LanemaskGt:
      return ~((bit << 1) - 1) & 0xffffffffu;
    case SpecialReg::Clock:
      return s.clock & 0xffffffffu;
    case SpecialReg::Clock64:
      return s.clock;
    case SpecialReg::Globaltimer:
      return s.clock * 1000;
    case SpecialReg::DynamicSmemSize:
      return cfg.dynamic_shared_bytes;
    case SpecialReg::TotalSmemSize:
      return s.shared.size();
    case SpecialReg::ClusterCtaid: {
      const Dim3 d = s.cluster->dims;
      return pick({s.cta.x % d.x, s.cta.y % d.y, s.cta.z % d.z});
    }
    case SpecialReg::ClusterNctaid:
      return pick(s.cluster->dims);
    case SpecialReg::ClusterCtarank:
      return s.rank;
    case SpecialReg::ClusterNctarank:
      return s.cluster->dims.count();
    case SpecialReg::Clusterid: {
      const Dim3 d = s.cluster->dims;
      return pick({s.cta.x / d.x, s.cta.y / d.y, s.cta.z / d.z});
    }
    case SpecialReg::Nclusterid: {
      const Dim3 d = s.cluster->dims;
      return pick({cfg.grid.x / d.x, cfg.grid.y / d.y, cfg.grid.z / d.z});
    }
    case SpecialReg::IsExplicitCluster:
      return s.cluster->dims.count() > 1;
    case SpecialReg::Envreg:
      return cfg.envreg[o.component];
  }
  return 0;
}

void Ctx::special_lanes(const Operand& o, std::uint64_t* out) const {
  switch (o.special) {
    case SpecialReg::Tid: {
      // Lane by lane from lane 0's index, without a division per lane.
      const Dim3 b = s.config->block;
      Dim3 t = s.thread_of(w, 0);
      for (unsigned l = 0; l < 32; ++l) {
        out[l] = o.component == 0 ? t.x : o.component == 1 ? t.y : t.z;
        if (++t.x == b.x) {
          t.x = 0;
          if (++t.y == b.y) t.y = 0, ++t.z;
        }
      }
      return;
    }
    case SpecialReg::Laneid:
    case SpecialReg::LanemaskEq:
    case SpecialReg::LanemaskLe:
    case SpecialReg::LanemaskLt:
    case SpecialReg::LanemaskGe:
    case SpecialReg::LanemaskGt:
      for (unsigned l = 0; l < 32; ++l) out[l] = special(o, l);
      return;
    default: {  // the same in every lane of the warp
      const std::uint64_t v = special(o, 0);
      for (unsigned l = 0; l < 32; ++l) out[l] = v;
      return;
    }
  }
}

const std::uint64_t* Ctx::src_filled(const Operand& o, std::uint64_t* scratch) {
  switch (o.kind) {
    case Operand::Kind::Reg:
      if (o.component) {  // !p
        const std::uint64_t* p = reg(o.reg);
        for (unsigned l = 0; l < 32; ++l) scratch[l] = p[l] ? 0 : 1;
        return scratch;
      }
      return reg(o.reg);
    case Operand::Kind::Imm:
      for (unsigned l = 0; l < 32; ++l) scratch[l] = static_cast<std::uint64_t>(o.imm);
      return scratch;
    case Operand::Kind::Special:
      special_lanes(o, scratch);
      return scratch;
    case Operand::Kind::Symbol: {
      const std::uint64_t v = symbol_value(o, 0);
      for (unsigned l = 0; l < 32; ++l) scratch[l] = v;
      return scratch;
    }
    default:
      for (unsigned l = 0; l < 32; ++l) scratch[l] = 0;
      return scratch;
  }
}

UnitClass unit_class(const Instruction& i) {
  switch (i.op) {
    case Opcode::ld:
    case Opcode::st:
    case Opcode::ldu:
    case Opcode::atom:
    case Opcode::red:
    case Opcode::cp:
    case Opcode::prefetch:
    case Opcode::prefetchu:
    case Opcode::ldmatrix:
    case Opcode::stmatrix:
    case Opcode::suld:
    case Opcode::sust:
    case Opcode::tex:
    case Opcode::tld4:
      return UnitClass::Memory;
    case Opcode::bra:
    case Opcode::brx:
    case Opcode::call:
    case Opcode::ret:
    case Opcode::exit:
    case Opcode::trap:
      return UnitClass::Control;
    case Opcode::bar:
    case Opcode::barrier:
    case Opcode::membar:
    case Opcode::fence:
    case Opcode::mbarrier:
      return UnitClass::Sync;
    case Opcode::wmma:  // wmma.load and wmma.store move a tile through the LSU
      return i.matrix.kind == MatrixOp::Kind::Load || i.matrix.kind == MatrixOp::Kind::Store
                 ? UnitClass::Memory
                 : UnitClass::Tensor;
    case Opcode::mma:
    case Opcode::wgmma:
      return UnitClass::Tensor;
    case Opcode::sin:
    case Opcode::cos:
    case Opcode::ex2:
    case Opcode::lg2:
    case Opcode::rsqrt:
    case Opcode::tanh:
      return UnitClass::Sfu;
    case Opcode::rcp:
    case Opcode::sqrt:
      return i.type == Type::F64 ? UnitClass::Fp64 : UnitClass::Sfu;
    default:
      if (i.type == Type::F64) return UnitClass::Fp64;
      if (is_float(i.type)) return UnitClass::Fp32;
      return UnitClass::Int;
  }
}

// --- CTA ------------------------------------------------------------------------

namespace {

std::uint32_t live_threads(const Executor::Cta::State& s) {
  std::uint32_t n = 0;
  for (const Warp& w : s.warps) n += lane_count(w.valid & ~w.exited);
  return n;
}

void check_barrier(Executor::Cta::State& s, std::uint32_t id) {
  const std::uint32_t expected = s.bar_expected[id] ? s.bar_expected[id] : live_threads(s);
  if (s.arrived[id] < expected || s.arrived[id] == 0) return;
  for (Warp& w : s.warps) {
    w.counted[id] = 0;
    if (!w.held || w.barrier_id != id) continue;
    for (SimtEntry& e : w.simt) e.held = false;
    w.held = 0;
    w.waiting = false;
    if (w.bar_inst) {  // bar.red: every waiting thread gets the CTA-wide result
      const Instruction& i = *w.bar_inst;
      const std::uint64_t n = s.bar_red[id];
      const std::uint64_t v = i.mode == Mode::Popc ? n : i.mode == Mode::And ? n == 0 : n != 0;
      const Operand& d = i.ops[0];
      if (d.kind == Operand::Kind::Reg)
        each_lane(w.bar_mask, [&](unsigned l) {
          w.regs[(w.frames.back().reg_base + static_cast<std::uint32_t>(d.reg)) * 32u + l] = v;
        });
      w.bar_inst = nullptr;
      w.bar_mask = 0;
    }
  }
  s.arrived[id] = 0;
  s.bar_red[id] = 0;
  s.bar_expected[id] = 0;
  ++s.barrier_releases;
}

// The cluster barrier completes its phase when every live thread of every CTA
// in the cluster has arrived; then the warps waiting for that phase go on.
void check_cluster_barrier(ClusterState& cl) {
  if (cl.arrived == 0) return;  // nobody waits (most calls: a warp's lanes exiting)
  std::uint32_t live = 0;
  for (const Executor::Cta::State* m : cl.members) live += live_threads(*m);
  if (cl.arrived < live) return;
  cl.arrived = 0;
  ++cl.phase;
  for (Executor::Cta::State* m : cl.members)
    for (Warp& w : m->warps)
      if (w.waiting && w.barrier_id == Executor::Cta::State::kClusterBarrier &&
          w.cluster_target <= cl.phase)
        w.waiting = false;
}

void exit_lanes(Executor::Cta::State& s, Warp& w, std::uint32_t lanes) {
  lanes &= ~w.exited;
  // A warp arrives at a barrier with a thread count for all its threads (see
  // the bar case of step_state): lanes that leave after it arrived count too.
  for (std::uint32_t id = 0; id < 16; ++id)
    if (w.counted[id] && s.bar_expected[id]) {
      const std::uint32_t more = lanes & w.valid & ~w.counted[id];
      s.arrived[id] += lane_count(more);
      w.counted[id] |= more;
    }
  w.exited |= lanes;
  for (SimtEntry& e : w.simt) e.mask &= ~lanes;
  // Threads that leave may be the ones a barrier was waiting for.
  for (std::uint32_t id = 0; id < 16; ++id)
    if (s.arrived[id]) check_barrier(s, id);
  check_cluster_barrier(*s.cluster);
}

void copy_call_args(Ctx& c, const Instruction& i, const Function& callee, std::uint32_t new_base,
                    std::uint32_t lanes) {
  const Operand& args = i.ops[2];
  const Function& caller = *c.frame.fn;
  if (args.regs.size() != callee.params.size())
    c.fault(static_cast<unsigned>(__builtin_ctz(lanes)), i,
            "call passes " + std::to_string(args.regs.size()) + " arguments to '" + callee.name +
                "', which takes " + std::to_string(callee.params.size()));
  each_lane(lanes, [&](unsigned l) {
    std::uint8_t* stack = c.lane_stack(l);
    for (std::size_t a = 0; a < args.regs.size(); ++a) {
      const std::uint32_t from = c.frame.stack_base + call_params_offset(caller) +
                                 static_cast<std::uint32_t>(args.regs[a]);
      std::memmove(stack + new_base + callee.params[a].offset, stack + from, callee.params[a].size);
    }
  });
}

}  // namespace

Executor::Cta::Cta(std::unique_ptr<State> s) : s_(std::move(s)) {}
Executor::Cta::~Cta() = default;
std::size_t Executor::Cta::warp_count() const {
  return s_->warps.size();
}
bool Executor::Cta::warp_done(std::size_t w) const {
  return s_->warps[w].done();
}
bool Executor::Cta::warp_waiting(std::size_t w) const {
  return s_->warps[w].waiting;
}
const LaunchStats& Executor::Cta::stats() const {
  return s_->stats;
}
bool Executor::Cta::done() const {
  return std::all_of(s_->warps.begin(), s_->warps.end(), [](const Warp& w) { return w.done(); });
}

namespace {

using State = Executor::Cta::State;

// Pops finished SIMT entries and frames (returning from calls) until the warp
// has an instruction to issue; false when it has finished.
bool settle(State& s, Warp& w) {
  for (;;) {
    if (w.frames.size() > 1 && w.simt.size() == w.frames.back().simt_depth) {
      const Frame done = w.frames.back();
      w.frames.pop_back();
      const Frame& caller = w.frames.back();
      // Return values: callee's return params into the caller's call parameters.
      const Operand& rets = done.call->ops[0];
      const std::uint32_t lanes = w.simt.empty() ? 0 : w.simt.back().mask & ~w.exited;
      each_lane(lanes, [&](unsigned l) {
        std::uint8_t* stack = w.stack.data() + static_cast<std::size_t>(l) * s.config->stack_bytes;
        for (std::size_t r = 0; r < rets.regs.size() && r < done.fn->returns.size(); ++r)
          std::memmove(stack + caller.stack_base + call_params_offset(*caller.fn) +
                           static_cast<std::uint32_t>(rets.regs[r]),
                       stack + done.stack_base + done.fn->returns[r].offset,
                       done.fn->returns[r].size);
      });
      w.regs.resize(static_cast<std::size_t>(done.reg_base) * 32);
      continue;
    }
    if (w.simt.empty()) return false;
    SimtEntry& top = w.simt.back();
    if ((top.mask & ~w.exited) == 0 || top.pc == top.rpc) {
      w.simt.pop_back();
      continue;
    }
    if (top.held) w.waiting = true;  // the lanes that ran on have finished or wait too
    return true;
  }
}

// Lanes `arriving` of warp w wait at CTA barrier `id` (bar.sync, barrier.sync,
// bar.red). Threads are independent (as from Volta on): when other live lanes
// of the warp are not at the barrier, say parked at a reconvergence point on
// their way to exit, the waiting lanes are split off the SIMT stack, held, and
// the others run on until they finish or wait themselves. Within a device
// function the whole warp waits, as before.
void hold_at_barrier(Warp& w, std::uint32_t id, std::uint32_t arriving) {
  w.barrier_id = id;
  w.held |= arriving;
  const std::uint32_t others = w.valid & ~w.exited & ~w.held;
  if (others == 0 || w.frames.size() > 1) {
    w.simt.back().held = true;
    w.waiting = true;
    return;
  }
  std::vector<SimtEntry> split;
  split.reserve(w.simt.size() * 2);
  for (const SimtEntry& e : w.simt)
    if (e.mask & arriving) split.push_back({e.pc, e.rpc, e.mask & arriving, false});
  split.back().held = true;  // the arriving lanes' own entry, resuming after the barrier
  for (const SimtEntry& e : w.simt)
    if (e.mask & ~arriving) split.push_back({e.pc, e.rpc, e.mask & ~arriving, e.held});
  w.simt.swap(split);
  w.waiting = w.simt.back().held;
}

// A warp waiting at a barrier inside a device function cannot split off its
// other lanes (see hold_at_barrier). Those parked in the kernel's frame at a
// `ret` or `exit` have nothing left to do but leave, as they would on their
// own on the hardware; they leave now, so the barrier stops waiting for them.
void exit_lanes_bound_to_leave(State& s, Warp& w) {
  const std::size_t kernel_entries = w.frames[1].simt_depth;
  const Function& kernel = *w.frames[0].fn;
  std::uint32_t seen = 0, leaving = 0;
  for (std::size_t e = w.simt.size(); e-- > 0;) {
    const SimtEntry& entry = w.simt[e];
    const std::uint32_t first_seen = entry.mask & ~seen & ~w.exited;
    seen |= entry.mask;
    if (e >= kernel_entries || first_seen == 0) continue;
    const Instruction* next = entry.pc < kernel.code.size() ? &kernel.code[entry.pc] : nullptr;
    if (!next || (next->guard < 0 && (next->op == Opcode::ret || next->op == Opcode::exit)))
      leaving |= first_seen;
  }
  leaving &= ~w.held;
  if (leaving) exit_lanes(s, w, leaving);
}

// Runs one instruction in its group; false when no group runs it. The groups
// are tried in a fixed order, the first that handles an instruction runs it;
// the frequent opcodes go straight to their group, which the groups before it
// in that order are known to decline (integer declines memory, conversion,
// texture and float-typed arithmetic; float declines memory and texture).
bool execute(Ctx& c, const Instruction& i) {
  switch (i.op) {
    case Opcode::ld:
    case Opcode::ldu:
    case Opcode::st:
    case Opcode::atom:
    case Opcode::red:
      if (exec_memory(c, i)) return true;
      break;
    case Opcode::cvt:
      if (exec_convert(c, i)) return true;
      break;
    case Opcode::tex:
    case Opcode::tld4:
    case Opcode::suld:
    case Opcode::sust:
    case Opcode::txq:
    case Opcode::suq:
      if (exec_texture(c, i)) return true;
      break;
    case Opcode::mov:
    case Opcode::selp:
    case Opcode::slct:
      break;  // the integer group's, whatever the type
    default:
      if (is_float(i.type) && exec_float(c, i)) return true;
      break;
  }
  return exec_integer(c, i) || exec_float(c, i) || exec_convert(c, i) || exec_memory(c, i) ||
         exec_warp(c, i) || exec_matrix(c, i) || exec_mma(c, i) || exec_mbarrier(c, i) ||
         exec_texture(c, i) || exec_video(c, i) || exec_wgmma(c, i);
}

// A warp whose top SIMT entry can issue as it is: what settle() finds at once
// for most instructions, checked inline.
// The handler of every FastForm, from the group that owns it.
struct FastHandlers {
  FastHandler of[static_cast<std::size_t>(FastForm::Count)] = {};
  FastHandlers() {
    for (std::size_t f = 1; f < static_cast<std::size_t>(FastForm::Count); ++f) {
      const auto form = static_cast<FastForm>(f);
      of[f] = integer_fast_handler(form);
      if (!of[f]) of[f] = memory_fast_handler(form);
      if (!of[f]) of[f] = float_fast_handler(form);
      if (!of[f]) of[f] = convert_fast_handler(form);
      if (!of[f]) std::abort();  // a form without a handler: a programming error
    }
  }
};
const FastHandlers kFastHandlers;

// The gang handler of every FastForm that has one (null otherwise).
struct GangHandlers {
  GangHandler of[static_cast<std::size_t>(FastForm::Count)] = {};
  GangHandlers() {
    for (std::size_t f = 1; f < static_cast<std::size_t>(FastForm::Count); ++f) {
      const auto form = static_cast<FastForm>(f);
      of[f] = integer_gang_handler(form);
      if (!of[f]) of[f] = memory_gang_handler(form);
      if (!of[f]) of[f] = float_gang_handler(form);
      if (!of[f]) of[f] = convert_gang_handler(form);
    }
  }
};
const GangHandlers kGangHandlers;

// The lanes of `mask` that instruction i's guard lets run.
inline std::uint32_t guarded_lanes(const Warp& w, const Frame& frame, const Instruction& i,
                                   std::uint32_t mask) {
  if (i.guard < 0) return mask;
  const std::uint32_t g =
      nonzero_lanes(&w.regs[(frame.reg_base + static_cast<std::uint32_t>(i.guard)) * 32u]);
  return mask & (i.guard_negated ? ~g : g);
}

// Counts one warp instruction issued by w (its live lanes `mask`, `active` of
// them past the guard); faults at the instruction limit.
inline void count_issue(State& s, const Warp& w, const Instruction& i, std::uint32_t mask,
                        std::uint32_t active) {
  if (++s.stats.warp_instructions > s.limit)
    s.fault(w, static_cast<unsigned>(__builtin_ctz(mask)), i,
            "instruction limit of " + std::to_string(s.limit) +
                " warp instructions reached (a kernel that never ends? cnuas exec --kernel-limit "
                "sets the limit)");
  s.stats.thread_instructions += lane_count(active);
  ++s.clock;
}

inline bool settled(const Warp& w) {
  if (w.simt.empty()) return false;
  const SimtEntry& top = w.simt.back();
  return (top.mask & ~w.exited) != 0 && top.pc != top.rpc && !top.held &&
         (w.frames.size() == 1 || w.simt.size() != w.frames.back().simt_depth);
}

bool step_state(State& s, std::size_t wi, StepRecord* record) {
  Warp& w = s.warps[wi];
  if (w.waiting) return false;
  if (!settled(w) && (!settle(s, w) || w.waiting)) return false;
  SimtEntry& top = w.simt.back();
  const Frame& frame = w.frames.back();
  const Function& fn = *frame.fn;
  const std::uint32_t mask = top.mask & ~w.exited;
  if (top.pc >= fn.code.size()) {  // fell off the end: an implicit ret
    if (w.frames.size() == 1) {
      exit_lanes(s, w, mask);
    } else {
      for (std::size_t e = frame.simt_depth; e < w.simt.size(); ++e) w.simt[e].mask &= ~mask;
    }
    return true;
  }
  const std::uint32_t pc = top.pc;
  const Instruction& i = fn.code[pc];
  const std::uint32_t active = guarded_lanes(w, frame, i, mask);
  count_issue(s, w, i, mask, active);
  if (record) {
    record->pc = pc;
    record->active = active;
    record->inst = &i;
    record->unit = unit_class(i);
    record->space = Space::None;
    record->access_bytes = 0;
    record->bulk.clear();
    record->transactions.clear();
  }
  if (!i.unsupported.empty())
    s.fault(w, static_cast<unsigned>(__builtin_ctz(mask)), i, "not supported: " + i.unsupported);
  Ctx c{s, w, frame, active, record};
  if (i.fast != FastForm::None) {  // a frequent form: its handler directly (fast_paths.h)
    top.pc = pc + 1;
    if (active == 0) return true;
    kFastHandlers.of[static_cast<std::size_t>(i.fast)](c, i);
    if (__builtin_expect(s.config->observer != nullptr, 0))
      s.config->observer->executed(s.cta, w.index, active, fn, i,
                                   w.regs.data() + frame.reg_base * 32u);
    return true;
  }
  switch (i.op) {
    case Opcode::bra: {
      const std::uint32_t target = static_cast<std::uint32_t>(i.ops[0].imm);
      const std::uint32_t taken = active, fall = mask & ~active;
      if (fall == 0) {
        top.pc = target;
      } else if (taken == 0) {
        top.pc = pc + 1;
      } else {
        const std::uint32_t rpc = i.reconverge;
        top.pc = rpc;
        w.simt.push_back({pc + 1, rpc, fall});
        w.simt.push_back({target, rpc, taken});
      }
      return true;
    }
    case Opcode::brx: {
      const Operand& table = i.ops[1];
      const std::uint64_t* index = c.reg(i.ops[0].reg);
      std::vector<std::pair<std::uint32_t, std::uint32_t>> groups;  // target, lanes
      bool fault_lane = false;
      unsigned bad = 0;
      each_lane(active, [&](unsigned l) {
        const std::uint64_t k = index[l] & 0xffffffffu;
        if (k >= table.regs.size()) {
          fault_lane = true;
          bad = l;
          return;
        }
        const std::uint32_t t = static_cast<std::uint32_t>(table.regs[k]);
        auto g = std::find_if(groups.begin(), groups.end(), [&](auto& p) { return p.first == t; });
        if (g == groups.end())
          groups.push_back({t, 1u << l});
        else
          g->second |= 1u << l;
      });
      if (fault_lane) c.fault(bad, i, "brx.idx index beyond the branch table");
      const std::uint32_t rest = mask & ~active;
      if (groups.size() == 1 && rest == 0) {
        top.pc = groups[0].first;
        return true;
      }
      top.pc = i.reconverge;
      if (rest) w.simt.push_back({pc + 1, i.reconverge, rest});
      for (auto g = groups.rbegin(); g != groups.rend(); ++g)
        w.simt.push_back({g->first, i.reconverge, g->second});
      return true;
    }
    case Opcode::exit:
      top.pc = pc + 1;
      exit_lanes(s, w, active);
      return true;
    case Opcode::ret:
      top.pc = pc + 1;
      if (w.frames.size() == 1) {
        exit_lanes(s, w, active);
      } else {
        for (std::size_t e = frame.simt_depth; e < w.simt.size(); ++e) w.simt[e].mask &= ~active;
      }
      return true;
    case Opcode::trap:
    case Opcode::brkpt:
      if (active) s.fault(w, static_cast<unsigned>(__builtin_ctz(active)), i, "trap executed");
      top.pc = pc + 1;
      return true;
    case Opcode::call: {
      top.pc = pc + 1;
      if (!active) return true;
      std::size_t callee_index = static_cast<std::size_t>(i.ops[1].symbol);
      if (i.ops[1].kind == Operand::Kind::Reg) {
        // Through a function pointer: lanes that call different functions run one after another,
        // each group as a branch that reconverges after the call.
        const std::uint64_t* target = c.reg(i.ops[1].reg);
        const std::uint64_t first = target[__builtin_ctz(active)];
        std::uint32_t same = 0;
        each_lane(active, [&](unsigned l) { same |= (target[l] == first ? 1u : 0u) << l; });
        const std::size_t count = s.module->module().functions.size();
        const std::uint64_t offset = first - kFunctionAddressBase;
        if (first < kFunctionAddressBase || offset % 16 != 0 || offset / 16 >= count) {
          char address[24];
          std::snprintf(address, sizeof address, "0x%llx", static_cast<unsigned long long>(first));
          s.fault(w, static_cast<unsigned>(__builtin_ctz(active)), i,
                  std::string("indirect call through ") + address +
                      ", which is not the address of a function of this module");
        }
        if (same != active) {
          top.pc = pc + 1;
          w.simt.push_back({pc, pc + 1, active & ~same});
          w.simt.push_back({pc, pc + 1, same});
          return true;
        }
        callee_index = static_cast<std::size_t>(offset / 16);
      }
      const Function& callee = s.module->module().functions[callee_index];
      if (!callee.defined) {
        ++s.stats.builtin_calls;
        call_builtin(c, i, callee, *s.out);
        return true;
      }
      const std::uint32_t base = frame.stack_base + frame_bytes(fn);
      if (base + frame_bytes(callee) > s.config->stack_bytes)
        s.fault(w, static_cast<unsigned>(__builtin_ctz(active)), i,
                "call stack overflow: " + std::to_string(base + frame_bytes(callee)) +
                    " bytes per thread needed, stack_bytes is " +
                    std::to_string(s.config->stack_bytes));
      if (w.stack.empty()) w.stack.assign(static_cast<std::size_t>(s.config->stack_bytes) * 32, 0);
      copy_call_args(c, i, callee, base, active);
      const std::uint32_t reg_base = static_cast<std::uint32_t>(w.regs.size() / 32);
      w.regs.resize(w.regs.size() + callee.registers.size() * 32, 0);
      w.frames.push_back({&callee, reg_base, base, pc + 1, w.simt.size(), &i});
      w.simt.push_back({0, ~0u, active});
      return true;
    }
    case Opcode::bar:
    case Opcode::barrier: {
      top.pc = pc + 1;
      if (i.mode == Mode::ClusterArrive || i.mode == Mode::ClusterWait) {
        ClusterState& cl = *s.cluster;
        if (i.mode == Mode::ClusterArrive) {
          w.cluster_target = cl.phase + 1;
          cl.arrived += lane_count(active);
          check_cluster_barrier(cl);
        } else if (cl.phase < w.cluster_target) {
          if (w.held)
            s.fault(w, static_cast<unsigned>(__builtin_ctz(mask)), i,
                    "not supported: lanes of one warp waiting at a CTA barrier and the cluster "
                    "barrier");
          w.waiting = true;
          w.barrier_id = State::kClusterBarrier;
        }
        return true;
      }
      if (i.mode == Mode::Uni) return true;  // bar.warp.sync: a warp runs in lockstep here
      std::uint64_t sa[32], sb[32];
      const bool red = i.has(kRed);
      const Operand& id_op = i.ops[red ? 1 : 0];
      const std::uint32_t id = static_cast<std::uint32_t>(c.src(id_op, sa)[__builtin_ctz(mask)]);
      if (id >= 16)
        s.fault(w, static_cast<unsigned>(__builtin_ctz(mask)), i, "barrier id must be 0..15");
      const std::size_t count_index = red ? 2 : 1;
      const bool has_count = red ? i.nops == 4 : i.nops == 2;
      if (has_count) {
        s.bar_expected[id] =
            static_cast<std::uint32_t>(c.src(i.ops[count_index], sb)[__builtin_ctz(mask)]);
        // With a thread count a warp arrives for all its threads, as barriers
        // count warps on the hardware: its exited lanes count as arrived, once a phase.
        if (!w.counted[id]) {
          const std::uint32_t gone = w.exited & w.valid;
          s.arrived[id] += lane_count(gone);
          w.counted[id] = gone;
        }
        w.counted[id] |= active;
      }
      if (red) {
        const std::uint64_t* p = c.src(i.ops[i.nops - 1], sb);
        each_lane(active, [&](unsigned l) {
          const bool v = i.ops[i.nops - 1].component ? p[l] : p[l] != 0;
          if (i.mode == Mode::Popc)
            s.bar_red[id] += v;
          else if (i.mode == Mode::And)
            s.bar_red[id] += !v;  // counts false lanes
          else
            s.bar_red[id] += v;
        });
        if (w.bar_inst && w.bar_inst != &i)
          s.fault(w, static_cast<unsigned>(__builtin_ctz(active)), i,
                  "not supported: divergent lanes of one warp waiting at two different bar.red");
        w.bar_inst = &i;
        w.bar_mask |= active;
      }
      s.arrived[id] += lane_count(active);
      if (!i.has(kArrive)) {
        if (w.held && w.barrier_id != id)
          s.fault(w, static_cast<unsigned>(__builtin_ctz(active)), i,
                  "not supported: divergent lanes of one warp waiting at barriers " +
                      std::to_string(w.barrier_id) + " and " + std::to_string(id));
        hold_at_barrier(w, id, active);
        if (w.frames.size() > 1 && !has_count) exit_lanes_bound_to_leave(s, w);
      }
      check_barrier(s, id);
      return true;
    }
    case Opcode::membar:
    case Opcode::fence:
      // Host threads may share the memory (membar.sys, fence.sc.sys): order
      // this thread's accesses with theirs as the fence orders them.
      std::atomic_thread_fence(std::memory_order_seq_cst);
      top.pc = pc + 1;
      return true;
    case Opcode::nanosleep:
    case Opcode::prefetch:
    case Opcode::prefetchu:
    case Opcode::discard:
    case Opcode::applypriority:
    case Opcode::griddepcontrol:
    case Opcode::pmevent:
    case Opcode::setmaxnreg:
      top.pc = pc + 1;
      return true;
    default:
      break;
  }
  top.pc = pc + 1;
  if (active == 0) return true;
  if (execute(c, i)) {
    if (__builtin_expect(s.config->observer != nullptr, 0))
      s.config->observer->executed(s.cta, w.index, active, fn, i,
                                   w.regs.data() + frame.reg_base * 32u);
    return true;
  }
  s.fault(w, static_cast<unsigned>(__builtin_ctz(active)), i,
          std::string("not supported: ") + std::string(opcode_name(i.op)) + " in this form");
}

// --- Lock step: a CTA's warps issuing together.
//
// Most kernels keep a CTA's warps converged: all at one pc of the kernel with
// one SIMT entry each (no divergence, or only within a warp's own branch
// that has reconverged). Such warps can issue each instruction in turn, warp
// 0 to the last, and stay together; the per-instruction work of the warp loop
// (finding the warp's entry, its frame, the instruction, the checks) is then
// done once for the CTA, and a frequent form runs its handler for warp after
// warp directly. Instructions whose effects another thread can see in an
// order that matters (calls, printf among them, atomics, mbarriers,
// asynchronous copies) leave lock step, so those effects keep the order of
// warps running one at a time; plain loads and stores of race-free code see
// the same values in either order.

// Whether warps [first, end) of the CTA are converged at one pc of the
// kernel's frame.
bool together(const State& s, std::size_t first, std::size_t end) {
  const Warp& lead = s.warps[first];
  if (lead.simt.size() != 1) return false;
  const std::uint32_t pc = lead.simt[0].pc;
  for (std::size_t k = first; k < end; ++k) {
    const Warp& w = s.warps[k];
    if (w.simt.size() != 1 || w.frames.size() != 1 || w.waiting || w.yield) return false;
    const SimtEntry& e = w.simt[0];
    if (e.pc != pc || e.held || (e.mask & ~w.exited) == 0) return false;
  }
  return true;
}

// Whether every warp may issue i once, one after another, staying in lock step.
bool issues_together(const Instruction& i) {
  switch (i.op) {
    case Opcode::call:
    case Opcode::atom:
    case Opcode::red:
    case Opcode::sured:
    case Opcode::mbarrier:
    case Opcode::cp:
    case Opcode::multimem:
    case Opcode::trap:
    case Opcode::brkpt:
    case Opcode::nanosleep:
    case Opcode::alloca:
    case Opcode::stacksave:
    case Opcode::stackrestore:
    case Opcode::clusterlaunchcontrol:
    case Opcode::tcgen05:
    case Opcode::tensormap:
    case Opcode::wgmma:
      return false;
    case Opcode::bar:
    case Opcode::barrier:
      return i.mode != Mode::ClusterArrive && i.mode != Mode::ClusterWait;
    case Opcode::ld:
    case Opcode::st:
      return i.space != Space::SharedCluster;
    default:
      return true;
  }
}

// Warps that issue together: enough to pay the per-instruction work once for
// several, few enough that their registers (8-16 KiB per warp in a typical
// kernel) stay in the host's caches between instructions. Measured on the
// accumulate benchmark: 4, 8 and 16 within 3 % of each other, 2 clearly slower.
constexpr std::size_t kGang = kMaxGang;
constexpr std::size_t kMaxWarpsPerCta = 32;  // 1024 threads (launch checks the shape)

// A branch every live lane of warps [first, end) takes, or none does: each
// warp goes the one way, as step_state would send it, and they stay
// together. False (nothing issued) when the lanes disagree.
bool branch_together(State& s, std::size_t first, std::size_t end, const Instruction& i,
                     std::uint32_t pc) {
  bool taken = false;
  for (std::size_t k = first; k < end; ++k) {
    const Warp& w = s.warps[k];
    const std::uint32_t mask = w.simt[0].mask & ~w.exited;
    const std::uint32_t active = guarded_lanes(w, w.frames[0], i, mask);
    if (active != 0 && active != mask) return false;
    if (k == first) taken = active != 0;
    if (taken != (active != 0)) return false;
  }
  const std::uint32_t next = taken ? static_cast<std::uint32_t>(i.ops[0].imm) : pc + 1;
  for (std::size_t k = first; k < end; ++k) {
    Warp& w = s.warps[k];
    const std::uint32_t mask = w.simt[0].mask & ~w.exited;
    count_issue(s, w, i, mask, taken ? mask : 0);
    w.simt[0].pc = next;
  }
  return true;
}

// Every lane of warps [first, end) live, and each warp's frame registers;
// both stay as they are while the gang runs fast forms.
bool gang_rows(State& s, std::size_t first, std::size_t end, std::uint64_t** regs) {
  bool full = true;
  for (std::size_t k = first; k < end; ++k) {
    Warp& w = s.warps[k];
    full = full && (w.simt[0].mask & ~w.exited) == ~0u;
    regs[k - first] = w.regs.data() + std::size_t{w.frames[0].reg_base} * 32;
  }
  return full;
}

// Runs warps [first, end) in lock step while they stay together, for at most
// `budget` instructions each; how many each issued (0: nothing).
unsigned run_gang(State& s, std::size_t first, std::size_t end, unsigned budget) {
  if (!together(s, first, end)) return 0;
  const Function& fn = *s.warps[first].frames[0].fn;
  std::uint64_t* regs[kGang];
  Ctx lead{s, s.warps[first], s.warps[first].frames[0], ~0u, nullptr};
  const Gang gang{regs, end - first, &lead};
  bool full = gang_rows(s, first, end, regs);
  // The gang's pc; the warps' own are stored only before anything but a gang
  // handler runs (each warp's SIMT entry is a cache line of its own).
  std::uint32_t pc = s.warps[first].simt[0].pc;
  bool behind = false;
  const auto store_pc = [&] {
    if (!behind) return;
    for (std::size_t k = first; k < end; ++k) s.warps[k].simt[0].pc = pc;
    behind = false;
  };
  unsigned n = 0;
  for (; n < budget; ++n) {
    if (pc >= fn.code.size()) break;
    const Instruction& i = fn.code[pc];
    if (i.fast != FastForm::None) {  // (never set on an unsupported form)
      // Unguarded, every lane active, below the instruction limit: the form's
      // gang handler when it has one and takes these operands.
      const GangHandler all = kGangHandlers.of[static_cast<std::size_t>(i.fast)];
      if (all && full && i.guard < 0 && s.stats.warp_instructions + gang.n <= s.limit &&
          all(gang, i)) {
        s.stats.warp_instructions += gang.n;
        s.stats.thread_instructions += 32 * gang.n;
        s.clock += gang.n;  // nothing in between reads it: no operand is %clock
        ++pc;
        behind = true;
        continue;
      }
      const FastHandler handler = kFastHandlers.of[static_cast<std::size_t>(i.fast)];
      for (std::size_t k = first; k < end; ++k) {
        Warp& w = s.warps[k];
        SimtEntry& top = w.simt[0];
        const Frame& frame = w.frames[0];
        const std::uint32_t mask = top.mask & ~w.exited;
        const std::uint32_t active = guarded_lanes(w, frame, i, mask);
        count_issue(s, w, i, mask, active);
        top.pc = pc + 1;
        if (active == 0) continue;
        Ctx c{s, w, frame, active, nullptr};
        handler(c, i);
      }
      ++pc;
      behind = false;
      continue;
    }
    store_pc();
    if (i.op == Opcode::bra && i.unsupported.empty() && branch_together(s, first, end, i, pc)) {
      pc = s.warps[first].simt[0].pc;
      continue;
    }
    if (!issues_together(i)) break;
    for (std::size_t k = first; k < end; ++k) step_state(s, k, nullptr);
    if (!together(s, first, end)) return n + 1;
    pc = s.warps[first].simt[0].pc;
    full = gang_rows(s, first, end, regs);
  }
  store_pc();
  return n;
}

// Runs the CTA's warps gang by gang in lock step; false when nothing was
// issued. `spent` (when given) holds each warp's instructions issued so far
// in the round: a gang runs for what is left of `budget`, and adds to it.
bool run_together(State& s, unsigned budget, unsigned* spent = nullptr) {
  if (s.config->observer) return false;  // an observer sees warps run one at a time
  bool issued = false;
  for (std::size_t first = 0; first < s.warps.size(); first += kGang) {
    const std::size_t end = std::min(first + kGang, s.warps.size());
    const unsigned used = spent ? *std::max_element(spent + first, spent + end) : 0;
    if (used >= budget) continue;
    const unsigned n = run_gang(s, first, end, budget - used);
    issued |= n > 0;
    if (spent)
      for (std::size_t k = first; k < end; ++k) spent[k] += n;
  }
  return issued;
}

}  // namespace

bool Executor::Cta::step(std::size_t wi, StepRecord* record) {
  return step_state(*s_, wi, record);
}

const Instruction* Executor::Cta::next_instruction(std::size_t wi) {
  Warp& w = s_->warps[wi];
  if (!settle(*s_, w)) return nullptr;
  const Function& fn = *w.frames.back().fn;
  const std::uint32_t pc = w.simt.back().pc;
  return pc < fn.code.size() ? &fn.code[pc] : nullptr;
}

std::uint32_t Executor::Cta::register_base(std::size_t wi) const {
  const Warp& w = s_->warps[wi];
  return w.frames.empty() ? 0 : w.frames.back().reg_base;
}

Dim3 Executor::Cta::cta_id() const {
  return s_->cta;
}

void Executor::Cta::set_clock(std::uint64_t cycle) {
  s_->clock = cycle;
}

void Executor::Cta::set_sm(std::uint32_t sm) {
  s_->sm = sm;
}

std::uint32_t Executor::Cta::cluster_rank() const {
  return s_->rank;
}

std::uint32_t Executor::Cta::cluster_size() const {
  return static_cast<std::uint32_t>(s_->cluster->members.size());
}

std::uint32_t Executor::Cta::rank_of_shared_cluster_address(std::uint64_t a) const {
  if (a >= kClusterWindow && a < kClusterWindow + 16 * kWindowSize)
    return static_cast<std::uint32_t>((a - kClusterWindow) / kWindowSize);
  const std::uint64_t tag = (a & 0xffffffffu) >> kClusterRankShift;
  return tag == 0 ? s_->rank : static_cast<std::uint32_t>(tag - 1);
}

void Executor::Cta::complete_transaction(std::uint32_t rank, std::uint64_t offset,
                                         std::uint64_t bytes) {
  mbarrier_complete_tx_at(*s_->cluster->members.at(rank), offset, bytes);
}

// Warp instructions a warp issues before the next warp gets a turn.
constexpr unsigned kQuantum = 1u << 14;

namespace {

// Runs a cluster's CTAs (often just one) to completion, their warps in turn.
//
// A group is stuck only when provably nothing can change any more. Rounds in
// which no warp issued anything (all wait at barriers) are stuck at once. For
// rounds in which every live warp failed an mbarrier wait (or waits at a
// barrier) the group's whole state is compared with the one the previous such
// round ended in: the engine is deterministic and has no operation in flight
// (copies complete at issue), so if nothing differs and no global memory was
// written, every later round repeats this one. Spin loops whose state changes
// (counters, %clock) keep running, up to the instruction limit.
class GroupRun {
 public:
  // `watch`: also prove when the group cycles through the same states without
  // writing memory (cycling()), which only something outside it can end.
  explicit GroupRun(unsigned quantum, bool watch = false) : quantum_(quantum), watch_(watch) {}
  // One round: every warp of every CTA gets a turn. Faults the group when it
  // can never make progress. True when every CTA has finished.
  bool round(const std::vector<State*>& ctas);
  // The group's members changed: earlier stalled rounds say nothing any more.
  void members_changed() {
    have_before_ = false;
    cycle_.reset();
  }
  bool cycling() const { return cycling_; }

 private:
  unsigned quantum_;
  bool watch_, cycling_ = false;
  CycleWatch cycle_;
  std::vector<std::uint8_t> before_, after_;  // the group's state after consecutive stalled rounds
  bool have_before_ = false;
};

// The instruction a live warp issued last (where a fault that stops it is named).
const Instruction& last_issued(const Warp& w) {
  const Function& fn = *w.frames.back().fn;
  return fn
      .code[std::min<std::size_t>(w.simt.back().pc ? w.simt.back().pc - 1 : 0, fn.code.size() - 1)];
}

bool GroupRun::round(const std::vector<State*>& ctas) {
  bool progress = false, all_done = true, all_yielded = true, any_yielded = false;
  std::uint64_t writes = 0, issued = 0;
  for (const State* s : ctas) {
    writes += s->global_writes;
    issued += s->stats.warp_instructions;
  }
  for (State* sp : ctas) {
    State& s = *sp;
    // The quantum a warp used in lock step counts: a gang that ran its whole
    // quantum leaves its warps nothing to run alone this round (they stay
    // together for the next one).
    unsigned spent[kMaxWarpsPerCta] = {};
    // Again while some gang issues: the last gang to reach a barrier releases
    // the earlier ones, which would otherwise run to the next one a warp at a
    // time (a third of a 32-warp tiled matrix product's instructions did).
    while (run_together(s, quantum_, spent)) progress = true;
    for (std::size_t w = 0; w < s.warps.size(); ++w) {
      // A warp runs until it finishes, waits at a barrier, yields after a
      // failed mbarrier wait, or uses its quantum: spin loops on other warps'
      // progress (flags in shared memory) then terminate. A barrier it
      // completes may have brought the CTA's warps together again.
      const std::uint64_t releases = s.barrier_releases;
      for (unsigned quantum = spent[w]; quantum < quantum_ && step_state(s, w, nullptr);
           ++quantum) {
        progress = true;
        if (s.warps[w].yield) break;
        if (s.barrier_releases != releases) {
          run_together(s, quantum_);
          break;
        }
      }
      const bool yielded = s.warps[w].yield;
      s.warps[w].yield = false;
      any_yielded = any_yielded || yielded;
      if (!s.warps[w].done()) {
        all_done = false;
        if (!yielded && !s.warps[w].waiting) all_yielded = false;
      }
    }
  }
  std::uint64_t writes_after = 0, issued_after = 0;
  for (const State* s : ctas) {
    writes_after += s->global_writes;
    issued_after += s->stats.warp_instructions;
  }
  bool stuck = false;
  // Only a round in which some warp failed an mbarrier wait can be stuck: one
  // in which every warp merely reached a barrier (most rounds of a kernel that
  // synchronizes often) either completed it or leaves nothing to issue.
  if (all_yielded && any_yielded && !all_done && progress) {
    group_state_bytes(ctas, after_);
    ctas.front()->stats.state_bytes_compared += after_.size();
    stuck = have_before_ && writes == writes_after && after_ == before_;
    before_.swap(after_);
    have_before_ = true;
  } else {
    have_before_ = false;
  }
  for (const State* sp : ctas) {
    const State& s = *sp;
    for (const Warp& w : s.warps) {
      if (w.done()) continue;
      const Instruction& i = last_issued(w);
      const unsigned lane = static_cast<unsigned>(__builtin_ctz(w.simt.back().mask | 1u));
      if (stuck && !w.waiting)
        s.fault(w, lane, i, "every warp waits on an mbarrier phase that can never complete");
      if (!progress && w.barrier_id == State::kClusterBarrier)
        s.fault(w, lane, i, "the cluster barrier can never complete");
      if (!progress)
        s.fault(w, lane, i,
                "barrier " + std::to_string(w.barrier_id) + " can never complete: " +
                    std::to_string(s.arrived[w.barrier_id]) + " threads arrived, " +
                    std::to_string(s.bar_expected[w.barrier_id] ? s.bar_expected[w.barrier_id]
                                                                : live_threads(s)) +
                    " expected");
    }
  }
  if (watch_ && !all_done && progress)
    cycling_ = cycle_.after_round(ctas, issued_after - issued, writes_after != writes);
  return all_done;
}

// A group proven to cycle (GroupRun::cycling) with nothing left to suspend it
// into: named at the first live warp's instruction.
[[noreturn]] void fault_cycling(const std::vector<State*>& ctas) {
  for (const State* sp : ctas)
    for (const Warp& w : sp->warps) {
      if (w.done()) continue;
      // The instruction it issues next: inside the loop it repeats (the one it
      // issued last may be the branch into it).
      const Function& fn = *w.frames.back().fn;
      const Instruction& next =
          fn.code[std::min<std::size_t>(w.simt.back().pc, fn.code.size() - 1)];
      sp->fault(w, static_cast<unsigned>(__builtin_ctz(w.simt.back().mask | 1u)), next,
                "the grid can never finish: its running CTAs repeat the same states and write "
                "no memory, so they wait for memory that nothing in the grid changes (a flag "
                "the host or other work should set?)");
    }
  throw std::logic_error("fault_cycling: no live warp");
}

void run_group(const std::vector<State*>& ctas, unsigned quantum = kQuantum) {
  GroupRun run(quantum);
  while (!run.round(ctas)) {
  }
}

}  // namespace

void Executor::Cta::run() {
  run_group({s_.get()});
}

// --- Executor -------------------------------------------------------------------

Executor::Executor(DeviceMemory& memory, std::ostream& printf_out)
    : memory_(memory), out_(printf_out), replay_(std::make_unique<LaunchReplay>(memory)) {}
Executor::~Executor() = default;

void Executor::set_launch_replay(bool on) {
  replay_->set_enabled(on);
}

std::uint64_t Executor::replayed_launches() const {
  return replay_->replayed();
}

namespace {

const Function& check_launch(const LoadedModule& module, const std::string& kernel,
                             const LaunchConfig& config) {
  const Function* f = module.module().find(kernel);
  if (!f || !f->is_entry || !f->defined)
    throw std::invalid_argument("no kernel (.entry) named '" + kernel + "' in " +
                                module.module().file);
  const std::uint64_t threads = config.block.count();
  if (threads == 0 || threads > 1024 || config.block.z > 64)
    throw std::invalid_argument("block " + std::to_string(config.block.x) + "x" +
                                std::to_string(config.block.y) + "x" +
                                std::to_string(config.block.z) +
                                " is not a valid CTA shape (1 to 1024 threads, z at most 64)");
  if (config.grid.count() == 0) throw std::invalid_argument("the grid has no CTAs");
  if (config.params.size() < f->param_bytes)
    throw std::invalid_argument("kernel '" + kernel + "' takes " + std::to_string(f->param_bytes) +
                                " parameter bytes; " + std::to_string(config.params.size()) +
                                " given");
  return *f;
}

// Prepares a CTA, reusing the storage of the previous one: a grid of many small
// CTAs would otherwise spend its time in the allocator.
void reset_cta(Executor::Cta::State& s, const Function& f, Dim3 cta_id) {
  const LaunchConfig& config = *s.config;
  s.kernel = &f;
  s.cta = cta_id;
  s.threads = static_cast<std::uint32_t>(config.block.count());
  s.dynamic_shared_base = align16(f.static_shared_bytes);
  s.shared.assign(s.dynamic_shared_base + config.dynamic_shared_bytes, 0);
  std::fill(std::begin(s.arrived), std::end(s.arrived), 0u);
  s.mbarrier_events = 0;
  std::fill(std::begin(s.bar_red), std::end(s.bar_red), 0u);
  std::fill(std::begin(s.bar_expected), std::end(s.bar_expected), 0u);
  const std::uint32_t warps = (s.threads + 31) / 32;
  s.warps.resize(warps);
  // Kernel parameters are read from the launch's buffer, so a kernel needs a
  // stack only for locals, call parameters, or the frames of what it calls.
  const bool calls = std::any_of(f.code.begin(), f.code.end(),
                                 [](const Instruction& i) { return i.op == Opcode::call; });
  const std::size_t stack = (f.local_bytes > 0 || f.call_param_bytes > 0 || calls)
                                ? std::size_t{config.stack_bytes} * 32
                                : 0;
  for (std::uint32_t wi = 0; wi < warps; ++wi) {
    Warp& w = s.warps[wi];
    w.index = wi;
    const std::uint32_t n = std::min<std::uint32_t>(32, s.threads - wi * 32);
    w.valid = n == 32 ? ~0u : (1u << n) - 1;
    w.exited = 0;
    w.waiting = false;
    w.yield = false;
    w.barrier_id = 0;
    w.held = 0;
    std::fill(std::begin(w.counted), std::end(w.counted), 0u);
    w.bar_inst = nullptr;
    w.bar_mask = 0;
    w.cluster_target = 0;
    std::fill(std::begin(w.carry), std::end(w.carry), std::uint8_t{0});
    // Registers read before written start at zero; the others keep what the
    // previous CTA left, never to be read (zeroing them all showed in profiles).
    w.regs.resize(f.registers.size() * 32);  // entries it adds are zero
    if (!f.zeroed_registers_known) {
      if (!w.regs.empty()) std::memset(w.regs.data(), 0, w.regs.size() * sizeof(w.regs[0]));
    } else {
      for (const std::uint32_t r : f.zeroed_registers)
        std::memset(&w.regs[std::size_t{r} * 32], 0, 32 * sizeof(w.regs[0]));
    }
    if (w.stack.size() != stack) w.stack.assign(stack, 0);
    w.frames.clear();
    w.frames.push_back({&f, 0, 0, 0, 0, nullptr});
    w.simt.clear();
    w.simt.push_back({0, ~0u, w.valid});
  }
}

}  // namespace

namespace {

// The cluster shape: the kernel's .reqnctapercluster, else the launch's.
Dim3 cluster_shape(const Function& f, const LaunchConfig& config, const std::string& kernel) {
  Dim3 d = config.cluster;
  if (f.cluster_dims[0] * f.cluster_dims[1] * f.cluster_dims[2] > 1)
    d = {f.cluster_dims[0], f.cluster_dims[1], f.cluster_dims[2]};
  const Dim3 g = config.grid;
  if (d.count() == 0 || d.count() > 16 || g.x % d.x || g.y % d.y || g.z % d.z)
    throw std::invalid_argument(
        "kernel '" + kernel + "': cluster " + std::to_string(d.x) + "x" + std::to_string(d.y) +
        "x" + std::to_string(d.z) + " must hold 1 to 16 CTAs and divide the grid " +
        std::to_string(g.x) + "x" + std::to_string(g.y) + "x" + std::to_string(g.z));
  return d;
}

// The CTA of rank r in the cluster at (cx, cy, cz) of clusters shaped cd.
Dim3 cta_in_cluster(std::uint32_t cx, std::uint32_t cy, std::uint32_t cz, Dim3 cd,
                    std::uint32_t r) {
  return {cx * cd.x + r % cd.x, cy * cd.y + (r / cd.x) % cd.y, cz * cd.z + r / (cd.x * cd.y)};
}

std::unique_ptr<State> new_state(const LoadedModule& module, const LaunchConfig& config,
                                 DeviceMemory& memory, std::ostream& out) {
  auto s = std::make_unique<State>();
  s->module = &module;
  s->config = &config;
  s->memory = &memory;
  s->out = &out;
  s->limit = config.instruction_limit ? config.instruction_limit : (1ull << 40);
  return s;
}

}  // namespace

std::unique_ptr<Executor::Cta> Executor::begin_cta(const LoadedModule& module,
                                                   const std::string& kernel,
                                                   const LaunchConfig& config, Dim3 cta_id,
                                                   std::unique_ptr<Cta> recycled) {
  const Function& f = check_launch(module, kernel, config);
  if (cluster_shape(f, config, kernel).count() > 1)
    throw std::invalid_argument("kernel '" + kernel +
                                "' runs in clusters of several CTAs: the step interface issues one "
                                "CTA at a time; use launch");
  std::unique_ptr<Cta> cta = reuse_or_new(module, config, std::move(recycled));
  State& s = *cta->s_;
  s.own_cluster->dims = {1, 1, 1};
  s.own_cluster->members = {&s};
  s.cluster = s.own_cluster.get();
  s.rank = 0;
  reset_cta(s, f, cta_id);
  return cta;
}

std::unique_ptr<Executor::Cta> Executor::reuse_or_new(const LoadedModule& module,
                                                      const LaunchConfig& config,
                                                      std::unique_ptr<Cta> recycled) {
  if (!recycled) recycled = std::make_unique<Cta>(new_state(module, config, memory_, out_));
  State& s = *recycled->s_;
  s.module = &module;
  s.config = &config;
  s.memory = &memory_;
  s.out = &out_;
  s.limit = config.instruction_limit ? config.instruction_limit : (1ull << 40);
  s.stats = LaunchStats{};
  s.clock = 0;
  s.sm = ~0u;
  if (!s.own_cluster) s.own_cluster = std::make_unique<ClusterState>();
  s.own_cluster->arrived = 0;
  s.own_cluster->phase = 0;
  return recycled;
}

Dim3 Executor::cluster_dims(const LoadedModule& module, const std::string& kernel,
                            const LaunchConfig& config) const {
  return cluster_shape(check_launch(module, kernel, config), config, kernel);
}

std::vector<std::unique_ptr<Executor::Cta>> Executor::begin_cluster(
    const LoadedModule& module, const std::string& kernel, const LaunchConfig& config,
    Dim3 cluster_id, std::vector<std::unique_ptr<Cta>> recycled) {
  const Function& f = check_launch(module, kernel, config);
  const Dim3 cd = cluster_shape(f, config, kernel);
  std::vector<std::unique_ptr<Cta>> ctas;
  for (std::uint32_t r = 0; r < cd.count(); ++r) {
    std::unique_ptr<Cta> reuse;
    if (r < recycled.size()) reuse = std::move(recycled[r]);
    ctas.push_back(reuse_or_new(module, config, std::move(reuse)));
  }
  // Rank 0's cluster state is the cluster's.
  ClusterState& cluster = *ctas[0]->s_->own_cluster;
  cluster.dims = cd;
  cluster.members.clear();
  for (std::uint32_t r = 0; r < cd.count(); ++r) {
    State& s = *ctas[r]->s_;
    s.cluster = &cluster;
    s.rank = r;
    cluster.members.push_back(&s);
    reset_cta(s, f, cta_in_cluster(cluster_id.x, cluster_id.y, cluster_id.z, cd, r));
  }
  return ctas;
}

namespace {

LaunchStats sum_stats(const std::vector<std::unique_ptr<State>>& states) {
  LaunchStats total;
  for (const auto& st : states) {
    total.warp_instructions += st->stats.warp_instructions;
    total.thread_instructions += st->stats.thread_instructions;
    total.ctas += st->stats.ctas;
    total.global_bytes += st->stats.global_bytes;
    total.builtin_calls += st->stats.builtin_calls;
    total.state_bytes_compared += st->stats.state_bytes_compared;
  }
  return total;
}

// A cooperative grid's CTAs are all resident at once, as the launch
// guarantees: they run as one group, their warps in turn, so that a CTA
// spinning on a grid barrier lets the others reach it. A short quantum keeps
// the spinning cheap.
constexpr unsigned kCooperativeQuantum = 64;

LaunchStats run_cooperative(const LoadedModule& module, const Function& f,
                            const LaunchConfig& config, Dim3 cd, DeviceMemory& memory,
                            std::ostream& out) {
  std::deque<ClusterState> clusters;
  std::vector<std::unique_ptr<State>> states;
  std::vector<State*> all;
  const Dim3 g = config.grid;
  for (std::uint32_t cz = 0; cz < g.z / cd.z; ++cz)
    for (std::uint32_t cy = 0; cy < g.y / cd.y; ++cy)
      for (std::uint32_t cx = 0; cx < g.x / cd.x; ++cx) {
        ClusterState& cluster = clusters.emplace_back();
        cluster.dims = cd;
        for (std::uint32_t r = 0; r < cd.count(); ++r) {
          states.push_back(new_state(module, config, memory, out));
          State& st = *states.back();
          st.cluster = &cluster;
          st.rank = r;
          cluster.members.push_back(&st);
          reset_cta(st, f, cta_in_cluster(cx, cy, cz, cd, r));
          ++st.stats.ctas;
          all.push_back(&st);
        }
      }
  run_group(all, kCooperativeQuantum);
  return sum_stats(states);
}

// The resident CTAs of a grid that can never finish by itself (they cycle,
// GroupRun::cycling), saved into `into` with the next CTA to begin; without
// `into` the grid faults. Returns what the saved CTAs do not carry.
LaunchStats suspend_grid(const std::vector<State*>& active, std::uint64_t next,
                         const std::vector<std::unique_ptr<State>>& slots, GridSnapshot* into) {
  if (!into) fault_cycling(active);
  into->next_cta = next;
  into->resident.clear();
  LaunchStats rest = sum_stats(slots);
  for (const State* st : active) {
    into->resident.push_back(save_cta_state(*st));
    rest.warp_instructions -= st->stats.warp_instructions;
    rest.thread_instructions -= st->stats.thread_instructions;
    rest.ctas -= st->stats.ctas;
    rest.global_bytes -= st->stats.global_bytes;
    rest.builtin_calls -= st->stats.builtin_calls;
  }
  rest.suspended = true;
  return rest;
}

// How long a CTA runs alone before the CTAs hardware would hold resident
// beside it join it: it may be waiting for one of them.
constexpr std::uint64_t kAloneBudget = std::uint64_t{1} << 24;  // warp instructions
constexpr unsigned kResidentQuantum = 1024;

bool cta_done(const State& s) {
  for (const Warp& w : s.warps)
    if (!w.done()) return false;
  return true;
}

// A grid of single-CTA clusters. CTAs run one after another while each
// finishes within kAloneBudget warp instructions (most kernels: the cheapest
// order, and the one whose results are easiest to follow). A CTA that runs
// longer may be spinning on a flag a later CTA sets or on a software grid
// barrier, which hardware resolves because many CTAs are resident at once; so
// from then on up to `resident_ctas` CTAs run together, warps in turn, and a
// finished CTA's slot takes the grid's next CTA, as an SM's would.
LaunchStats run_grid(const LoadedModule& module, const Function& f, const LaunchConfig& config,
                     DeviceMemory& memory, std::ostream& out) {
  const Dim3 g = config.grid;
  const std::uint64_t total = g.count();
  auto cta_at = [&](std::uint64_t i) -> Dim3 {
    return {static_cast<std::uint32_t>(i % g.x), static_cast<std::uint32_t>(i / g.x % g.y),
            static_cast<std::uint32_t>(i / (std::uint64_t{g.x} * g.y))};
  };
  std::vector<std::unique_ptr<State>> slots;
  auto start = [&](State& st, std::uint64_t index) {
    st.own_cluster->arrived = 0;
    st.own_cluster->phase = 0;
    reset_cta(st, f, cta_at(index));
    ++st.stats.ctas;
  };
  auto new_slot = [&]() -> State& {
    slots.push_back(new_state(module, config, memory, out));
    State& st = *slots.back();
    st.own_cluster = std::make_unique<ClusterState>();
    st.own_cluster->dims = {1, 1, 1};
    st.own_cluster->members = {&st};
    st.cluster = st.own_cluster.get();
    st.kernel = &f;
    return st;
  };
  std::uint64_t next = 0;
  // A checkpoint inside the launch is taken when its CTA is among the
  // `starting` ones about to begin: the resident slots as they stand.
  const GridCheckpointRequest* request = config.grid_checkpoint;
  auto checkpoint = [&](const std::vector<State*>& active, std::uint64_t starting) {
    if (!request || request->cta < next || request->cta >= next + starting) return;
    GridSnapshot snapshot;
    snapshot.next_cta = next;
    for (const State* st : active)
      snapshot.resident.push_back(cta_done(*st) ? std::vector<std::uint8_t>{}
                                                : save_cta_state(*st));
    std::exchange(request, nullptr)->take(snapshot);
  };
  State& first = new_slot();
  std::vector<State*> active;
  if (const GridSnapshot* resume = config.grid_resume) {
    next = std::min(resume->next_cta, total);
    for (const std::vector<std::uint8_t>& saved : resume->resident) {
      State& st = active.empty() ? first : new_slot();
      if (!saved.empty()) restore_cta_state(st, saved);
      active.push_back(&st);
    }
  }
  bool alone_done = active.empty();
  // One run for every CTA that runs alone: its cycle watch keeps the state
  // size it learnt and its buffers, so a CTA issuing fewer instructions than
  // its state has bytes is never compared (a new watch per CTA compared each
  // one at its first round: most of a large-CTA kernel's time went there).
  GroupRun run(kQuantum, true);
  while (next < total && alone_done) {
    checkpoint({}, 1);
    start(first, next++);
    run.members_changed();
    const std::uint64_t began = first.stats.warp_instructions;
    while (!(alone_done = run.round({&first})) && !run.cycling() &&
           first.stats.warp_instructions - began < kAloneBudget) {
    }
  }
  if (!alone_done) {
    // A finished slot takes the grid's next CTA, as an SM's would.
    auto refill = [&]() {
      std::uint64_t finished = 0;
      for (const State* st : active) finished += cta_done(*st);
      checkpoint(active, std::min(finished, total - next));
      std::vector<State*> still;
      for (State* st : active) {
        if (!cta_done(*st)) {
          still.push_back(st);
        } else if (next < total) {
          start(*st, next++);
          still.push_back(st);
        }
      }
      active.swap(still);
      return finished > 0;
    };
    const std::uint64_t resident =
        std::max<std::uint64_t>(1, config.resident_ctas ? config.resident_ctas : config.sm_count);
    if (active.empty()) active = {&first};
    refill();  // a resumed launch's finished slots
    if (active.size() < resident)
      checkpoint(active, std::min(resident - active.size(), total - next));
    while (active.size() < resident && next < total) {
      State& st = new_slot();
      start(st, next++);
      active.push_back(&st);
    }
    GroupRun group(kResidentQuantum, true);
    while (!active.empty()) {
      group.round(active);
      if (refill())
        group.members_changed();
      else if (group.cycling())
        return suspend_grid(active, next, slots, config.suspend_into);
    }
  }
  return sum_stats(slots);
}

}  // namespace

std::vector<std::uint8_t> Executor::Cta::save() const {
  return save_cta_state(*s_);
}

std::unique_ptr<Executor::Cta> Executor::restore_cta(const LoadedModule& module,
                                                     const std::string& kernel,
                                                     const LaunchConfig& config,
                                                     const std::vector<std::uint8_t>& saved) {
  std::unique_ptr<Cta> cta = begin_cta(module, kernel, config, {0, 0, 0});
  restore_cta_state(*cta->s_, saved);
  return cta;
}

LaunchStats Executor::launch(const LoadedModule& module, const std::string& kernel,
                             const LaunchConfig& config) {
  check_launch(module, kernel, config);
  // The observer sees it all; a launch that checkpoints or resumes is no whole launch.
  if (config.observer || config.grid_checkpoint || config.grid_resume)
    return execute(module, kernel, config);
  return replay_->launch(module, kernel, config, [&] { return execute(module, kernel, config); });
}

LaunchStats Executor::execute(const LoadedModule& module, const std::string& kernel,
                              const LaunchConfig& config) {
  const Function& f = check_launch(module, kernel, config);
  const Dim3 cd = cluster_shape(f, config, kernel);
  if ((config.grid_checkpoint || config.grid_resume) && (config.cooperative || cd.count() > 1))
    throw std::invalid_argument("kernel '" + kernel +
                                "': a checkpoint inside a kernel needs a grid of single CTAs, "
                                "not a cooperative or clustered launch");
  if (config.cooperative) return run_cooperative(module, f, config, cd, memory_, out_);
  if (cd.count() == 1) return run_grid(module, f, config, memory_, out_);
  // One state per CTA of a cluster, reused cluster after cluster.
  ClusterState cluster;
  cluster.dims = cd;
  std::vector<std::unique_ptr<State>> states;
  for (std::uint32_t r = 0; r < cd.count(); ++r) {
    states.push_back(new_state(module, config, memory_, out_));
    states.back()->cluster = &cluster;
    states.back()->rank = r;
    cluster.members.push_back(states.back().get());
  }
  const Dim3 g = config.grid;
  for (std::uint32_t cz = 0; cz < g.z / cd.z; ++cz)
    for (std::uint32_t cy = 0; cy < g.y / cd.y; ++cy)
      for (std::uint32_t cx = 0; cx < g.x / cd.x; ++cx) {
        cluster.arrived = 0;
        cluster.phase = 0;
        for (std::uint32_t r = 0; r < cd.count(); ++r) {
          reset_cta(*states[r], f, cta_in_cluster(cx, cy, cz, cd, r));
          ++states[r]->stats.ctas;
        }
        run_group(cluster.members);
      }
  return sum_stats(states);
}

}  // namespace cnuas::ptx
