// ld/ldu/st (vectors, every state space, generic addressing), atom and red,
// and cp.async (performed at issue: the copy is complete before the wait).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>

#include "fast_paths.h"
#include "half.h"
#include "lanes.h"

namespace cnuas::ptx {
namespace {

using u64 = std::uint64_t;

std::string hex(u64 v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

const char* space_name(Space s) {
  switch (s) {
    case Space::Global:
      return "global";
    case Space::Shared:
    case Space::SharedCta:
    case Space::SharedCluster:
      return "shared";
    case Space::Local:
      return "local";
    case Space::Const:
      return "const";
    case Space::Param:
      return "param";
    default:
      return "generic";
  }
}

struct Access {
  Ctx& c;
  const Instruction& i;
  const Operand& addr;
  Space space;
  bool write;
  u64 mask;  // address_mask: the sum wraps at 2^32 for 32-bit addresses

  Access(Ctx& ctx, const Instruction& inst, const Operand& a, Space sp, bool w)
      : c(ctx), i(inst), addr(a), space(sp), write(w), mask(address_mask(ctx, a, sp)) {}

  u64 address(unsigned lane) const {
    u64 base = 0;
    if (addr.reg >= 0)
      base = c.reg(addr.reg)[lane];
    else if (addr.has_symbol)
      base = c.symbol_value(addr, lane);
    return (base + static_cast<u64>(addr.imm)) & mask;
  }

  // The bytes at the lane's address, or a fault naming the space and address.
  std::uint8_t* resolve(unsigned lane, u64 a, unsigned bytes) const {
    if (is_32bit_space(space)) a &= 0xffffffffull;  // offsets added after the operand wrap too
    Space sp = space;
    u64 off = a;
    if (sp == Space::None || sp == Space::Generic) {
      if (a >= kSharedWindow && a < kSharedWindow + kWindowSize)
        sp = Space::Shared, off = a - kSharedWindow;
      else if (a >= kClusterWindow && a < kClusterWindow + 16 * kWindowSize)
        sp = Space::SharedCluster;
      else if (a >= kLocalWindow && a < kLocalWindow + kWindowSize)
        sp = Space::Local, off = a - kLocalWindow;
      else if (a >= kParamWindow && a < kParamWindow + kWindowSize)
        sp = Space::Param, off = a - kParamWindow;
      else
        sp = Space::Global;
    }
    std::uint8_t* p = nullptr;
    switch (sp) {
      case Space::Global:
        c.s.stats.global_bytes += bytes;
        c.s.global_writes += write;
        p = c.s.memory->find(off, bytes);
        if (!p && !c.s.memory->strict() && (p = c.s.memory->find_mapped(off, bytes)))
          report_past_end(lane, a, bytes);
        break;
      case Space::Const:
        p = c.s.memory->find(off, bytes);
        break;
      case Space::Shared:
      case Space::SharedCta:
        if (off + bytes <= c.s.shared.size() && off + bytes >= off) p = c.s.shared.data() + off;
        break;
      case Space::SharedCluster: {  // another CTA of the cluster, or this one
        const SharedTarget t =
            shared_target(c.s, space == Space::SharedCluster ? space : Space::Generic, a);
        if (t.cta && t.offset + bytes <= t.cta->shared.size()) p = t.cta->shared.data() + t.offset;
        break;
      }
      case Space::Local:
        if (!c.w.stack.empty() && off + bytes <= c.s.config->stack_bytes && off + bytes >= off)
          p = c.lane_stack(lane) + off;
        break;
      case Space::Param: {
        // A cvta.param address (generic, or given to ld.param) names the kernel's parameters.
        const bool in_window = off >= kParamWindow && off < kParamWindow + kWindowSize;
        if (in_window) off -= kParamWindow;
        const bool windowed = in_window || sp != space;
        const bool kernel_param = addr.has_symbol ? addr.symbol_kind == SymbolKind::KernelParam
                                                  : c.w.frames.size() == 1 || windowed;
        if (kernel_param) {
          if (write) c.fault(lane, i, "kernel parameters are read-only");
          if (off + bytes <= c.s.config->params.size())
            p = const_cast<std::uint8_t*>(c.s.config->params.data()) + off;
        } else if (!c.w.stack.empty() && off + bytes <= c.s.config->stack_bytes) {
          p = c.lane_stack(lane) + off;
        }
        break;
      }
      default:
        break;
    }
    if (!p)
      c.fault(lane, i,
              std::string(write ? "write" : "read") + " of " + std::to_string(bytes) +
                  " bytes at " + space_name(sp) + " address " + hex(a) + " is outside any " +
                  (sp == Space::Global ? "allocation" : std::string(space_name(sp)) + " memory"));
    if (c.record) {
      c.record->addresses[lane] = a;
      c.record->space = sp;
      c.record->access_bytes = bytes;
    }
    return p;
  }

  // A global access outside every allocation but inside a mapped page: the
  // hardware lets it through; reported once per kernel and PTX line, as a
  // memory checker would.
  void report_past_end(unsigned lane, u64 a, unsigned bytes) const {
    DeviceMemory& m = *c.s.memory;
    if (!m.first_report(c.s.kernel->name, i.line)) return;
    const auto [base, size] = m.allocation_below(a);
    const std::string where =
        size || base ? std::to_string(a - (base + size)) + " bytes past the end of the " +
                           std::to_string(size) + "-byte allocation at " + hex(base)
                     : "below every allocation";
    const ExecutionError e(c.s.kernel->name, c.s.cta, c.s.thread_of(c.w, lane), i.line, i.text,
                           std::string(write ? "write" : "read") + " of " + std::to_string(bytes) +
                               " bytes at global address " + hex(a) + " is " + where +
                               "; it lies in a mapped 2 MiB page, so the GPU lets it through "
                               "(--strict-memory makes it a fault)");
    m.add_report(e.what());
  }
};

unsigned reg_bits(const Ctx& c, std::int32_t r) {
  return c.reg_width(r);
}

inline __attribute__((always_inline)) u64 load_value(const std::uint8_t* p, Type t) {
  const unsigned n = type_bytes(t);
  u64 v = 0;
  switch (n) {  // fixed sizes: a variable-size copy into v stalls the load of v
    case 1:
      v = *p;
      break;
    case 2: {
      std::uint16_t h;
      std::memcpy(&h, p, 2);
      v = h;
      break;
    }
    case 4: {
      std::uint32_t w;
      std::memcpy(&w, p, 4);
      v = w;
      break;
    }
    default:
      std::memcpy(&v, p, n > 8 ? 8 : n);
      break;
  }
  if (is_signed(t)) v = static_cast<u64>(sign_extend(v, n * 8));
  return v;
}

}  // namespace

// Also the element operation of the bulk reductions (ops_bulk_copy.cpp).
std::uint64_t atomic_op(Mode m, Type t, std::uint64_t old, std::uint64_t b, std::uint64_t c) {
  const unsigned bits = type_bits(t);
  const u64 o = truncate(old, bits), x = truncate(b, bits);
  switch (m) {
    case Mode::Add:
      if (t == Type::F32) return f32_to_bits(bits_to_f32(o) + bits_to_f32(x));
      if (t == Type::F64) return f64_to_bits(bits_to_f64(o) + bits_to_f64(x));
      if (t == Type::F16)
        return f64_to_f16(double{f16_to_f32(static_cast<std::uint16_t>(o))} +
                              f16_to_f32(static_cast<std::uint16_t>(x)),
                          Round::Rn);
      if (t == Type::BF16)
        return f64_to_bf16(double{bf16_to_f32(static_cast<std::uint16_t>(o))} +
                               bf16_to_f32(static_cast<std::uint16_t>(x)),
                           Round::Rn);
      if (t == Type::F16x2 || t == Type::BF16x2) {
        u64 r = 0;
        for (unsigned k = 0; k < 2; ++k) {
          const auto ho = static_cast<std::uint16_t>(o >> (16 * k)),
                     hx = static_cast<std::uint16_t>(x >> (16 * k));
          const u64 h = t == Type::F16x2
                            ? f64_to_f16(double{f16_to_f32(ho)} + f16_to_f32(hx), Round::Rn)
                            : f64_to_bf16(double{bf16_to_f32(ho)} + bf16_to_f32(hx), Round::Rn);
          r |= h << (16 * k);
        }
        return r;
      }
      return truncate(o + x, bits);
    case Mode::Min:
    case Mode::Max: {
      bool less;
      if (t == Type::F32)
        less = bits_to_f32(x) < bits_to_f32(o);
      else if (t == Type::F64)
        less = bits_to_f64(x) < bits_to_f64(o);
      else if (is_signed(t))
        less = sign_extend(x, bits) < sign_extend(o, bits);
      else
        less = x < o;
      if (m == Mode::Min) return less ? x : o;
      const bool greater = t == Type::F32   ? bits_to_f32(x) > bits_to_f32(o)
                           : t == Type::F64 ? bits_to_f64(x) > bits_to_f64(o)
                           : is_signed(t)   ? sign_extend(x, bits) > sign_extend(o, bits)
                                            : x > o;
      return greater ? x : o;
    }
    case Mode::Inc:
      return o >= x ? 0 : o + 1;
    case Mode::Dec:
      return (o == 0 || o > x) ? x : o - 1;
    case Mode::And:
      return o & x;
    case Mode::Or:
      return o | x;
    case Mode::Xor:
      return o ^ x;
    case Mode::Exch:
      return x;
    case Mode::Cas:
      return o == x ? truncate(c, bits) : o;
    default:
      return o;
  }
}

namespace {

// Where a non-generic space keeps its bytes: the fast path for scalar accesses.
// Null base means "ask Access::resolve" (global memory, or an out-of-range lane).
template <unsigned B>
inline std::uint8_t* fast_resolve(Ctx& c, const Access& acc, unsigned lane, u64 a) {
  std::uint8_t* p = nullptr;
  Space space = acc.space;
  switch (space) {
    case Space::Shared:
    case Space::SharedCta:
      if (a + B <= c.s.shared.size()) p = c.s.shared.data() + a;
      break;
    case Space::None:
    case Space::Generic:
      // Below the shared, local and cluster windows or above them: global.
      if (a - kSharedWindow < kClusterWindow + 16 * kWindowSize - kSharedWindow) break;
      space = Space::Global;
      [[fallthrough]];
    case Space::Global:
      p = c.s.memory->find(a, B);
      if (p) c.s.stats.global_bytes += B;
      c.s.global_writes += acc.write;
      break;
    case Space::Const:
      p = c.s.memory->find(a, B);
      break;
    case Space::Param:  // a kernel parameter named by its symbol (nvcc's ld.param)
      if (!acc.write && acc.addr.has_symbol && acc.addr.symbol_kind == SymbolKind::KernelParam &&
          a + B <= c.s.config->params.size() && a + B >= a)
        p = const_cast<std::uint8_t*>(c.s.config->params.data()) + a;
      break;
    default:
      break;
  }
  if (!p) return acc.resolve(lane, a, B);  // fills the record itself
  if (c.record) {
    c.record->addresses[lane] = a;
    c.record->space = space;
    c.record->access_bytes = B;
  }
  return p;
}

// Every lane's address of an access (inactive lanes' too, harmlessly), and
// over the active lanes: the OR of the addresses (alignment), their lowest
// and their highest (whether they share one block), found in the same pass.
struct Lanes {
  u64 a[32];
  bool uniform;  // no address register: every lane has a[0] (ld.param)
  u64 any, lo, hi;
};

// A converged warp's addresses with their OR, lowest and highest. Cloned for
// AVX2 where the host has it (64-bit compares in vector registers; integer
// work, so every clone gives the same result): this loop runs for every load
// and store.
__attribute__((target_clones("avx2", "default"))) void full_warp_addresses(const u64* base,
                                                                           u64 offset, u64 mask,
                                                                           Lanes& lanes) {
  u64 any = 0, lo = ~u64{0}, hi = 0;
  for (unsigned l = 0; l < 32; ++l) {
    const u64 a = (base[l] + offset) & mask;
    lanes.a[l] = a;
    any |= a;
    lo = a < lo ? a : lo;
    hi = a > hi ? a : hi;
  }
  lanes.any = any, lanes.lo = lo, lanes.hi = hi;
}

// The operand's register row and constant part are found once per
// instruction, not per lane.
void lane_addresses(Ctx& c, const Access& acc, Lanes& lanes) {
  const u64 offset = static_cast<u64>(acc.addr.imm) +
                     (acc.addr.reg < 0 && acc.addr.has_symbol ? c.symbol_value(acc.addr, 0) : 0);
  lanes.uniform = acc.addr.reg < 0;
  if (lanes.uniform) {
    const u64 a = offset & acc.mask;
    for (unsigned l = 0; l < 32; ++l) lanes.a[l] = a;
    lanes.any = lanes.lo = lanes.hi = a;
    return;
  }
  const u64* base = c.reg(acc.addr.reg);
  const u64 mask = acc.mask;
  if (c.mask == ~0u) {
    full_warp_addresses(base, offset, mask, lanes);
    return;
  }
  for (unsigned l = 0; l < 32; ++l) lanes.a[l] = (base[l] + offset) & mask;
  u64 any = 0, lo = ~u64{0}, hi = 0;
  each_lane(c.mask, [&](unsigned l) {
    const u64 a = lanes.a[l];
    any |= a;
    lo = a < lo ? a : lo;
    hi = a > hi ? a : hi;
  });
  lanes.any = any, lanes.lo = lo, lanes.hi = hi;
}

// An access of `bytes` (a power of two: a scalar, or a whole vector) must be
// aligned to its size; the hardware faults otherwise (cudaErrorMisalignedAddress).
void require_aligned(Ctx& c, const Access& acc, const Lanes& lanes, unsigned bytes) {
  const u64 low = bytes - 1;
  if ((lanes.any & low) == 0) return;
  unsigned lane = 0;
  while (lane < 31 && (!((c.mask >> lane) & 1u) || (lanes.a[lanes.uniform ? 0 : lane] & low) == 0))
    ++lane;
  char address[24];
  std::snprintf(address, sizeof address, "0x%llx",
                static_cast<unsigned long long>(lanes.a[lanes.uniform ? 0 : lane]));
  c.fault(lane, acc.i,
          std::string("misaligned address ") + address + ": a " + std::to_string(bytes) + "-byte " +
              space_name(acc.space) + " access needs " + std::to_string(bytes) + "-byte alignment");
}

// Whether every active lane's address lies in [first, first + width]
// (first + width does not wrap: a block of memory): its lowest and highest do.
bool lanes_within(const Lanes& lanes, u64 first, u64 width) {
  return lanes.lo >= first && lanes.hi - first <= width;
}

// The allocation holding lane a0's bytes, when every active lane's bytes lie
// in it too (and, for a generic access, it is clear of the shared, local and
// cluster windows): its bytes, with its first address in `origin`.
std::uint8_t* allocation_span(Ctx& c, const Lanes& lanes, u64 a0, unsigned bytes, bool generic,
                              u64& origin) {
  u64 base, end;
  std::uint8_t* p = c.s.memory->find_block(a0, bytes, base, end);
  if (!p) return nullptr;
  if (generic && end > kSharedWindow && base < kClusterWindow + 16 * kWindowSize) return nullptr;
  if (!lanes_within(lanes, base, end - bytes - base)) return nullptr;
  origin = base;
  return p;
}

// Host bytes p for addresses [origin, origin + size) when every active lane's
// bytes lie there, else null.
std::uint8_t* region_span(const Lanes& lanes, std::uint8_t* p, u64 origin, u64 size,
                          unsigned bytes) {
  return size >= bytes && lanes_within(lanes, origin, size - bytes) ? p : nullptr;
}

// When every active lane's `bytes` bytes lie in one block of the access's
// space (one allocation, this CTA's shared memory, the kernel parameters),
// the block's bytes, with the address of its first byte in `origin`, and the
// space: lanes then need no lookup each. Otherwise null: the lanes are
// resolved one by one (and a bad one faults).
std::uint8_t* span(Ctx& c, const Access& acc, unsigned bytes, const Lanes& lanes, u64& origin,
                   Space& space) {
  const u64 a0 = lanes.a[__builtin_ctz(c.mask)];
  space = acc.space;
  origin = 0;
  switch (space) {
    case Space::Shared:
    case Space::SharedCta:
      return region_span(lanes, c.s.shared.data(), 0, c.s.shared.size(), bytes);
    case Space::None:
    case Space::Generic:
      // All in this CTA's shared memory window (what Access::resolve records as
      // shared, at the generic address), or all in one global allocation.
      if (a0 >= kSharedWindow && a0 < kSharedWindow + kWindowSize) {
        space = Space::Shared;
        origin = kSharedWindow;
        return region_span(lanes, c.s.shared.data(), origin, c.s.shared.size(), bytes);
      }
      if (a0 >= kSharedWindow && a0 < kClusterWindow + 16 * kWindowSize) return nullptr;
      space = Space::Global;
      return allocation_span(c, lanes, a0, bytes, true, origin);
    case Space::Global:
    case Space::Const:
      return allocation_span(c, lanes, a0, bytes, false, origin);
    case Space::Param:  // kernel parameters named by their symbol, read only
      if (acc.write || !acc.addr.has_symbol || acc.addr.symbol_kind != SymbolKind::KernelParam)
        return nullptr;
      return region_span(lanes, const_cast<std::uint8_t*>(c.s.config->params.data()), 0,
                         c.s.config->params.size(), bytes);
    default:
      return nullptr;
  }
}

// Counts and records what Access::resolve would for the lanes of a span.
void record_span(Ctx& c, const Access& acc, const u64 (&a)[32], unsigned bytes, Space space) {
  if (space == Space::Global) {
    c.s.stats.global_bytes += std::uint64_t{bytes} * lane_count(c.mask);
    c.s.global_writes += acc.write;
  }
  if (!c.record) return;
  each_lane(c.mask, [&](unsigned l) { c.record->addresses[l] = a[l]; });
  c.record->space = space;
  c.record->access_bytes = bytes;
}

// Applies f(lane) to the active lanes; a straight loop over a full warp.
template <class F>
inline void active_lanes(std::uint32_t mask, F&& f) {
  if (mask == ~0u) {
    for (unsigned l = 0; l < 32; ++l) f(l);
  } else {
    each_lane(mask, f);
  }
}

template <unsigned B>
u64 load_bytes(const std::uint8_t* p, unsigned width, bool sign) {
  u64 v = 0;
  std::memcpy(&v, p, B);
  if (sign) v = static_cast<u64>(sign_extend(v, B * 8));
  return truncate(v, width);
}

// How a full warp's address register reads: one address for every lane (a
// loop-invariant pointer), lane l at the first plus l * B (a coalesced row),
// or neither. Found by comparing, without forming the 32 addresses.
enum class WarpPattern { Broadcast, Row, Scattered };

// Cloned for AVX2 like full_warp_addresses (integer work: every clone agrees).
__attribute__((target_clones("avx2", "default"))) WarpPattern warp_pattern(const u64* base,
                                                                           u64 stride) {
  const u64 first = base[0];
  u64 apart = 0, off_row = 0, expected = first;
  for (unsigned l = 0; l < 32; ++l) {
    apart |= base[l] ^ first;
    off_row |= base[l] ^ expected;
    expected += stride;
  }
  return apart == 0     ? WarpPattern::Broadcast
         : off_row == 0 ? WarpPattern::Row
                        : WarpPattern::Scattered;
}

// warp_pattern over the lanes of `mask` only (a diverged warp: the others'
// registers may hold anything); a row is lane l at origin + l * B, with
// origin, the address lane 0 would have, in `origin`.
__attribute__((target_clones("avx2", "default"))) WarpPattern active_pattern(const u64* base,
                                                                             u64 stride,
                                                                             std::uint32_t mask,
                                                                             u64& origin) {
  const unsigned lead = static_cast<unsigned>(__builtin_ctz(mask));
  const u64 first = base[lead];
  origin = first - lead * stride;
  u64 apart = 0, off_row = 0, expected = origin;
  for (unsigned l = 0; l < 32; ++l) {
    const u64 keep = u64{0} - ((mask >> l) & 1);
    apart |= (base[l] ^ first) & keep;
    off_row |= (base[l] ^ expected) & keep;
    expected += stride;
  }
  if (apart == 0) origin = first;
  return apart == 0     ? WarpPattern::Broadcast
         : off_row == 0 ? WarpPattern::Row
                        : WarpPattern::Scattered;
}

// The register row holding an access's addresses (null for [symbol+imm]).
const u64* address_row(Ctx& c, const Access& acc) {
  return acc.addr.reg >= 0 ? c.reg(acc.addr.reg) : nullptr;
}

// For a full warp whose addresses form a broadcast or a row that neither
// wraps nor misaligns, the Lanes span() and record_span() need (the first
// address, the lowest, highest and their OR); false otherwise, when the
// general path forms every address (and names a bad one).
// `active_only`: also for a warp with inactive lanes (whose addresses are
// then ignored); the caller reads or writes the active lanes only.
template <unsigned B>
bool warp_row_lanes(Ctx& c, const Access& acc, Lanes& lanes, WarpPattern& pattern, const u64* base,
                    bool active_only = false) {
  if (c.mask != ~0u && !(active_only && c.mask != 0)) return false;
  u64 first;
  if (acc.addr.reg < 0) {  // [symbol+imm], [imm]: one address (ld.param)
    pattern = WarpPattern::Broadcast;
    first =
        (static_cast<u64>(acc.addr.imm) + (acc.addr.has_symbol ? c.symbol_value(acc.addr, 0) : 0)) &
        acc.mask;
  } else if (c.mask != ~0u) {
    u64 origin;
    pattern = active_pattern(base, B, c.mask, origin);
    if (pattern == WarpPattern::Scattered) return false;
    first = (origin + static_cast<u64>(acc.addr.imm)) & acc.mask;
  } else {
    pattern = warp_pattern(base, B);
    if (pattern == WarpPattern::Scattered) return false;
    first = (base[0] + static_cast<u64>(acc.addr.imm)) & acc.mask;
  }
  const u64 last = first + (pattern == WarpPattern::Row ? 31 * B : 0);
  if ((first & (B - 1)) != 0 || last < first || last > acc.mask) return false;
  lanes.uniform = false;
  lanes.any = lanes.lo = first;
  lanes.hi = last;
  if (c.record) {
    for (unsigned l = 0; l < 32; ++l)
      lanes.a[l] = first + (pattern == WarpPattern::Row ? l * B : 0);
  } else {
    // All span() reads: the first active lane's address.
    const unsigned lead = static_cast<unsigned>(__builtin_ctz(c.mask));
    lanes.a[lead] = first + (pattern == WarpPattern::Row ? lead * B : 0);
  }
  return true;
}

// Where a full warp's broadcast or row access lies in host memory (its
// space in `space`, the Lanes record_span needs in `lanes`); null when the
// warp takes the lane-by-lane path. Counts nothing.
template <unsigned B>
std::uint8_t* whole_warp_bytes(Ctx& c, const Access& acc, const u64* row, WarpPattern& pattern,
                               Lanes& lanes, Space& space, bool active_only = false) {
  if (!warp_row_lanes<B>(c, acc, lanes, pattern, row, active_only)) return nullptr;
  u64 origin;
  std::uint8_t* base = span(c, acc, B, lanes, origin, space);
  return base ? base + (lanes.lo - origin) : nullptr;
}

// A row of 32 B-byte values, zero-extended: a loop the compiler vectorizes
// (restrict: the registers are never the memory read).
template <unsigned B>
void load_row_zero_extended(const std::uint8_t* __restrict p, u64* __restrict d) {
  using Word = std::conditional_t<
      B == 1, std::uint8_t,
      std::conditional_t<B == 2, std::uint16_t, std::conditional_t<B == 4, std::uint32_t, u64>>>;
  for (unsigned l = 0; l < 32; ++l) {
    Word w;
    std::memcpy(&w, p + l * B, B);
    d[l] = w;
  }
}

template <unsigned B>
void load_whole(const std::uint8_t* p, WarpPattern pattern, u64* d, unsigned width, bool sign) {
  if (pattern == WarpPattern::Broadcast) {
    const u64 v = load_bytes<B>(p, width, sign);
    for (unsigned l = 0; l < 32; ++l) d[l] = v;
  } else if (width == B * 8 || (!sign && width > B * 8)) {
    // Sign extension, if any, is cut off again: the bytes as they are.
    load_row_zero_extended<B>(p, d);
  } else {
    for (unsigned l = 0; l < 32; ++l) d[l] = load_bytes<B>(p + l * B, width, sign);
  }
}

// load_whole for the active lanes of a diverged warp.
template <unsigned B>
void load_active(const std::uint8_t* p, WarpPattern pattern, u64* d, unsigned width, bool sign,
                 std::uint32_t mask) {
  if (pattern == WarpPattern::Broadcast) {
    const u64 v = load_bytes<B>(p, width, sign);
    each_lane(mask, [&](unsigned l) { d[l] = v; });
  } else {
    each_lane(mask, [&](unsigned l) { d[l] = load_bytes<B>(p + l * B, width, sign); });
  }
}

template <unsigned B>
void store_whole(std::uint8_t* p, WarpPattern pattern, const u64* v) {
  if (pattern == WarpPattern::Broadcast) {
    std::memcpy(p, &v[31], B);  // lanes store in lane order: the last one's value stays
  } else {
    for (unsigned l = 0; l < 32; ++l) std::memcpy(p + l * B, &v[l], B);
  }
}

template <unsigned B>
void load_lanes(Ctx& c, const Access& acc, u64* d, unsigned width, bool sign) {
  Lanes lanes;
  WarpPattern pattern;
  Space whole_space;
  if (const std::uint8_t* p =
          whole_warp_bytes<B>(c, acc, address_row(c, acc), pattern, lanes, whole_space, true)) {
    record_span(c, acc, lanes.a, B, whole_space);
    if (c.mask == ~0u)
      load_whole<B>(p, pattern, d, width, sign);
    else
      load_active<B>(p, pattern, d, width, sign, c.mask);
    return;
  }
  lane_addresses(c, acc, lanes);
  if (B > 1) require_aligned(c, acc, lanes, B);
  const u64(&a)[32] = lanes.a;
  u64 origin;
  Space space;
  if (const std::uint8_t* base = span(c, acc, B, lanes, origin, space)) {
    record_span(c, acc, a, B, space);
    active_lanes(c.mask,
                 [&](unsigned l) { d[l] = load_bytes<B>(base + (a[l] - origin), width, sign); });
    return;
  }
  each_lane(c.mask, [&](unsigned l) {
    d[l] = load_bytes<B>(fast_resolve<B>(c, acc, l, a[l]), width, sign);
  });
}

void load_scalar(Ctx& c, const Instruction& i, const Access& acc, u64* d, unsigned width) {
  const bool sign = is_signed(i.type);
  switch (type_bytes(i.type)) {
    case 1:
      load_lanes<1>(c, acc, d, width, sign);
      break;
    case 2:
      load_lanes<2>(c, acc, d, width, sign);
      break;
    case 4:
      load_lanes<4>(c, acc, d, width, sign);
      break;
    default:
      load_lanes<8>(c, acc, d, width, sign);
      break;
  }
}

template <unsigned B>
void store_lanes(Ctx& c, const Access& acc, const u64* v) {
  Lanes lanes;
  WarpPattern pattern;
  Space whole_space;
  if (std::uint8_t* p =
          whole_warp_bytes<B>(c, acc, address_row(c, acc), pattern, lanes, whole_space)) {
    record_span(c, acc, lanes.a, B, whole_space);
    store_whole<B>(p, pattern, v);
    return;
  }
  lane_addresses(c, acc, lanes);
  if (B > 1) require_aligned(c, acc, lanes, B);
  const u64(&a)[32] = lanes.a;
  u64 origin;
  Space space;
  if (std::uint8_t* base = span(c, acc, B, lanes, origin, space)) {
    record_span(c, acc, a, B, space);
    active_lanes(c.mask, [&](unsigned l) { std::memcpy(base + (a[l] - origin), &v[l], B); });
    return;
  }
  each_lane(c.mask, [&](unsigned l) {
    std::uint8_t* p = fast_resolve<B>(c, acc, l, a[l]);
    std::memcpy(p, &v[l], B);
  });
}

void store_scalar(Ctx& c, const Instruction& i, const Access& acc, const u64* v) {
  switch (type_bytes(i.type)) {
    case 1:
      store_lanes<1>(c, acc, v);
      break;
    case 2:
      store_lanes<2>(c, acc, v);
      break;
    case 4:
      store_lanes<4>(c, acc, v);
      break;
    default:
      store_lanes<8>(c, acc, v);
      break;
  }
}

// ld/st of a vector {a, b, ...} (or a scalar wider than 8 bytes): when the
// lanes' accesses lie in one block, one lookup for the instruction; null
// otherwise (the caller resolves lane by lane).
std::uint8_t* vector_span(Ctx& c, const Access& acc, unsigned bytes, Lanes& lanes, u64& origin) {
  lane_addresses(c, acc, lanes);
  if ((bytes & (bytes - 1)) == 0) require_aligned(c, acc, lanes, bytes);
  Space space;
  std::uint8_t* base = span(c, acc, bytes, lanes, origin, space);
  if (base) record_span(c, acc, lanes.a, bytes, space);
  return base;
}

// cp.async with constant sizes whose lanes' destinations lie in this CTA's
// shared memory and whose sources lie in one allocation: two lookups for the
// instruction instead of two per lane, with what the lane-by-lane copy below
// counts and records (each lane's last access: its source, or its
// destination when it copies nothing). False when the form or the addresses
// need the lane-by-lane copy.
bool async_copy_spans(Ctx& c, const Instruction& i, const Access& dst, const Access& src) {
  const Operand& size_op = i.ops[2];
  const bool has_src_size = i.nops > 3;
  if (size_op.kind != Operand::Kind::Imm || (has_src_size && i.ops[3].kind != Operand::Kind::Imm))
    return false;
  const unsigned n = static_cast<unsigned>(static_cast<u64>(size_op.imm));
  const unsigned from =
      has_src_size ? static_cast<unsigned>(std::min<u64>(static_cast<u64>(i.ops[3].imm), n)) : n;
  if (n == 0 || n > 16) return false;
  Lanes dl, sl;
  u64 dlo, slo = 0;
  lane_addresses(c, dst, dl);
  const u64(&da)[32] = dl.a;
  const u64(&sa)[32] = sl.a;
  Space dspace, sspace = Space::Global;
  std::uint8_t* dblock = span(c, dst, n, dl, dlo, dspace);
  if (!dblock) return false;
  const std::uint8_t* sblock = nullptr;
  if (from) {
    lane_addresses(c, src, sl);
    sblock = span(c, src, from, sl, slo, sspace);
    if (!sblock) return false;
    c.s.stats.global_bytes += std::uint64_t{from} * lane_count(c.mask);
  }
  each_lane(c.mask, [&](unsigned l) {
    std::uint8_t* d = dblock + (da[l] - dlo);
    if (from) std::memcpy(d, sblock + (sa[l] - slo), from);
    std::memset(d + from, 0, n - from);
  });
  if (c.record) {
    each_lane(c.mask, [&](unsigned l) { c.record->addresses[l] = from ? sa[l] : da[l]; });
    c.record->space = from ? sspace : dspace;
    c.record->access_bytes = from ? from : n;
  }
  return true;
}

// One element of a vector load for the active lanes, lane l's from at[l] + offset.
template <unsigned B>
void fill_element_of(u64* row, const std::uint8_t* const* at, std::uint32_t mask, unsigned offset,
                     unsigned width, bool sign) {
  each_lane(mask, [&](unsigned l) { row[l] = load_bytes<B>(at[l] + offset, width, sign); });
}
void fill_element(u64* row, const std::uint8_t* const* at, std::uint32_t mask, unsigned offset,
                  unsigned eb, unsigned width, bool sign, Type type) {
  switch (eb) {
    case 1:
      return fill_element_of<1>(row, at, mask, offset, width, sign);
    case 2:
      return fill_element_of<2>(row, at, mask, offset, width, sign);
    case 4:
      return fill_element_of<4>(row, at, mask, offset, width, sign);
    case 8:
      return fill_element_of<8>(row, at, mask, offset, width, sign);
    default:
      each_lane(mask,
                [&](unsigned l) { row[l] = truncate(load_value(at[l] + offset, type), width); });
  }
}

// A vector load ({a, b, ...}) of `Bytes` per lane whose active lanes read
// one address or a row: one lookup, then each element's register row filled
// lane after lane. False (nothing done) otherwise.
template <unsigned Bytes>
bool load_vector_whole(Ctx& c, const Instruction& i, const Access& acc, u64* const* rows,
                       const unsigned* widths, unsigned n) {
  Lanes lanes;
  WarpPattern pattern;
  Space space;
  const std::uint8_t* p =
      whole_warp_bytes<Bytes>(c, acc, address_row(c, acc), pattern, lanes, space, true);
  if (!p) return false;
  record_span(c, acc, lanes.a, Bytes, space);
  const unsigned eb = Bytes / n;
  const u64 stride = pattern == WarpPattern::Row ? Bytes : 0;
  const std::uint8_t* at[32];
  each_lane(c.mask, [&](unsigned l) { at[l] = p + l * stride; });
  for (unsigned k = 0; k < n; ++k)
    if (rows[k])
      fill_element(rows[k], at, c.mask, k * eb, eb, widths[k], is_signed(i.type), i.type);
  return true;
}

}  // namespace

SharedTarget shared_target(Executor::Cta::State& s, Space space, std::uint64_t a) {
  ClusterState& cl = *s.cluster;
  auto member = [&](std::uint64_t rank) -> Executor::Cta::State* {
    return rank < cl.members.size() ? cl.members[rank] : nullptr;
  };
  if (space == Space::SharedCluster) {
    const std::uint64_t tag = a >> kClusterRankShift;
    if (tag == 0) return {&s, a};
    return {member(tag - 1), a & ((std::uint64_t{1} << kClusterRankShift) - 1)};
  }
  if (a >= kSharedWindow && a < kSharedWindow + kWindowSize) return {&s, a - kSharedWindow};
  if (a >= kClusterWindow && a < kClusterWindow + 16 * kWindowSize)
    return {member((a - kClusterWindow) / kWindowSize), (a - kClusterWindow) % kWindowSize};
  if (space == Space::Shared || space == Space::SharedCta) return {&s, a};
  return {nullptr, 0};
}

// The bytes at an address in a state space (any CTA of the cluster), or a fault.
std::uint8_t* space_bytes(Ctx& c, const Instruction& i, Space space, std::uint64_t a,
                          unsigned bytes, unsigned lane) {
  static const Operand none;
  Access acc{c, i, none, space, false};
  return acc.resolve(lane, a, bytes);
}

bool exec_memory(Ctx& c, const Instruction& i) {
  switch (i.op) {
    case Opcode::ld:
    case Opcode::ldu: {
      const Operand& d = i.ops[0];
      Access acc{c, i, i.ops[1], i.space, false};
      const unsigned eb = type_bytes(i.type);
      if (d.kind == Operand::Kind::Reg) {
        load_scalar(c, i, acc, c.reg(d.reg), c.reg_width(d.reg));
        return true;
      }
      const unsigned n = d.kind == Operand::Kind::Vector ? static_cast<unsigned>(d.regs.size()) : 1;
      // Each element's register row and width, found once for the instruction.
      constexpr unsigned kMaxElements = 8;
      if (n > kMaxElements)
        c.fault(static_cast<unsigned>(__builtin_ctz(c.mask)), i, "vector too long");
      u64* rows[kMaxElements] = {};
      unsigned widths[kMaxElements] = {};
      for (unsigned k = 0; k < n && d.kind == Operand::Kind::Vector; ++k)
        if (d.regs[k] >= 0) rows[k] = c.reg(d.regs[k]), widths[k] = reg_bits(c, d.regs[k]);
      if (d.kind == Operand::Kind::Vector &&
          ((eb * n == 16 && load_vector_whole<16>(c, i, acc, rows, widths, n)) ||
           (eb * n == 8 && load_vector_whole<8>(c, i, acc, rows, widths, n))))
        return true;
      Lanes lanes;
      u64 origin;
      const std::uint8_t* block = vector_span(c, acc, eb * n, lanes, origin);
      const std::uint8_t* at[32];
      each_lane(c.mask, [&](unsigned l) {
        const u64 a = lanes.a[l];
        at[l] = block ? block + (a - origin) : acc.resolve(l, a, eb * n);
      });
      const bool sign = is_signed(i.type);
      for (unsigned k = 0; k < n; ++k)
        if (rows[k]) fill_element(rows[k], at, c.mask, k * eb, eb, widths[k], sign, i.type);
      return true;
    }
    case Opcode::st: {
      const Operand& v = i.ops[1];
      Access acc{c, i, i.ops[0], i.space, true};
      const unsigned eb = type_bytes(i.type);
      std::uint64_t scratch[32];
      if (v.kind != Operand::Kind::Vector) {
        store_scalar(c, i, acc, c.src(v, scratch));
        return true;
      }
      const unsigned n = v.kind == Operand::Kind::Vector ? static_cast<unsigned>(v.regs.size()) : 1;
      const u64* value = v.kind == Operand::Kind::Vector ? nullptr : c.src(v, scratch);
      Lanes lanes;
      u64 origin;
      std::uint8_t* block = vector_span(c, acc, eb * n, lanes, origin);
      each_lane(c.mask, [&](unsigned l) {
        const u64 a = lanes.a[l];
        std::uint8_t* p = block ? block + (a - origin) : acc.resolve(l, a, eb * n);
        for (unsigned k = 0; k < n; ++k) {
          const u64 x = value ? value[l] : (v.regs[k] >= 0 ? c.reg(v.regs[k])[l] : 0);
          std::memcpy(p + k * eb, &x, eb > 8 ? 8 : eb);
        }
      });
      return true;
    }
    case Opcode::atom:
    case Opcode::red: {
      const bool is_atom = i.op == Opcode::atom;
      const Operand& addr = i.ops[is_atom ? 1 : 0];
      Access acc{c, i, addr, i.space, true};
      std::uint64_t sb[32], sc[32];
      const u64* b = c.src(i.ops[is_atom ? 2 : 1], sb);
      const u64* x = (i.mode == Mode::Cas) ? c.src(i.ops[is_atom ? 3 : 2], sc) : nullptr;
      const unsigned eb = type_bytes(i.type);
      // Lanes in order, each read-modify-write complete before the next and
      // atomic with respect to host threads (system-scope atomics on host memory).
      each_lane(c.mask, [&](unsigned l) {
        const u64 a = acc.address(l);
        std::uint8_t* p = acc.resolve(l, a, eb);
        const u64 old = atomic_update(
            p, eb, [&](u64 o) { return atomic_op(i.mode, i.type, o, b[l], x ? x[l] : 0); });
        if (is_atom)
          put(c, i.ops[0], l,
              is_signed(i.type) ? truncate(static_cast<u64>(sign_extend(old, eb * 8)), eb * 8)
                                : old);
      });
      return true;
    }
    case Opcode::cp: {
      if (i.mode == Mode::MbArrive) return false;  // cp.async.mbarrier.arrive: ops_mbarrier.cpp
      if (i.has(kBulk)) return exec_bulk(c, i);
      if (i.nops < 3 || i.ops[0].kind != Operand::Kind::Address) return true;  // commit/wait
      Access dst{c, i, i.ops[0], Space::Shared, true};
      Access src{c, i, i.ops[1], Space::Global, false};
      if (async_copy_spans(c, i, dst, src)) return true;
      std::uint64_t ss[32], sz[32];
      const u64* size = c.src(i.ops[2], ss);
      const u64* src_size = i.nops > 3 && i.ops[3].kind != Operand::Kind::Reg ? c.src(i.ops[3], sz)
                            : i.nops > 3                                      ? c.src(i.ops[3], sz)
                                                                              : nullptr;
      each_lane(c.mask, [&](unsigned l) {
        const unsigned n = static_cast<unsigned>(size[l]);
        const unsigned from = src_size ? static_cast<unsigned>(std::min<u64>(src_size[l], n)) : n;
        std::uint8_t* d = dst.resolve(l, dst.address(l), n);
        if (from) std::memcpy(d, src.resolve(l, src.address(l), from), from);
        std::memset(d + from, 0, n - from);
      });
      return true;
    }
    default:
      return false;
  }
}

// --- Handlers for the frequent forms (fast_paths.h): the scalar ld and st of
// exec_memory with the access size fixed.
namespace {

template <unsigned B>
void load_fast(Ctx& c, const Instruction& i) {
  const Operand& d = i.ops[0];
  Access acc{c, i, i.ops[1], i.space, false};
  load_lanes<B>(c, acc, c.reg(d.reg), c.reg_width(d.reg), is_signed(i.type));
}

template <unsigned B>
void store_fast(Ctx& c, const Instruction& i) {
  Access acc{c, i, i.ops[0], i.space, true};
  std::uint64_t scratch[32];
  store_lanes<B>(c, acc, c.src(i.ops[1], scratch));
}

// A gang's scalar ld/st: served whole for every warp (a broadcast or a row
// inside one block) or, having done nothing, left to the one-warp handlers.
template <unsigned B>
bool load_gang(const Gang& g, const Instruction& i) {
  const Operand& d = i.ops[0];
  if (!plain_register(d) || !g.lead) return false;
  Ctx& c = *g.lead;
  Access acc{c, i, i.ops[1], i.space, false};
  const std::uint8_t* from[kMaxGang];
  WarpPattern pattern[kMaxGang];
  Space space[kMaxGang];
  Lanes lanes;
  for (std::size_t k = 0; k < g.n; ++k) {
    const u64* addresses = acc.addr.reg >= 0 ? g.regs[k] + row(acc.addr) : nullptr;
    from[k] = whole_warp_bytes<B>(c, acc, addresses, pattern[k], lanes, space[k]);
    if (!from[k]) return false;
  }
  const unsigned width = c.reg_width(d.reg);
  const bool sign = is_signed(i.type);
  for (std::size_t k = 0; k < g.n; ++k) {
    record_span(c, acc, lanes.a, B, space[k]);  // counts only: a gang has no step record
    load_whole<B>(from[k], pattern[k], g.regs[k] + row(d), width, sign);
  }
  return true;
}

template <unsigned B>
bool store_gang(const Gang& g, const Instruction& i) {
  const Operand& v = i.ops[1];
  if (!(plain_register(v) || v.kind == Operand::Kind::Imm) || !g.lead) return false;
  Ctx& c = *g.lead;
  Access acc{c, i, i.ops[0], i.space, true};
  std::uint8_t* to[kMaxGang];
  WarpPattern pattern[kMaxGang];
  Space space[kMaxGang];
  Lanes lanes;
  for (std::size_t k = 0; k < g.n; ++k) {
    const u64* addresses = acc.addr.reg >= 0 ? g.regs[k] + row(acc.addr) : nullptr;
    to[k] = whole_warp_bytes<B>(c, acc, addresses, pattern[k], lanes, space[k]);
    if (!to[k]) return false;
  }
  u64 immediate[32];
  if (v.kind == Operand::Kind::Imm)
    for (unsigned l = 0; l < 32; ++l) immediate[l] = static_cast<u64>(v.imm);
  for (std::size_t k = 0; k < g.n; ++k) {
    record_span(c, acc, lanes.a, B, space[k]);
    store_whole<B>(to[k], pattern[k],
                   v.kind == Operand::Kind::Imm ? immediate : g.regs[k] + row(v));
  }
  return true;
}

}  // namespace

GangHandler memory_gang_handler(FastForm f) {
  switch (f) {
    case FastForm::Load1:
      return load_gang<1>;
    case FastForm::Load2:
      return load_gang<2>;
    case FastForm::Load4:
      return load_gang<4>;
    case FastForm::Load8:
      return load_gang<8>;
    case FastForm::Store1:
      return store_gang<1>;
    case FastForm::Store2:
      return store_gang<2>;
    case FastForm::Store4:
      return store_gang<4>;
    case FastForm::Store8:
      return store_gang<8>;
    default:
      return nullptr;
  }
}

FastHandler memory_fast_handler(FastForm f) {
  switch (f) {
    case FastForm::Load1:
      return load_fast<1>;
    case FastForm::Load2:
      return load_fast<2>;
    case FastForm::Load4:
      return load_fast<4>;
    case FastForm::Load8:
      return load_fast<8>;
    case FastForm::Store1:
      return store_fast<1>;
    case FastForm::Store2:
      return store_fast<2>;
    case FastForm::Store4:
      return store_fast<4>;
    case FastForm::Store8:
      return store_fast<8>;
    default:
      return nullptr;
  }
}

}  // namespace cnuas::ptx
