// One CTA's whole state as bytes and back, for checkpoints inside a kernel
// (cnuas exec --checkpoint-at KERNEL:CTA). The layout is the "CTA state" of
// docs/checkpoint-format.md: little-endian integers, pointers written as
// indices (a function by its index in the module, an instruction by its index
// in its function), so that a restored CTA continues exactly where the saved
// one stood. Restoring checks every index and size against the kernel, so that
// bytes from another kernel or a damaged file are refused, never run.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "exec_state.h"

namespace cnuas::ptx {
namespace {

constexpr std::uint32_t kCtaStateVersion = 1;

class Out {
 public:
  template <class T>
  void put(const T& v) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(&v);
    bytes.insert(bytes.end(), p, p + sizeof v);
  }
  template <class T>
  void put_vector(const std::vector<T>& v) {
    put(static_cast<std::uint64_t>(v.size()));
    const auto* p = reinterpret_cast<const std::uint8_t*>(v.data());
    bytes.insert(bytes.end(), p, p + v.size() * sizeof(T));
  }
  std::vector<std::uint8_t> bytes;
};

class In {
 public:
  explicit In(const std::vector<std::uint8_t>& b) : b_(b) {}
  template <class T>
  T get() {
    T v;
    need(sizeof v);
    std::memcpy(&v, b_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  // A vector of at most `limit` elements.
  template <class T>
  void get_vector(std::vector<T>& v, std::uint64_t limit) {
    const auto n = get<std::uint64_t>();
    if (n > limit) bad("a vector of " + std::to_string(n) + " elements");
    need(n * sizeof(T));
    v.resize(n);
    if (n) std::memcpy(v.data(), b_.data() + pos_, n * sizeof(T));
    pos_ += n * sizeof(T);
  }
  bool at_end() const { return pos_ == b_.size(); }
  [[noreturn]] static void bad(const std::string& what) {
    throw std::invalid_argument("saved CTA state is not one of this kernel: " + what);
  }

 private:
  void need(std::uint64_t n) const {
    if (n > b_.size() - pos_) bad("it ends early");
  }
  const std::vector<std::uint8_t>& b_;
  std::size_t pos_ = 0;
};

std::uint32_t function_index(const Module& m, const Function* f) {
  return static_cast<std::uint32_t>(f - m.functions.data());
}

}  // namespace

std::vector<std::uint8_t> save_cta_state(const Executor::Cta::State& s) {
  const Module& m = s.module->module();
  Out o;
  o.put(kCtaStateVersion);
  o.put(s.cta.x);
  o.put(s.cta.y);
  o.put(s.cta.z);
  o.put(s.threads);
  o.put(s.dynamic_shared_base);
  o.put_vector(s.shared);
  for (std::uint32_t id = 0; id < 16; ++id) {
    o.put(s.arrived[id]);
    o.put(s.bar_red[id]);
    o.put(s.bar_expected[id]);
  }
  o.put(s.barrier_releases);
  o.put(s.cluster->arrived);
  o.put(s.cluster->phase);
  o.put(s.mbarrier_events);
  o.put(s.global_writes);
  o.put(s.stats.warp_instructions);
  o.put(s.stats.thread_instructions);
  o.put(s.stats.ctas);
  o.put(s.stats.global_bytes);
  o.put(s.stats.builtin_calls);
  o.put(s.clock);
  o.put(s.sm);
  o.put(static_cast<std::uint32_t>(s.warps.size()));
  for (const Warp& w : s.warps) {
    o.put(w.index);
    o.put(w.valid);
    o.put(w.exited);
    o.put(static_cast<std::uint8_t>(w.waiting));
    o.put(static_cast<std::uint8_t>(w.yield));
    o.put(w.barrier_id);
    o.put(w.held);
    for (std::uint32_t c : w.counted) o.put(c);
    // A pending bar.red: its instruction in the innermost frame's function, plus one.
    const Function& top = *(w.frames.empty() ? s.kernel : w.frames.back().fn);
    o.put(w.bar_inst ? static_cast<std::uint32_t>(w.bar_inst - top.code.data()) + 1 : 0u);
    o.put(w.bar_mask);
    o.put(w.cluster_target);
    for (std::uint8_t c : w.carry) o.put(c);
    o.put(static_cast<std::uint64_t>(w.simt.size()));
    for (const SimtEntry& e : w.simt) {
      o.put(e.pc);
      o.put(e.rpc);
      o.put(e.mask);
      o.put(static_cast<std::uint8_t>(e.held));
    }
    o.put(static_cast<std::uint64_t>(w.frames.size()));
    for (std::size_t fi = 0; fi < w.frames.size(); ++fi) {
      const Frame& f = w.frames[fi];
      o.put(function_index(m, f.fn));
      o.put(f.reg_base);
      o.put(f.stack_base);
      o.put(f.return_pc);
      o.put(static_cast<std::uint64_t>(f.simt_depth));
      // The call that made the frame, in the caller's function, plus one.
      const std::uint32_t call =
          f.call && fi > 0
              ? static_cast<std::uint32_t>(f.call - w.frames[fi - 1].fn->code.data()) + 1
              : 0u;
      o.put(call);
    }
    o.put_vector(w.regs);
    o.put_vector(w.stack);
  }
  return std::move(o.bytes);
}

void restore_cta_state(Executor::Cta::State& s, const std::vector<std::uint8_t>& bytes) {
  const Module& m = s.module->module();
  const LaunchConfig& config = *s.config;
  In in(bytes);
  if (const auto v = in.get<std::uint32_t>(); v != kCtaStateVersion)
    In::bad("layout version " + std::to_string(v) + ", expected " +
            std::to_string(kCtaStateVersion));
  s.cta.x = in.get<std::uint32_t>();
  s.cta.y = in.get<std::uint32_t>();
  s.cta.z = in.get<std::uint32_t>();
  if (s.cta.x >= config.grid.x || s.cta.y >= config.grid.y || s.cta.z >= config.grid.z)
    In::bad("CTA (" + std::to_string(s.cta.x) + "," + std::to_string(s.cta.y) + "," +
            std::to_string(s.cta.z) + ") is outside the grid");
  s.threads = in.get<std::uint32_t>();
  if (s.threads != config.block.count()) In::bad("another block size");
  s.dynamic_shared_base = in.get<std::uint32_t>();
  if (s.dynamic_shared_base != align16(s.kernel->static_shared_bytes))
    In::bad("another static shared size");
  in.get_vector(s.shared, std::uint64_t{s.dynamic_shared_base} + config.dynamic_shared_bytes);
  if (s.shared.size() != std::uint64_t{s.dynamic_shared_base} + config.dynamic_shared_bytes)
    In::bad("another shared memory size");
  for (std::uint32_t id = 0; id < 16; ++id) {
    s.arrived[id] = in.get<std::uint32_t>();
    s.bar_red[id] = in.get<std::uint64_t>();
    s.bar_expected[id] = in.get<std::uint32_t>();
  }
  s.barrier_releases = in.get<std::uint64_t>();
  s.cluster->arrived = in.get<std::uint32_t>();
  s.cluster->phase = in.get<std::uint64_t>();
  s.mbarrier_events = in.get<std::uint64_t>();
  s.global_writes = in.get<std::uint64_t>();
  s.stats.warp_instructions = in.get<std::uint64_t>();
  s.stats.thread_instructions = in.get<std::uint64_t>();
  s.stats.ctas = in.get<std::uint64_t>();
  s.stats.global_bytes = in.get<std::uint64_t>();
  s.stats.builtin_calls = in.get<std::uint64_t>();
  s.clock = in.get<std::uint64_t>();
  s.sm = in.get<std::uint32_t>();
  const auto warps = in.get<std::uint32_t>();
  if (warps != (s.threads + 31) / 32) In::bad("another warp count");
  s.warps.resize(warps);
  for (std::uint32_t wi = 0; wi < warps; ++wi) {
    Warp& w = s.warps[wi];
    w.index = in.get<std::uint32_t>();
    if (w.index != wi) In::bad("warps out of order");
    w.valid = in.get<std::uint32_t>();
    w.exited = in.get<std::uint32_t>();
    w.waiting = in.get<std::uint8_t>() != 0;
    w.yield = in.get<std::uint8_t>() != 0;
    w.barrier_id = in.get<std::uint32_t>();
    if (w.barrier_id > Executor::Cta::State::kClusterBarrier) In::bad("a barrier id out of range");
    w.held = in.get<std::uint32_t>();
    for (std::uint32_t& c : w.counted) c = in.get<std::uint32_t>();
    const auto bar_inst = in.get<std::uint32_t>();
    w.bar_mask = in.get<std::uint32_t>();
    w.cluster_target = in.get<std::uint64_t>();
    for (std::uint8_t& c : w.carry) c = in.get<std::uint8_t>();
    const auto depth = in.get<std::uint64_t>();
    if (depth > (1u << 20)) In::bad("a SIMT stack of " + std::to_string(depth) + " entries");
    std::vector<SimtEntry> simt(depth);
    for (SimtEntry& e : simt) {
      e.pc = in.get<std::uint32_t>();
      e.rpc = in.get<std::uint32_t>();
      e.mask = in.get<std::uint32_t>();
      e.held = in.get<std::uint8_t>() != 0;
    }
    w.simt = std::move(simt);
    const auto frames = in.get<std::uint64_t>();
    if (frames == 0 && !w.simt.empty()) In::bad("a running warp without frames");
    if (frames > 4096) In::bad("a call depth of " + std::to_string(frames));
    w.frames.clear();
    std::uint64_t regs_needed = 0;
    for (std::uint64_t fi = 0; fi < frames; ++fi) {
      Frame f{};
      const auto fn = in.get<std::uint32_t>();
      if (fn >= m.functions.size()) In::bad("a function index out of range");
      f.fn = &m.functions[fn];
      if (fi == 0 && f.fn != s.kernel) In::bad("another kernel");
      f.reg_base = in.get<std::uint32_t>();
      f.stack_base = in.get<std::uint32_t>();
      f.return_pc = in.get<std::uint32_t>();
      f.simt_depth = in.get<std::uint64_t>();
      if (f.simt_depth > w.simt.size()) In::bad("a frame below its SIMT stack");
      if (f.return_pc > (fi ? w.frames[fi - 1].fn->code.size() : 0))
        In::bad("a return pc out of range");
      if (fi > 0 && std::uint64_t{f.stack_base} + frame_bytes(*f.fn) > config.stack_bytes)
        In::bad("a frame past the stack");
      const auto call = in.get<std::uint32_t>();
      if (call > 0) {
        if (fi == 0 || call > w.frames[fi - 1].fn->code.size()) In::bad("a call out of range");
        f.call = &w.frames[fi - 1].fn->code[call - 1];
      }
      regs_needed = std::max<std::uint64_t>(
          regs_needed, (std::uint64_t{f.reg_base} + f.fn->registers.size()) * 32);
      w.frames.push_back(f);
    }
    std::size_t longest = 0;
    for (const Frame& f : w.frames) longest = std::max(longest, f.fn->code.size());
    for (const SimtEntry& e : w.simt)
      if (e.pc > longest + 1) In::bad("a pc out of range");
    const Function& top = *(w.frames.empty() ? s.kernel : w.frames.back().fn);
    if (bar_inst > top.code.size()) In::bad("a pending bar.red out of range");
    w.bar_inst = bar_inst ? &top.code[bar_inst - 1] : nullptr;
    in.get_vector(w.regs, std::uint64_t{1} << 32);
    if (w.regs.size() < regs_needed) In::bad("too few registers");
    in.get_vector(w.stack, std::uint64_t{config.stack_bytes} * 32);
    if (!w.stack.empty() && w.stack.size() != std::uint64_t{config.stack_bytes} * 32)
      In::bad("another stack size");
    if (w.stack.empty() && frames > 1) In::bad("calls without a stack");
  }
  if (!in.at_end()) In::bad("bytes after its last warp");
}

}  // namespace cnuas::ptx
