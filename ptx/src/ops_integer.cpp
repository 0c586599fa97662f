// Integer and bit instructions: add/sub/mul/mad (lo, hi, wide, sat, carry),
// div/rem, min/max/abs/neg, popc/clz/bfind/brev/bfe/bfi/prmt, shifts, logic,
// lop3, dp4a/dp2a, sad, bmsk, szext, mov, selp, setp/set on integers.
#include <limits>
#include <type_traits>

#include "fast_paths.h"
#include "lanes.h"

namespace cnuas::ptx {
namespace {

using u64 = std::uint64_t;
using i64 = std::int64_t;
__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

struct IntType {
  unsigned bits;
  bool is_signed;
  u64 trunc(u64 v) const { return truncate(v, bits); }
  i64 sx(u64 v) const { return sign_extend(v, bits); }
  u64 zx(u64 v) const { return truncate(v, bits); }
  i128 val(u64 v) const { return is_signed ? i128{sx(v)} : i128{zx(v)}; }
  i64 smin() const {
    return bits >= 64 ? std::numeric_limits<i64>::min() : -(i64{1} << (bits - 1));
  }
  i64 smax() const {
    return bits >= 64 ? std::numeric_limits<i64>::max() : (i64{1} << (bits - 1)) - 1;
  }
};

IntType int_type(Type t) {
  return {t == Type::Pred ? 1 : type_bits(t), is_signed(t)};
}

u64 saturate_signed(i128 v, IntType t) {
  if (v < t.smin()) v = t.smin();
  if (v > t.smax()) v = t.smax();
  return t.trunc(static_cast<u64>(v));
}

bool compare_int(Cmp cmp, u64 a, u64 b, IntType t) {
  const i128 x = t.val(a), y = t.val(b);
  const u64 ua = t.zx(a), ub = t.zx(b);
  switch (cmp) {
    case Cmp::Eq:
      return ua == ub;
    case Cmp::Ne:
      return ua != ub;
    case Cmp::Lt:
      return x < y;
    case Cmp::Le:
      return x <= y;
    case Cmp::Gt:
      return x > y;
    case Cmp::Ge:
      return x >= y;
    case Cmp::Lo:
      return ua < ub;
    case Cmp::Ls:
      return ua <= ub;
    case Cmp::Hi:
      return ua > ub;
    case Cmp::Hs:
      return ua >= ub;
    default:
      return false;
  }
}

u64 bfe(u64 a, u64 b, u64 c, IntType t) {
  const unsigned msb = t.bits - 1, pos = b & 0xff, len = c & 0xff;
  u64 sbit = 0;
  if (t.is_signed && len != 0) sbit = (a >> std::min(pos + len - 1, msb)) & 1;
  u64 d = 0;
  for (unsigned k = 0; k <= msb; ++k) {
    const u64 bit = (k < len && pos + k <= msb) ? (a >> (pos + k)) & 1 : sbit;
    d |= bit << k;
  }
  return d;
}

u64 bfi(u64 a, u64 b, u64 c, u64 d, IntType t) {
  const unsigned msb = t.bits - 1, pos = c & 0xff, len = d & 0xff;
  u64 f = b;
  for (unsigned k = 0; k < len && pos + k <= msb; ++k) {
    const u64 bit = (a >> k) & 1;
    f = (f & ~(u64{1} << (pos + k))) | (bit << (pos + k));
  }
  return t.trunc(f);
}

u64 prmt(u64 a, u64 b, u64 c, Mode mode) {
  const u64 src = (a & 0xffffffffu) | ((b & 0xffffffffu) << 32);
  auto byte = [&](unsigned k) { return (src >> (8 * (k & 7))) & 0xff; };
  unsigned sel[4];
  const unsigned s = c & 3;
  switch (mode) {
    case Mode::F4e:
      for (unsigned k = 0; k < 4; ++k) sel[k] = (s + k) & 7;
      break;
    case Mode::B4e:
      for (unsigned k = 0; k < 4; ++k) sel[k] = (s + 8 - k) & 7;
      break;
    case Mode::Rc8:
      for (unsigned k = 0; k < 4; ++k) sel[k] = s;
      break;
    case Mode::Ecl:
      for (unsigned k = 0; k < 4; ++k) sel[k] = std::max(s, k);
      break;
    case Mode::Ecr:
      for (unsigned k = 0; k < 4; ++k) sel[k] = std::min(s, k);
      break;
    case Mode::Rc16: {
      const unsigned lo = (s & 1) * 2;
      sel[0] = lo;
      sel[1] = lo + 1;
      sel[2] = lo;
      sel[3] = lo + 1;
      break;
    }
    default: {
      u64 d = 0;
      for (unsigned k = 0; k < 4; ++k) {
        const unsigned nib = (c >> (4 * k)) & 0xf;
        u64 v = byte(nib & 7);
        if (nib & 8) v = (v & 0x80) ? 0xff : 0;  // replicate the sign bit
        d |= v << (8 * k);
      }
      return d;
    }
  }
  u64 d = 0;
  for (unsigned k = 0; k < 4; ++k) d |= byte(sel[k]) << (8 * k);
  return d;
}

u64 lop3(u64 a, u64 b, u64 c, u64 lut) {
  u64 d = 0;
  for (unsigned k = 0; k < 8; ++k) {
    if (!((lut >> k) & 1)) continue;
    const u64 ma = (k & 4) ? a : ~a, mb = (k & 2) ? b : ~b, mc = (k & 1) ? c : ~c;
    d |= ma & mb & mc;
  }
  return d & 0xffffffffu;
}

u64 div_int(u64 a, u64 b, IntType t) {
  if (t.is_signed) {
    const i64 x = t.sx(a), y = t.sx(b);
    if (y == 0) return t.trunc(~u64{0});  // unspecified in PTX: all ones
    if (x == t.smin() && y == -1) return t.trunc(static_cast<u64>(x));  // wraps
    return t.trunc(static_cast<u64>(x / y));
  }
  const u64 x = t.zx(a), y = t.zx(b);
  return y == 0 ? t.trunc(~u64{0}) : x / y;
}

u64 rem_int(u64 a, u64 b, IntType t) {
  if (t.is_signed) {
    const i64 x = t.sx(a), y = t.sx(b);
    if (y == 0) return t.trunc(static_cast<u64>(x));
    if (y == -1) return 0;
    return t.trunc(static_cast<u64>(x % y));
  }
  const u64 x = t.zx(a), y = t.zx(b);
  return y == 0 ? x : x % y;
}

// Product of two t-typed values as a 2t-bit quantity (exact).
i128 product(u64 a, u64 b, IntType t) {
  return t.val(a) * t.val(b);
}
u128 uproduct(u64 a, u64 b, IntType t) {
  return t.is_signed ? static_cast<u128>(t.val(a) * t.val(b)) : u128{t.zx(a)} * u128{t.zx(b)};
}

u64 mul_part(u64 a, u64 b, const Instruction& i, IntType t) {
  if (t.bits == 64 && i.has(kHi)) {
    if (t.is_signed) return static_cast<u64>(static_cast<u128>(product(a, b, t)) >> 64);
    return static_cast<u64>((u128{a} * u128{b}) >> 64);
  }
  const u128 p = uproduct(a, b, t);
  if (i.has(kWide)) return truncate(static_cast<u64>(p), 2 * t.bits);
  if (i.has(kHi)) return t.trunc(static_cast<u64>(p >> t.bits));
  return t.trunc(static_cast<u64>(p));
}

bool integer_like(Type t) {
  return !is_float(t) && t != Type::None && t != Type::B128;
}

void add_carry(Ctx& c, const Instruction& i, IntType t, bool subtract, bool use_carry) {
  std::uint64_t sa[32], sb[32], sc[32];
  const bool mad = i.op == Opcode::mad || i.op == Opcode::madc;
  const u64* a = c.src(i.ops[1], sa);
  const u64* b = c.src(i.ops[2], sb);
  const u64* x = mad ? c.src(i.ops[3], sc) : nullptr;
  each_lane(c.mask, [&](unsigned l) {
    u128 lhs, rhs;
    if (mad) {
      lhs = u128{mul_part(a[l], b[l], i, t)};
      rhs = u128{t.zx(x[l])};
    } else {
      lhs = u128{t.zx(a[l])};
      rhs = u128{t.zx(b[l])};
    }
    const u128 cin = use_carry ? c.w.carry[l] : 0;
    u128 r;
    std::uint8_t cout;
    if (subtract) {
      r = lhs - rhs - cin;
      cout = (rhs + cin) > lhs;  // borrow
    } else {
      r = lhs + rhs + cin;
      cout = static_cast<std::uint8_t>((r >> t.bits) & 1);
    }
    if (i.has(kCc)) c.w.carry[l] = cout;
    put(c, i.ops[0], l, t.trunc(static_cast<u64>(r)));
  });
}

template <class Test>
void set_predicates(Ctx& c, const Instruction& i, Test test) {
  std::uint64_t sa[32], sb[32], sp[32];
  const u64* a = c.src(i.ops[1], sa);
  const u64* b = c.src(i.ops[2], sb);
  const bool combine = i.has(kAnd) || i.has(kOr) || i.has(kXor);
  const u64* p = combine ? c.src(i.ops[3], sp) : nullptr;
  const Operand& d = i.ops[0];
  each_lane(c.mask, [&](unsigned l) {
    bool t = test(a[l], b[l]);
    bool f = !t;
    if (combine) {
      const bool q = p[l] != 0;
      if (i.has(kAnd))
        t = t && q, f = f && q;
      else if (i.has(kOr))
        t = t || q, f = f || q;
      else
        t = t != q, f = f != q;
    }
    if (d.kind == Operand::Kind::Reg) c.reg(d.reg)[l] = t;
    if (d.reg2 >= 0) c.reg(d.reg2)[l] = f;
  });
}

// setp without a combining predicate, one comparison for all 32 lanes
// (compare_int's result, with the comparison chosen once per instruction).
// The operand width is a constant for the common 32 and 64 bits, so the
// normalisation inlines and the lane loop vectorizes.
template <class T, class Norm, class Op>
void compare_all_with(Ctx& c, const Instruction& i, Norm norm, Op op) {
  std::uint64_t sa[32], sb[32];
  const u64* a = c.src(i.ops[1], sa);
  const u64* b = c.src(i.ops[2], sb);
  u64 r[32];
  for (unsigned l = 0; l < 32; ++l)
    r[l] = op(static_cast<T>(norm(a[l])), static_cast<T>(norm(b[l])));
  const Operand& d = i.ops[0];
  u64* t = d.kind == Operand::Kind::Reg ? c.reg(d.reg) : nullptr;
  u64* f = d.reg2 >= 0 ? c.reg(d.reg2) : nullptr;
  const std::uint32_t m = c.mask;
  if (m == ~0u) {  // a converged warp: straight copies
    if (t)
      for (unsigned l = 0; l < 32; ++l) t[l] = r[l];
    if (f)
      for (unsigned l = 0; l < 32; ++l) f[l] = r[l] ^ 1;
    return;
  }
  for (unsigned l = 0; l < 32; ++l) {
    if (!((m >> l) & 1)) continue;
    if (t) t[l] = r[l];
    if (f) f[l] = r[l] ^ 1;
  }
}

// Calls use(T{}, norm, op) with the operand normalisation for `bits` (a
// constant for the common 32 and 64 bits, so that it inlines and the lane
// loops vectorize) and the comparison `op` on normalised values of type T.
template <class T, class Use, class Op>
void with_width(unsigned bits, Use& use, Op op) {
  if (bits == 64) {
    use(
        T{}, [](u64 v) { return v; }, op);
  } else if (bits == 32) {
    if constexpr (std::is_signed_v<T>)
      use(
          T{}, [](u64 v) { return std::int64_t{static_cast<std::int32_t>(v)}; }, op);
    else
      use(
          T{}, [](u64 v) { return v & 0xffffffffu; }, op);
  } else {
    if constexpr (std::is_signed_v<T>)
      use(
          T{}, [bits](u64 v) { return sign_extend(v, bits); }, op);
    else
      use(
          T{}, [bits](u64 v) { return truncate(v, bits); }, op);
  }
}

// The comparison of a setp without a combining predicate, chosen once per
// instruction and handed to `use` (see with_width); false for other setps.
template <class Use>
bool with_comparison(const Instruction& i, IntType t, Use&& use) {
  if (i.has(kAnd) || i.has(kOr) || i.has(kXor) || t.bits > 64) return false;
  const bool ordered_signed = t.is_signed;
  switch (i.cmp) {
    case Cmp::Eq:
      with_width<u64>(t.bits, use, [](u64 x, u64 y) { return x == y; });
      return true;
    case Cmp::Ne:
      with_width<u64>(t.bits, use, [](u64 x, u64 y) { return x != y; });
      return true;
    case Cmp::Lo:
      with_width<u64>(t.bits, use, [](u64 x, u64 y) { return x < y; });
      return true;
    case Cmp::Ls:
      with_width<u64>(t.bits, use, [](u64 x, u64 y) { return x <= y; });
      return true;
    case Cmp::Hi:
      with_width<u64>(t.bits, use, [](u64 x, u64 y) { return x > y; });
      return true;
    case Cmp::Hs:
      with_width<u64>(t.bits, use, [](u64 x, u64 y) { return x >= y; });
      return true;
    case Cmp::Lt:
      if (ordered_signed)
        with_width<i64>(t.bits, use, [](i64 x, i64 y) { return x < y; });
      else
        with_width<u64>(t.bits, use, [](u64 x, u64 y) { return x < y; });
      return true;
    case Cmp::Le:
      if (ordered_signed)
        with_width<i64>(t.bits, use, [](i64 x, i64 y) { return x <= y; });
      else
        with_width<u64>(t.bits, use, [](u64 x, u64 y) { return x <= y; });
      return true;
    case Cmp::Gt:
      if (ordered_signed)
        with_width<i64>(t.bits, use, [](i64 x, i64 y) { return x > y; });
      else
        with_width<u64>(t.bits, use, [](u64 x, u64 y) { return x > y; });
      return true;
    case Cmp::Ge:
      if (ordered_signed)
        with_width<i64>(t.bits, use, [](i64 x, i64 y) { return x >= y; });
      else
        with_width<u64>(t.bits, use, [](u64 x, u64 y) { return x >= y; });
      return true;
    default:
      return false;
  }
}

bool compare_lanes(Ctx& c, const Instruction& i, IntType t) {
  return with_comparison(i, t, [&](auto type, auto norm, auto op) {
    compare_all_with<decltype(type)>(c, i, norm, op);
  });
}

// A gang's setp into one predicate (the complement form takes the one-warp path).
bool compare_gang(const Gang& g, const Instruction& i, IntType t) {
  if (i.ops[0].reg2 >= 0) return false;
  bool done = false;
  const bool chosen = with_comparison(i, t, [&](auto type, auto norm, auto op) {
    using T = decltype(type);
    done = gang_map2(g, i, [norm, op](u64 a, u64 b) -> u64 {
      return op(static_cast<T>(norm(a)), static_cast<T>(norm(b)));
    });
  });
  return chosen && done;
}

}  // namespace

double float_value(u64 bits, Type t);  // ops_float.cpp

bool exec_integer(Ctx& c, const Instruction& i) {
  const IntType t = int_type(i.type);
  switch (i.op) {
    case Opcode::mov: {
      const Operand& d = i.ops[0];
      const Operand& s = i.ops[1];
      if (s.kind == Operand::Kind::Vector) {  // pack {a, b, ...} into d
        const unsigned n = static_cast<unsigned>(s.regs.size());
        const unsigned part = type_bits(i.type) / n;
        each_lane(c.mask, [&](unsigned l) {
          u64 v = 0;
          for (unsigned k = 0; k < n; ++k)
            if (s.regs[k] >= 0) v |= truncate(c.reg(s.regs[k])[l], part) << (k * part);
          put(c, d, l, v);
        });
        return true;
      }
      if (d.kind == Operand::Kind::Vector) {  // unpack a into {d0, d1, ...}
        std::uint64_t sa[32];
        const u64* a = c.src(s, sa);
        const unsigned n = static_cast<unsigned>(d.regs.size());
        const unsigned part = type_bits(i.type) / n;
        each_lane(c.mask, [&](unsigned l) {
          for (unsigned k = 0; k < n; ++k)
            if (d.regs[k] >= 0) c.reg(d.regs[k])[l] = truncate(a[l] >> (k * part), part);
        });
        return true;
      }
      if (i.type == Type::Pred) {
        map1(c, i, [](u64 a) -> u64 { return a != 0; });
        return true;
      }
      const unsigned bits = type_bits(i.type) ? type_bits(i.type) : 64;
      if (bits == 32)  // the common widths with the mask a constant: a straight copy
        map1(c, i, [](u64 a) -> u64 { return static_cast<std::uint32_t>(a); });
      else if (bits == 64)
        map1(c, i, [](u64 a) { return a; });
      else
        map1(c, i, [bits](u64 a) { return truncate(a, bits); });
      return true;
    }
    case Opcode::selp:
      map3(c, i, [t](u64 a, u64 b, u64 p) { return t.trunc(p ? a : b); });
      return true;
    case Opcode::setp:
    case Opcode::set:
      if (is_float(i.type)) return false;
      if (i.op == Opcode::setp && compare_lanes(c, i, t)) return true;
      if (i.op == Opcode::setp) {
        set_predicates(c, i, [&](u64 a, u64 b) { return compare_int(i.cmp, a, b, t); });
        return true;
      } else {
        std::uint64_t sp[32];
        const bool combine = i.has(kAnd) || i.has(kOr) || i.has(kXor);
        const u64* p = combine ? c.src(i.ops[3], sp) : nullptr;
        std::uint64_t sa[32], sb[32];
        const u64* a = c.src(i.ops[1], sa);
        const u64* b = c.src(i.ops[2], sb);
        each_lane(c.mask, [&](unsigned l) {
          bool r = compare_int(i.cmp, a[l], b[l], t);
          if (combine) {
            const bool q = p[l] != 0;
            r = i.has(kAnd) ? r && q : i.has(kOr) ? r || q : r != q;
          }
          u64 v = r ? truncate(~u64{0}, type_bits(i.type2)) : 0;
          if (i.type2 == Type::F32) v = r ? 0x3f800000u : 0;
          put(c, i.ops[0], l, v);
        });
        return true;
      }
    case Opcode::slct:
      if (i.type == Type::F32) {
        map3(c, i, [&](u64 a, u64 b, u64 x) {
          const double f = float_value(x, Type::F32);
          return truncate(f >= 0 ? a : b, type_bits(i.type2));
        });
      } else {
        map3(c, i, [&](u64 a, u64 b, u64 x) {
          return truncate(sign_extend(x, 32) >= 0 ? a : b, type_bits(i.type2));
        });
      }
      return true;
    default:
      break;
  }
  if (!integer_like(i.type) && i.op != Opcode::dp4a && i.op != Opcode::dp2a) return false;
  switch (i.op) {
    case Opcode::add:
    case Opcode::sub:
    case Opcode::addc:
    case Opcode::subc: {
      const bool sub = i.op == Opcode::sub || i.op == Opcode::subc;
      const bool carry_in = i.op == Opcode::addc || i.op == Opcode::subc;
      if (i.has(kCc) || carry_in) {
        add_carry(c, i, t, sub, carry_in);
      } else if (i.has(kSat)) {
        map2(c, i, [t, sub](u64 a, u64 b) {
          return saturate_signed(sub ? t.val(a) - t.val(b) : t.val(a) + t.val(b), t);
        });
      } else if (t.bits == 32) {
        if (sub)
          map2(c, i, [](u64 a, u64 b) -> u64 { return static_cast<std::uint32_t>(a - b); });
        else
          map2(c, i, [](u64 a, u64 b) -> u64 { return static_cast<std::uint32_t>(a + b); });
      } else {
        map2(c, i, [t, sub](u64 a, u64 b) { return t.trunc(sub ? a - b : a + b); });
      }
      return true;
    }
    case Opcode::mul:
      if (!i.has(kHi) && !i.has(kWide) && t.bits == 32)
        map2(c, i, [](u64 a, u64 b) -> u64 { return static_cast<std::uint32_t>(a * b); });
      else if (!i.has(kHi) && !i.has(kWide))  // the low half does not depend on the sign
        map2(c, i, [t](u64 a, u64 b) { return t.trunc(a * b); });
      else if (i.has(kWide) && t.bits == 32 && t.is_signed)
        map2(c, i, [](u64 a, u64 b) {
          return static_cast<u64>(std::int64_t{static_cast<std::int32_t>(a)} *
                                  static_cast<std::int32_t>(b));
        });
      else if (i.has(kWide) && t.bits == 32)
        map2(c, i, [](u64 a, u64 b) {
          return u64{static_cast<std::uint32_t>(a)} * static_cast<std::uint32_t>(b);
        });
      else
        map2(c, i, [&i, t](u64 a, u64 b) { return mul_part(a, b, i, t); });
      return true;
    case Opcode::mad:
    case Opcode::madc:
      if (i.has(kCc) || i.op == Opcode::madc) {
        add_carry(c, i, t, false, i.op == Opcode::madc);
      } else if (i.has(kSat)) {  // mad.hi.sat.s32
        map3(c, i, [t](u64 a, u64 b, u64 x) {
          return saturate_signed((product(a, b, t) >> t.bits) + t.val(x), t);
        });
      } else if (!i.has(kHi) && !i.has(kWide) && t.bits == 32) {
        map3(c, i,
             [](u64 a, u64 b, u64 x) -> u64 { return static_cast<std::uint32_t>(a * b + x); });
      } else {
        const unsigned rbits = i.has(kWide) ? 2 * t.bits : t.bits;
        map3(c, i, [&i, t, rbits](u64 a, u64 b, u64 x) {
          return truncate(mul_part(a, b, i, t) + x, rbits);
        });
      }
      return true;
    case Opcode::mul24:
    case Opcode::mad24: {
      const bool mad = i.op == Opcode::mad24;
      map3(c, i, [&i, t, mad](u64 a, u64 b, u64 x) {
        const i64 p = t.is_signed ? sign_extend(a, 24) * sign_extend(b, 24)
                                  : static_cast<i64>(truncate(a, 24) * truncate(b, 24));
        u64 r = i.has(kHi) ? static_cast<u64>(p) >> 16 : static_cast<u64>(p);
        if (mad) r += x;
        return truncate(r, 32);
      });
      return true;
    }
    case Opcode::div:
      map2(c, i, [t](u64 a, u64 b) { return div_int(a, b, t); });
      return true;
    case Opcode::rem:
      map2(c, i, [t](u64 a, u64 b) { return rem_int(a, b, t); });
      return true;
    case Opcode::min:
    case Opcode::max: {
      const bool mx = i.op == Opcode::max;
      map2(c, i, [t, mx](u64 a, u64 b) {
        const bool less = t.val(a) < t.val(b);
        return t.trunc(mx ? (less ? b : a) : (less ? a : b));
      });
      return true;
    }
    case Opcode::abs:
      map1(c, i, [t](u64 a) {
        const i128 v = t.val(a);
        return t.trunc(static_cast<u64>(v < 0 ? -v : v));
      });
      return true;
    case Opcode::neg:
      map1(c, i, [t](u64 a) { return t.trunc(~a + 1); });
      return true;
    case Opcode::popc:
      map1(c, i, [t](u64 a) -> u64 { return static_cast<u64>(__builtin_popcountll(t.zx(a))); });
      return true;
    case Opcode::clz:
      map1(c, i, [t](u64 a) -> u64 {
        const u64 v = t.zx(a);
        return v == 0 ? t.bits : static_cast<u64>(__builtin_clzll(v)) - (64 - t.bits);
      });
      return true;
    case Opcode::bfind:
      map1(c, i, [&i, t](u64 a) -> u64 {
        u64 v = t.zx(a);
        if (t.is_signed && ((v >> (t.bits - 1)) & 1)) v = t.zx(~v);  // first bit unlike the sign
        if (v == 0) return 0xffffffffu;
        const unsigned msb = 63 - static_cast<unsigned>(__builtin_clzll(v));
        return i.has(kShiftAmt) ? t.bits - 1 - msb : msb;
      });
      return true;
    case Opcode::brev:
      map1(c, i, [t](u64 a) {
        u64 r = 0;
        for (unsigned k = 0; k < t.bits; ++k) r |= ((a >> k) & 1) << (t.bits - 1 - k);
        return r;
      });
      return true;
    case Opcode::bfe:
      map3(c, i, [t](u64 a, u64 b, u64 x) { return bfe(a, b, x, t); });
      return true;
    case Opcode::bfi:
      map4(c, i, [t](u64 a, u64 b, u64 x, u64 y) { return bfi(a, b, x, y, t); });
      return true;
    case Opcode::prmt:
      map3(c, i, [&i](u64 a, u64 b, u64 x) { return prmt(a, b, x, i.mode); });
      return true;
    case Opcode::shl:
      if (t.bits == 32) {  // the common width with the mask a constant
        map2(c, i, [](u64 a, u64 b) -> u64 {
          const u64 n = truncate(b, 32);
          return n >= 32 ? 0 : static_cast<std::uint32_t>(a << n);
        });
        return true;
      }
      map2(c, i, [t](u64 a, u64 b) {
        const u64 n = truncate(b, 32);
        return n >= t.bits ? 0 : t.trunc(a << n);
      });
      return true;
    case Opcode::shr:
      map2(c, i, [t](u64 a, u64 b) {
        const u64 n = std::min<u64>(truncate(b, 32), t.bits - 1 + (t.is_signed ? 0 : 1));
        if (t.is_signed) return t.trunc(static_cast<u64>(t.sx(a) >> std::min<u64>(n, 63)));
        return n >= t.bits ? 0 : t.zx(a) >> n;
      });
      return true;
    case Opcode::shf:
      map3(c, i, [&i](u64 a, u64 b, u64 x) -> u64 {
        const u64 n = i.has(kClamp) ? std::min<u64>(truncate(x, 32), 32) : x & 31;
        const u64 both = (truncate(b, 32) << 32) | truncate(a, 32);
        if (i.mode == Mode::L) return truncate((both << n) >> 32, 32);
        return truncate(both >> n, 32);
      });
      return true;
    case Opcode::and_:
      map2(c, i, [](u64 a, u64 b) { return a & b; });
      return true;
    case Opcode::or_:
      map2(c, i, [](u64 a, u64 b) { return a | b; });
      return true;
    case Opcode::xor_:
      map2(c, i, [](u64 a, u64 b) { return a ^ b; });
      return true;
    case Opcode::not_:
      if (i.type == Type::Pred)
        map1(c, i, [](u64 a) -> u64 { return a == 0; });
      else
        map1(c, i, [t](u64 a) { return t.trunc(~a); });
      return true;
    case Opcode::cnot:
      map1(c, i, [t](u64 a) -> u64 { return t.zx(a) == 0; });
      return true;
    case Opcode::lop3:
      map4(c, i, [](u64 a, u64 b, u64 x, u64 lut) { return lop3(a, b, x, lut); });
      return true;
    case Opcode::dp4a:
      map3(c, i, [&i](u64 a, u64 b, u64 x) {
        const bool sa = is_signed(i.type2), sb = is_signed(i.type);
        i64 acc = sign_extend(x, 32);
        for (unsigned k = 0; k < 4; ++k) {
          const u64 ba = (a >> (8 * k)) & 0xff, bb = (b >> (8 * k)) & 0xff;
          acc += (sa ? sign_extend(ba, 8) : static_cast<i64>(ba)) *
                 (sb ? sign_extend(bb, 8) : static_cast<i64>(bb));
        }
        return truncate(static_cast<u64>(acc), 32);
      });
      return true;
    case Opcode::dp2a:
      map3(c, i, [&i](u64 a, u64 b, u64 x) {
        const bool sa = is_signed(i.type2), sb = is_signed(i.type);
        const unsigned base = i.has(kHi) ? 2 : 0;
        i64 acc = sign_extend(x, 32);
        for (unsigned k = 0; k < 2; ++k) {
          const u64 ha = (a >> (16 * k)) & 0xffff, bb = (b >> (8 * (base + k))) & 0xff;
          acc += (sa ? sign_extend(ha, 16) : static_cast<i64>(ha)) *
                 (sb ? sign_extend(bb, 8) : static_cast<i64>(bb));
        }
        return truncate(static_cast<u64>(acc), 32);
      });
      return true;
    case Opcode::sad:
      map3(c, i, [t](u64 a, u64 b, u64 x) {
        const i128 d = t.val(a) - t.val(b);
        return t.trunc(static_cast<u64>(d < 0 ? -d : d) + x);
      });
      return true;
    case Opcode::bmsk:
      map2(c, i, [&i](u64 a, u64 b) -> u64 {
        u64 pos = truncate(a, 32), len = truncate(b, 32);
        if (i.has(kWrap))
          pos &= 31, len &= 31;
        else
          pos = std::min<u64>(pos, 32), len = std::min<u64>(len, 32);
        if (pos >= 32) return 0;
        const u64 m = (len >= 64 ? ~u64{0} : (u64{1} << len) - 1) << pos;
        return truncate(m, 32);
      });
      return true;
    case Opcode::szext:
      map2(c, i, [&i, t](u64 a, u64 b) -> u64 {
        u64 n = truncate(b, 32);
        n = i.has(kWrap) ? n & 31 : std::min<u64>(n, 32);
        if (n == 0) return 0;
        return t.is_signed
                   ? truncate(static_cast<u64>(sign_extend(a, static_cast<unsigned>(n))), 32)
                   : truncate(a, static_cast<unsigned>(n));
      });
      return true;
    default:
      return false;
  }
}

// --- Handlers for the frequent forms (fast_paths.h): each is the branch of
// exec_integer that the conditions in integer_fast_path lead to.
namespace {

// The lane functions, shared by the one-warp handlers and the gang ones.
u64 add_u32_lane(u64 a, u64 b) {
  return static_cast<std::uint32_t>(a + b);
}
u64 sub_u32_lane(u64 a, u64 b) {
  return static_cast<std::uint32_t>(a - b);
}
u64 mul_lo_u32_lane(u64 a, u64 b) {
  return static_cast<std::uint32_t>(a * b);
}
u64 mul_wide_s32_lane(u64 a, u64 b) {
  return static_cast<u64>(std::int64_t{static_cast<std::int32_t>(a)} *
                          static_cast<std::int32_t>(b));
}
u64 mul_wide_u32_lane(u64 a, u64 b) {
  return u64{static_cast<std::uint32_t>(a)} * static_cast<std::uint32_t>(b);
}
u64 mad_lo_u32_lane(u64 a, u64 b, u64 x) {
  return static_cast<std::uint32_t>(a * b + x);
}
u64 shl_u32_lane(u64 a, u64 b) {
  const u64 n = truncate(b, 32);
  return n >= 32 ? 0 : static_cast<std::uint32_t>(a << n);
}
u64 shr_u32_lane(u64 a, u64 b) {
  const u64 n = truncate(b, 32);
  return n >= 32 ? 0 : static_cast<std::uint32_t>(a) >> n;
}
u64 shr_s32_lane(u64 a, u64 b) {  // the sign fills in, 31 places at most
  const u64 n = std::min<u64>(truncate(b, 32), 31);
  return static_cast<std::uint32_t>(static_cast<std::int32_t>(a) >> n);
}
u64 selp_32_lane(u64 a, u64 b, u64 p) {
  return static_cast<std::uint32_t>(p ? a : b);
}
u64 selp_64_lane(u64 a, u64 b, u64 p) {
  return p ? a : b;
}
u64 and_lane(u64 a, u64 b) {
  return a & b;
}
u64 or_lane(u64 a, u64 b) {
  return a | b;
}
u64 xor_lane(u64 a, u64 b) {
  return a ^ b;
}
u64 mov_32_lane(u64 a) {
  return static_cast<std::uint32_t>(a);
}
u64 mov_64_lane(u64 a) {
  return a;
}

void add_any(Ctx& c, const Instruction& i) {
  const IntType t = int_type(i.type);
  map2(c, i, [t](u64 a, u64 b) { return t.trunc(a + b); });
}
void sub_any(Ctx& c, const Instruction& i) {
  const IntType t = int_type(i.type);
  map2(c, i, [t](u64 a, u64 b) { return t.trunc(a - b); });
}
bool add_any_gang(const Gang& g, const Instruction& i) {
  const IntType t = int_type(i.type);
  return gang_map2(g, i, [t](u64 a, u64 b) { return t.trunc(a + b); });
}
bool sub_any_gang(const Gang& g, const Instruction& i) {
  const IntType t = int_type(i.type);
  return gang_map2(g, i, [t](u64 a, u64 b) { return t.trunc(a - b); });
}
void setp_int(Ctx& c, const Instruction& i) {
  compare_lanes(c, i, int_type(i.type));
}
bool setp_int_gang(const Gang& g, const Instruction& i) {
  return compare_gang(g, i, int_type(i.type));
}

}  // namespace

FastHandler integer_fast_handler(FastForm f) {
  switch (f) {
    case FastForm::AddU32:
      return one_warp2<add_u32_lane>;
    case FastForm::SubU32:
      return one_warp2<sub_u32_lane>;
    case FastForm::AddAny:
      return add_any;
    case FastForm::SubAny:
      return sub_any;
    case FastForm::MulLoU32:
      return one_warp2<mul_lo_u32_lane>;
    case FastForm::MulWideS32:
      return one_warp2<mul_wide_s32_lane>;
    case FastForm::MulWideU32:
      return one_warp2<mul_wide_u32_lane>;
    case FastForm::MadLoU32:
      return one_warp3<mad_lo_u32_lane>;
    case FastForm::ShlU32:
      return one_warp2<shl_u32_lane>;
    case FastForm::ShrU32:
      return one_warp2<shr_u32_lane>;
    case FastForm::ShrS32:
      return one_warp2<shr_s32_lane>;
    case FastForm::Selp32:
      return one_warp3<selp_32_lane>;
    case FastForm::Selp64:
      return one_warp3<selp_64_lane>;
    case FastForm::And:
      return one_warp2<and_lane>;
    case FastForm::Or:
      return one_warp2<or_lane>;
    case FastForm::Xor:
      return one_warp2<xor_lane>;
    case FastForm::Mov32:
      return one_warp1<mov_32_lane>;
    case FastForm::Mov64:
      return one_warp1<mov_64_lane>;
    case FastForm::SetpInt:
      return setp_int;
    default:
      return nullptr;
  }
}

GangHandler integer_gang_handler(FastForm f) {
  switch (f) {
    case FastForm::AddU32:
      return gang2<add_u32_lane>;
    case FastForm::SubU32:
      return gang2<sub_u32_lane>;
    case FastForm::AddAny:
      return add_any_gang;
    case FastForm::SubAny:
      return sub_any_gang;
    case FastForm::MulLoU32:
      return gang2<mul_lo_u32_lane>;
    case FastForm::MulWideS32:
      return gang2<mul_wide_s32_lane>;
    case FastForm::MulWideU32:
      return gang2<mul_wide_u32_lane>;
    case FastForm::MadLoU32:
      return gang3<mad_lo_u32_lane>;
    case FastForm::ShlU32:
      return gang2<shl_u32_lane>;
    case FastForm::ShrU32:
      return gang2<shr_u32_lane>;
    case FastForm::ShrS32:
      return gang2<shr_s32_lane>;
    case FastForm::Selp32:
      return gang3<selp_32_lane>;
    case FastForm::Selp64:
      return gang3<selp_64_lane>;
    case FastForm::And:
      return gang2<and_lane>;
    case FastForm::Or:
      return gang2<or_lane>;
    case FastForm::Xor:
      return gang2<xor_lane>;
    case FastForm::Mov32:
      return gang1<mov_32_lane>;
    case FastForm::Mov64:
      return gang1<mov_64_lane>;
    case FastForm::SetpInt:
      return setp_int_gang;
    default:
      return nullptr;
  }
}

}  // namespace cnuas::ptx
