// Internal state of a running CTA, shared by the instruction groups.
#pragma once

#include <cstring>
#include <memory>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <ostream>
#include <vector>

#include "ptx/executor.h"

namespace cnuas::ptx {

struct SimtEntry {
  std::uint32_t pc;
  std::uint32_t rpc;  // reconvergence pc; ~0u for the bottom entry of a frame
  std::uint32_t mask;
  bool held = false;  // these lanes wait at the warp's CTA barrier (Warp::barrier_id)
};

struct Frame {
  const Function* fn;
  std::uint32_t reg_base;    // first register of this frame in Warp::regs
  std::uint32_t stack_base;  // this frame's bytes in each lane's stack
  std::uint32_t return_pc;
  std::size_t simt_depth;   // SIMT stack size below this frame
  const Instruction* call;  // the call that made it (null for the kernel)
};

// Frame layout in a lane's stack: [params | locals | call parameters].
inline std::uint32_t align16(std::uint32_t v) {
  return (v + 15) & ~15u;
}
inline std::uint32_t locals_offset(const Function& f) {
  return align16(f.param_bytes);
}
inline std::uint32_t call_params_offset(const Function& f) {
  return locals_offset(f) + align16(f.local_bytes);
}
inline std::uint32_t frame_bytes(const Function& f) {
  return call_params_offset(f) + align16(f.call_param_bytes);
}

struct Warp {
  std::uint32_t index = 0;
  std::uint32_t valid = 0;   // lanes that hold a thread
  std::uint32_t exited = 0;  // lanes that ran exit/ret from the kernel
  std::vector<SimtEntry> simt;
  std::vector<Frame> frames;
  std::vector<std::uint64_t> regs;  // (reg_base + r) * 32 + lane
  std::vector<std::uint8_t> stack;  // lane * stack_bytes + offset
  std::uint8_t carry[32] = {};
  bool waiting = false;  // at a barrier: the top SIMT entry is held, or at the cluster barrier
  bool yield = false;    // let other warps run (a failed mbarrier wait)
  std::uint32_t barrier_id = 0;
  std::uint32_t held = 0;  // lanes in held SIMT entries, waiting at CTA barrier barrier_id
  // Per barrier id, the lanes counted at a barrier with a thread count in this
  // phase (arrived or exited); nonzero once the warp arrived there.
  std::uint32_t counted[16] = {};
  const Instruction* bar_inst = nullptr;  // a pending bar.red
  std::uint32_t bar_mask = 0;
  std::uint64_t cluster_target = 0;  // the cluster barrier phase this warp arrived for
  bool done() const { return simt.empty(); }
};

// The CTAs of one thread-block cluster, run together: their warps interleave,
// they share the cluster barrier, and each can reach the others' shared memory.
struct ClusterState {
  std::vector<Executor::Cta::State*> members;  // by rank in the cluster
  Dim3 dims;
  std::uint32_t arrived = 0;  // threads arrived at the cluster barrier this phase
  std::uint64_t phase = 0;
};

struct Executor::Cta::State {
  const LoadedModule* module = nullptr;
  const Function* kernel = nullptr;
  const LaunchConfig* config = nullptr;
  DeviceMemory* memory = nullptr;
  std::ostream* out = nullptr;
  Dim3 cta;
  std::uint32_t threads = 0;
  std::vector<Warp> warps;
  std::vector<std::uint8_t> shared;
  std::uint32_t dynamic_shared_base = 0;
  // Barriers: threads arrived per barrier id and the reduction value. A warp
  // waiting with barrier_id kClusterBarrier waits for the cluster's phase.
  static constexpr std::uint32_t kClusterBarrier = 16;
  std::uint32_t arrived[16] = {};
  std::uint64_t bar_red[16] = {};
  std::uint32_t bar_expected[16] = {};
  std::uint64_t barrier_releases = 0;  // barriers completed, any id
  ClusterState* cluster = nullptr;
  std::uint32_t rank = 0;                     // in the cluster
  std::unique_ptr<ClusterState> own_cluster;  // when this CTA is a cluster by itself
  std::uint64_t mbarrier_events = 0;          // state changes of any mbarrier
  std::uint64_t global_writes = 0;            // global stores and atomics, for stall detection
  LaunchStats stats;
  std::uint64_t limit = 0;
  std::uint64_t clock = 0;  // %clock: issued instructions, or the SM cycle a timing model sets
  std::uint32_t sm = ~0u;  // %smid when a timing model placed the CTA; else derived from the CTA id

