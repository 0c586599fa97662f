// The complete state of a group of CTAs as bytes, to prove that a group whose
// warps only fail mbarrier waits can never make progress: the engine is
// deterministic, so a round that ends in the state the previous round ended in
// (and wrote no global memory) repeats forever.
#include <cstring>

#include "exec_state.h"

namespace cnuas::ptx {
namespace {

template <class T>
void put_bytes(std::vector<std::uint8_t>& out, const T& v) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

template <class T>
void put_vector(std::vector<std::uint8_t>& out, const std::vector<T>& v) {
  put_bytes(out, v.size());
  const auto* p = reinterpret_cast<const std::uint8_t*>(v.data());
  out.insert(out.end(), p, p + v.size() * sizeof(T));
}

}  // namespace

void group_state_bytes(const std::vector<Executor::Cta::State*>& ctas,
                       std::vector<std::uint8_t>& out) {
  out.clear();
  for (const Executor::Cta::State* sp : ctas) {
    const Executor::Cta::State& s = *sp;
    put_vector(out, s.shared);
    for (std::uint32_t id = 0; id < 16; ++id) {
      put_bytes(out, s.arrived[id]);
      put_bytes(out, s.bar_red[id]);
      put_bytes(out, s.bar_expected[id]);
    }
    put_bytes(out, s.cluster->arrived);
    put_bytes(out, s.cluster->phase);
    for (const Warp& w : s.warps) {
      put_bytes(out, w.exited);
      put_bytes(out, w.waiting);
      put_bytes(out, w.barrier_id);
      put_bytes(out, w.held);
      put_bytes(out, w.bar_mask);
      put_bytes(out, w.cluster_target);
      for (std::uint32_t c : w.counted) put_bytes(out, c);
      for (std::uint8_t c : w.carry) put_bytes(out, c);
      put_bytes(out, w.simt.size());
      for (const SimtEntry& e : w.simt) {
        put_bytes(out, e.pc);
        put_bytes(out, e.rpc);
        put_bytes(out, e.mask);
        put_bytes(out, e.held);
      }
      put_bytes(out, w.frames.size());
      for (const Frame& f : w.frames) {
        put_bytes(out, f.reg_base);
        put_bytes(out, f.stack_base);
        put_bytes(out, f.return_pc);
        put_bytes(out, f.simt_depth);
      }
      put_vector(out, w.regs);
      put_vector(out, w.stack);
    }
  }
}

}  // namespace cnuas::ptx
