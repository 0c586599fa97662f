// mbarrier: the split arrive/wait barrier objects of sm_80+ in shared memory.
// The 64-bit object is the engine's own encoding (programs only reach it
// through mbarrier instructions): bits 0-20 pending arrivals, 21-41 expected
// arrivals, 42-62 pending transaction bytes (signed), 63 the phase.
// A state token returned by arrive is the object as it was, so test_wait can
// compare phases.
#include <cstring>

#include "lanes.h"

namespace cnuas::ptx {

std::uint8_t* space_bytes(Ctx& c, const Instruction& i, Space space, std::uint64_t a,
                          unsigned bytes, unsigned lane);  // ops_memory.cpp

namespace {

using u64 = std::uint64_t;
constexpr u64 kField = (u64{1} << 21) - 1;

struct Mbarrier {
  u64 pending, expected;
  std::int64_t tx;
  u64 phase;
  static Mbarrier read(const std::uint8_t* p) {
    u64 v;
    std::memcpy(&v, p, 8);
    return {v & kField, (v >> 21) & kField, sign_extend((v >> 42) & kField, 21), v >> 63};
  }
  u64 bits() const {
    return (pending & kField) | ((expected & kField) << 21) |
           ((static_cast<u64>(tx) & kField) << 42) | (phase << 63);
  }
  // The current phase completes when every expected arrival came and no
  // transaction bytes are outstanding; the next phase expects the same count.
  void maybe_complete() {
    if (pending == 0 && tx == 0) {
      phase ^= 1;
      pending = expected;
    }
  }
};

}  // namespace

// complete_tx of `bytes` on the mbarrier at `a` (for cp.async.bulk, whose
// copies are done at issue: their transactions complete at once).
void mbarrier_complete_tx(Ctx& c, const Instruction& i, Space space, std::uint64_t a,
                          std::uint64_t bytes, unsigned lane) {
  std::uint8_t* p = space_bytes(c, i, space, a, 8, lane);
  if (a % 8) c.fault(lane, i, "mbarrier object address is not 8-byte aligned");
  Mbarrier m = Mbarrier::read(p);
  m.tx -= static_cast<std::int64_t>(bytes);
  m.maybe_complete();
  const u64 after = m.bits();
  ++c.s.mbarrier_events;
  std::memcpy(p, &after, 8);
}

// The same, from a timing model for a copy whose transaction it deferred: the object's address
// was checked when the copy issued.
void mbarrier_complete_tx_at(Executor::Cta::State& s, std::uint64_t offset, std::uint64_t bytes) {
  std::uint8_t* p = s.shared.data() + offset;
  Mbarrier m = Mbarrier::read(p);
  m.tx -= static_cast<std::int64_t>(bytes);
  m.maybe_complete();
  const u64 after = m.bits();
  ++s.mbarrier_events;
  std::memcpy(p, &after, 8);
}

bool exec_mbarrier(Ctx& c, const Instruction& i) {
  const bool cp_arrive = i.op == Opcode::cp && i.mode == Mode::MbArrive;
  if (i.op != Opcode::mbarrier && !cp_arrive) return false;
  const Space space = i.space == Space::None ? Space::Generic : i.space;
  // Operand positions: [addr] first unless the form returns a value.
  const bool has_dest = i.mode == Mode::MbArrive || i.mode == Mode::MbArriveDrop ||
                        i.mode == Mode::MbTestWait || i.mode == Mode::MbTryWait ||
                        i.mode == Mode::MbPendingCount;
  const bool dest = has_dest && !cp_arrive && i.ops[0].kind != Operand::Kind::Address;
  const Operand& addr = i.ops[dest ? 1 : 0];
  std::uint64_t scratch[32];
  const u64* arg = i.nops > (dest ? 2u : 1u) ? c.src(i.ops[dest ? 2 : 1], scratch) : nullptr;
  bool all_done = true;
  each_lane(c.mask, [&](unsigned l) {
    if (i.mode == Mode::MbPendingCount) {  // from a state token, no object access
      put(c, i.ops[0], l, arg ? arg[l] & kField : 0);
      return;
    }
    u64 a = addr.reg >= 0 ? c.reg(addr.reg)[l] : (addr.has_symbol ? c.symbol_value(addr, l) : 0);
    a = (a + static_cast<u64>(addr.imm)) & address_mask(c, addr, space);
    std::uint8_t* p = space_bytes(c, i, space, a, 8, l);
    if (a % 8) c.fault(l, i, "mbarrier object address is not 8-byte aligned");
    Mbarrier m = Mbarrier::read(p);
    const u64 before = m.bits();
    switch (i.mode) {
      case Mode::MbInit: {
        const u64 count = arg ? arg[l] & 0xffffffffu : 0;
        if (count == 0 || count > kField - 1)
          c.fault(l, i, "mbarrier.init count must be 1 to 2^20-1, got " + std::to_string(count));
        m = {count, count, 0, 0};
        break;
      }
      case Mode::MbInval:
        m = {0, 0, 0, 0};
        break;
      case Mode::MbExpectTx:
        m.tx += static_cast<std::int64_t>(arg ? arg[l] & 0xffffffffu : 0);
        break;
      case Mode::MbCompleteTx:
        m.tx -= static_cast<std::int64_t>(arg ? arg[l] & 0xffffffffu : 0);
        m.maybe_complete();
        break;
      case Mode::MbArrive:
      case Mode::MbArriveDrop: {
        if (cp_arrive && !i.has(kNoInc)) break;  // +1 then -1: the copies are already done
        u64 count = 1;
        if (i.has(kExpectTx))
          m.tx += static_cast<std::int64_t>(arg ? arg[l] & 0xffffffffu : 0);
        else if (arg)
          count = arg[l] & 0xffffffffu;
        if (m.expected == 0) c.fault(l, i, "arrive on an mbarrier that was never initialised");
        if (count > m.pending)
          c.fault(l, i,
                  "mbarrier arrive of " + std::to_string(count) + " with only " +
                      std::to_string(m.pending) + " arrivals pending");
        m.pending -= count;
        if (i.mode == Mode::MbArriveDrop) m.expected -= std::min<u64>(m.expected, count);
        if (!i.has(kNoComplete)) m.maybe_complete();
        if (dest) put(c, i.ops[0], l, before);
        break;
      }
      case Mode::MbTestWait:
      case Mode::MbTryWait: {
        // Complete once the object's phase moved past the token's (or, with
        // .parity, past the given phase parity).
        const u64 waited_phase = i.has(kParity) ? (arg ? arg[l] & 1 : 0) : (arg ? arg[l] >> 63 : 0);
        const bool done = m.phase != waited_phase;
        if (!done) all_done = false;
        put(c, i.ops[0], l, done);
        break;
      }
      default:
        break;
    }
    const u64 after = m.bits();
    if (after != before) ++c.s.mbarrier_events;
    std::memcpy(p, &after, 8);
  });
  // A warp whose wait failed lets the others run (they are the ones that arrive).
  if (!all_done) c.w.yield = true;
  return true;
}

}  // namespace cnuas::ptx