  Dim3 thread_of(const Warp& w, unsigned lane) const {
    const std::uint32_t linear = w.index * 32 + lane;
    const Dim3 b = config->block;
    return {linear % b.x, (linear / b.x) % b.y, linear / (b.x * b.y)};
  }
  [[noreturn]] void fault(const Warp& w, unsigned lane, const Instruction& i,
                          const std::string& message) const {
    throw ExecutionError(kernel->name, cta, thread_of(w, lane), i.line, i.text, message);
  }
};

// The context one instruction executes in.
struct Ctx {
  Executor::Cta::State& s;
  Warp& w;
  const Frame& frame;
  std::uint32_t mask;  // active lanes after the guard
  StepRecord* record;

  std::uint64_t* reg(std::int32_t r) { return &w.regs[(frame.reg_base + r) * 32u]; }
  // The declared width of a register (predicates count as 64: they hold 0 or 1).
  unsigned reg_width(std::int32_t r) const {
    const unsigned b = type_bits(frame.fn->registers[static_cast<std::size_t>(r)].type);
    return b <= 8 ? 64 : b;
  }
  // Source operand as 32 lane values: a register's own storage, or `scratch`
  // filled. A plain register (most operands) is resolved inline.
  const std::uint64_t* src(const Operand& o, std::uint64_t* scratch) {
    if (o.kind == Operand::Kind::Reg && !o.component) return reg(o.reg);
    return src_filled(o, scratch);
  }
  const std::uint64_t* src_filled(const Operand& o, std::uint64_t* scratch);
  std::uint64_t symbol_value(const Operand& o, unsigned lane) const;
  std::uint64_t special(const Operand& o, unsigned lane) const;
  void special_lanes(const Operand& o, std::uint64_t* out) const;  // all 32 lanes
  [[noreturn]] void fault(unsigned lane, const Instruction& i, const std::string& m) const {
    s.fault(w, lane, i, m);
  }
  std::uint8_t* lane_stack(unsigned lane) {
    return w.stack.data() + static_cast<std::size_t>(lane) * s.config->stack_bytes;
  }
};

// Thread-block clusters in the address space: a generic address in
// [kClusterWindow + r * kWindowSize, ...) is CTA r's shared memory; a
// .shared::cluster address carries rank + 1 in bits 24-31 (0 = this CTA).
constexpr std::uint64_t kClusterWindow = 0x0000'0300'0000'0000ull;
constexpr unsigned kClusterRankShift = 24;

// The CTA and offset a shared-memory address names, or null when it is no
// shared address of this cluster. `space` is Shared, SharedCluster or Generic.
struct SharedTarget {
  Executor::Cta::State* cta;
  std::uint64_t offset;
};
SharedTarget shared_target(Executor::Cta::State& s, Space space, std::uint64_t a);

// The whole state of a group of CTAs (shared memory, barriers, every warp's
// SIMT stack, frames, registers and stack) as bytes, in `out` (fixed_point.cpp).
void group_state_bytes(const std::vector<Executor::Cta::State*>& ctas,
                       std::vector<std::uint8_t>& out);

// One CTA's whole state as bytes and back (cta_snapshot.cpp, documented in
// docs/checkpoint-format.md): restore_cta_state fills a state whose module,
// kernel, config, memory, out and own cluster are set, and throws
// std::invalid_argument for bytes that describe no CTA of that kernel.
std::vector<std::uint8_t> save_cta_state(const Executor::Cta::State& s);
void restore_cta_state(Executor::Cta::State& s, const std::vector<std::uint8_t>& bytes);

// Instruction groups; each returns false when it does not handle the opcode.
bool exec_integer(Ctx& c, const Instruction& i);
bool exec_float(Ctx& c, const Instruction& i);
bool exec_convert(Ctx& c, const Instruction& i);
bool exec_memory(Ctx& c, const Instruction& i);
bool exec_warp(Ctx& c, const Instruction& i);
bool exec_matrix(Ctx& c, const Instruction& i);
bool exec_mma(Ctx& c, const Instruction& i);
bool exec_mbarrier(Ctx& c, const Instruction& i);
void mbarrier_complete_tx_at(Executor::Cta::State& s, std::uint64_t offset, std::uint64_t bytes);
bool exec_bulk(Ctx& c, const Instruction& i);  // the cp.async.bulk family (ops_bulk_copy.cpp)
bool exec_texture(Ctx& c, const Instruction& i);
bool exec_video(Ctx& c, const Instruction& i);
bool exec_wgmma(Ctx& c, const Instruction& i);

// Address arithmetic happens in the address's width (the PTX ISA's addresses are
// 32 or 64 bits): shared and local addresses are 32 bits wide, and so is an
// address held in a 32-bit register or in a module with .address_size 32. So
// [%r+8] with %r = 0xfffffff8 names address 0, as on the hardware, instead of
// 2^32. The mask to apply to a [reg+imm] / [var+imm] sum.
inline bool is_32bit_space(Space space) {
  return space == Space::Shared || space == Space::SharedCta || space == Space::SharedCluster ||
         space == Space::Local;
}
inline std::uint64_t address_mask(const Ctx& c, const Operand& addr, Space space) {
  const bool narrow = is_32bit_space(space) || c.s.module->module().address_size == 32 ||
                      (addr.reg >= 0 && c.reg_width(addr.reg) == 32);
  return narrow ? 0xffffffffull : ~0ull;
}

// Writes v (truncated to the type) to lane l of register operand o; ignores sinks.
inline void put(Ctx& c, const Operand& o, unsigned lane, std::uint64_t v) {
  if (o.kind == Operand::Kind::Reg) c.reg(o.reg)[lane] = v;
}

// Bit arithmetic rather than __builtin_popcount, which is a library call when
// the target has no popcnt instruction (baseline x86-64).
inline std::uint32_t lane_count(std::uint32_t m) {
  if (m == ~0u) return 32;  // a full warp, the usual case
  m = m - ((m >> 1) & 0x55555555u);
  m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
  return (((m + (m >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

// The lanes whose 64-bit value is nonzero (a predicate register as a mask),
// two lanes per SSE2 comparison where the target has it.
inline std::uint32_t nonzero_lanes(const std::uint64_t* p) {
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  std::uint32_t zeros = 0;
  for (unsigned l = 0; l < 32; l += 2) {
    const __m128i eq =
        _mm_cmpeq_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + l)), zero);
    const __m128i both = _mm_and_si128(eq, _mm_shuffle_epi32(eq, 0xb1));  // both halves zero
    zeros |= static_cast<std::uint32_t>(_mm_movemask_pd(_mm_castsi128_pd(both))) << l;
  }
  return ~zeros;
#else
  std::uint32_t g = 0;
  for (unsigned l = 0; l < 32; ++l) g |= static_cast<std::uint32_t>(p[l] != 0) << l;
  return g;
#endif
}

template <class F>
inline void each_lane(std::uint32_t mask, F&& f) {
  while (mask) {
    const unsigned l = static_cast<unsigned>(__builtin_ctz(mask));
    mask &= mask - 1;
    f(l);
  }
}

}  // namespace cnuas::ptx
