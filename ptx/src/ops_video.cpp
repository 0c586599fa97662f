// Video instructions (PTX ISA "Video Instructions"): the scalar forms vadd, vsub, vabsdiff,
// vmin, vmax, vshl, vshr, vmad and vset with byte/half selectors, saturation, a secondary
// operation or a merge into c; and the SIMD forms vadd2/4, vsub2/4, vavrg2/4, vabsdiff2/4,
// vmin2/4, vmax2/4 and vset2/4 with element selectors over the pair {b, a}, a destination
// mask and an optional accumulate (.add).
#include <algorithm>

#include "decode.h"
#include "lanes.h"

namespace cnuas::ptx {
namespace {

using u64 = std::uint64_t;
using i64 = std::int64_t;
__extension__ typedef __int128 i128;

i64 extend(u64 v, unsigned bits, bool sgn) {
  v = truncate(v, bits);
  return sgn ? sign_extend(v, bits) : static_cast<i64>(v);
}

i128 clamp_to(i128 v, unsigned bits, bool sgn) {
  const i128 lo = sgn ? -(i128{1} << (bits - 1)) : 0;
  const i128 hi = sgn ? (i128{1} << (bits - 1)) - 1 : (i128{1} << bits) - 1;
  return std::min(std::max(v, lo), hi);
}

bool compare(Cmp cmp, i64 a, i64 b) {
  switch (cmp) {
    case Cmp::Eq:
      return a == b;
    case Cmp::Ne:
      return a != b;
    case Cmp::Lt:
      return a < b;
    case Cmp::Le:
      return a <= b;
    case Cmp::Gt:
      return a > b;
    case Cmp::Ge:
      return a >= b;
    default:
      return false;
  }
}

// The element operation shared by the scalar and SIMD forms (vshl/vshr/vmad are scalar only).
i128 element_op(const Instruction& i, i64 a, i64 b) {
  switch (i.op) {
    case Opcode::vadd:
    case Opcode::vadd2:
    case Opcode::vadd4:
      return i128{a} + b;
    case Opcode::vsub:
    case Opcode::vsub2:
    case Opcode::vsub4:
      return i128{a} - b;
    case Opcode::vabsdiff:
    case Opcode::vabsdiff2:
    case Opcode::vabsdiff4:
      return a > b ? i128{a} - b : i128{b} - a;
    case Opcode::vmin:
    case Opcode::vmin2:
    case Opcode::vmin4:
      return std::min(a, b);
    case Opcode::vmax:
    case Opcode::vmax2:
    case Opcode::vmax4:
      return std::max(a, b);
    case Opcode::vavrg2:
    case Opcode::vavrg4: {
      const i64 s = a + b;  // rounds half away from zero for non-negative sums, down otherwise
      return s >= 0 ? (s + 1) >> 1 : s >> 1;
    }
    case Opcode::vset:
    case Opcode::vset2:
    case Opcode::vset4:
      return compare(i.cmp, a, b) ? 1 : 0;
    default:
      return 0;
  }
}

// A scalar operand: the selected byte or half (or the whole word), extended by its type.
i64 select_scalar(u64 v, const Operand& o, bool sgn) {
  if (o.sel_bits == 0) return extend(v, 32, sgn);
  return extend(v >> (o.sel_bits * o.sel_digit(0)), o.sel_bits, sgn);
}

u64 vmad(const Instruction& i, i64 a, i64 b, u64 c) {
  const bool na = i.ops[1].negate, nb = i.ops[2].negate, nc = i.ops[3].negate;
  const bool signed_final = is_signed(i.type2) || is_signed(i.type3) || (na != nb) || nc;
  i128 product = i128{a} * b;
  i128 lsb = 0;
  if (i.has(kPlusOne)) {
    lsb = 1;
  } else if (na != nb) {
    product = ~product;  // -(a*b) = ~(a*b) + 1
    lsb = 1;
  } else if (nc) {
    c = ~c;
    lsb = 1;
  }
  const i128 tc = signed_final ? i128{sign_extend(truncate(c, 32), 32)} : i128{truncate(c, 32)};
  i128 r = product + tc + lsb;
  if (i.has(kShr7)) r >>= 7;
  if (i.has(kShr15)) r >>= 15;
  r = static_cast<i64>(static_cast<u64>(r));  // the ISA keeps 64 bits of the scaled sum
  if (i.has(kSat)) r = clamp_to(r, 32, signed_final);
  return truncate(static_cast<u64>(r), 32);
}

u64 scalar(const Instruction& i, u64 ra, u64 rb, u64 rc) {
  const i64 a = select_scalar(ra, i.ops[1], is_signed(i.type2));
  const i64 b = select_scalar(rb, i.ops[2], is_signed(i.type3));
  if (i.op == Opcode::vmad) return vmad(i, a, b, rc);
  const bool dsigned = is_signed(i.type);
  i128 t;
  if (i.op == Opcode::vshl || i.op == Opcode::vshr) {
    const u64 amount = truncate(static_cast<u64>(b), 32);
    const unsigned n =
        static_cast<unsigned>(i.has(kWrap) ? amount & 31 : std::min<u64>(amount, 32));
    t = i.op == Opcode::vshl ? i128{a} * (i128{1} << n) : i128{a} >> n;  // .clamp by default
  } else {
    t = element_op(i, a, b);
  }
  const Operand& d = i.ops[0];
  if (i.has(kSat) && i.op != Opcode::vset) t = clamp_to(t, d.sel_bits ? d.sel_bits : 32, dsigned);
  const u64 tmp = truncate(static_cast<u64>(t), 32);
  switch (i.mode) {
    case Mode::Add:
      return truncate(tmp + rc, 32);
    case Mode::Min:
    case Mode::Max: {
      const i64 x = extend(tmp, 32, dsigned), y = extend(rc, 32, dsigned);
      return truncate(static_cast<u64>(i.mode == Mode::Min ? std::min(x, y) : std::max(x, y)), 32);
    }
    default:
      break;
  }
  if (d.sel_bits == 0) return tmp;
  const unsigned shift = d.sel_bits * d.sel_digit(0);
  const u64 field = truncate(~u64{0}, d.sel_bits) << shift;
  return truncate((rc & ~field) | ((tmp << shift) & field), 32);
}

u64 simd(const Instruction& i, unsigned lanes, u64 ra, u64 rb, u64 rc) {
  const unsigned w = 32 / lanes;
  const u64 pair = truncate(ra, 32) | (truncate(rb, 32) << 32);
  const Operand &d = i.ops[0], &oa = i.ops[1], &ob = i.ops[2];
  unsigned mask = d.sel_count ? 0 : (1u << lanes) - 1;
  for (unsigned k = 0; k < d.sel_count; ++k) mask |= 1u << d.sel_digit(k);
  const bool dsigned = is_signed(i.type);
  u64 merged = 0;
  i128 sum = 0;
  for (unsigned e = 0; e < lanes; ++e) {
    const unsigned sa = oa.sel_count ? oa.sel_digit(e) : e;          // default: a's elements
    const unsigned sb = ob.sel_count ? ob.sel_digit(e) : e + lanes;  // default: b's elements
    const i64 a = extend(pair >> (w * sa), w, is_signed(i.type2));
    const i64 b = extend(pair >> (w * sb), w, is_signed(i.type3));
    i128 t = element_op(i, a, b);
    if (i.has(kSat) && !(i.op == Opcode::vset2 || i.op == Opcode::vset4))
      t = clamp_to(t, w, dsigned);
    const bool on = (mask >> e) & 1;
    if (on) sum += t;
    const u64 element = on ? static_cast<u64>(t) : rc >> (w * e);
    merged |= truncate(element, w) << (w * e);
  }
  if (i.mode == Mode::Add) return truncate(static_cast<u64>(sum) + rc, 32);
  return merged;
}

}  // namespace

bool exec_video(Ctx& c, const Instruction& i) {
  const unsigned lanes = video_lanes(i.op);
  if (lanes == 0) return false;
  if (i.nops == 3) {
    map2(c, i, [&i](u64 a, u64 b) { return scalar(i, a, b, 0); });
  } else if (lanes == 1) {
    map3(c, i, [&i](u64 a, u64 b, u64 x) { return scalar(i, a, b, x); });
  } else {
    map3(c, i, [&i, lanes](u64 a, u64 b, u64 x) { return simd(i, lanes, a, b, x); });
  }
  return true;
}

}  // namespace cnuas::ptx
