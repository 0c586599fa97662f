// Floating-point instructions on f32, f64, f16, f16x2, bf16 and bf16x2:
// arithmetic with every rounding mode, .ftz and .sat; the approximate
// transcendental functions; min/max with PTX's NaN rules; testp, copysign;
// setp/set on floats.
#include <cmath>
#include <cstring>
#include <limits>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "approx_math.h"
#include "fast_paths.h"
#include "half.h"
#include "lanes.h"
#include "rounding.h"

namespace cnuas::ptx {
namespace {

using u64 = std::uint64_t;

// A subnormal (zero exponent, nonzero fraction) becomes zero of its sign; by
// the bits, inline, instead of a classification call per lane.
inline float ftz(float v) {
  const std::uint32_t b = static_cast<std::uint32_t>(f32_to_bits(v));
  return (b & 0x7f800000u) == 0 && (b & 0x007fffffu) != 0 ? bits_to_f32(b & 0x80000000u) : v;
}

float sat(float v) {
  if (std::isnan(v)) return 0.0f;
  return v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
}

// sin/cos/ex2 .approx: approx_math.h (the same bits as its 32-lane form the
// fast paths use); lg2 by the host's single-precision library (within an ulp
// or so, inside the PTX ISA's bound).
float sin_core(float a, float, float) {
  return approx::sin(a);
}
float cos_core(float a, float, float) {
  return approx::cos(a);
}
float lg2_core(float a, float, float) {
  return std::log2(a);
}
float ex2_core(float a, float, float) {
  return approx::ex2(a);
}
u64 sqrt_f32_lane(u64 a) {  // round to nearest, no .ftz or .sat
  return f32_to_bits(std::sqrt(bits_to_f32(a)));
}

template <class T>
T fmin_ptx(T a, T b, bool nan_propagates) {
  if (std::isnan(a) || std::isnan(b)) {
    if (nan_propagates || (std::isnan(a) && std::isnan(b)))
      return std::numeric_limits<T>::quiet_NaN();
    return std::isnan(a) ? b : a;
  }
  if (a == b) return std::signbit(a) ? a : b;  // -0 < +0
  return a < b ? a : b;
}

template <class T>
T fmax_ptx(T a, T b, bool nan_propagates) {
  if (std::isnan(a) || std::isnan(b)) {
    if (nan_propagates || (std::isnan(a) && std::isnan(b)))
      return std::numeric_limits<T>::quiet_NaN();
    return std::isnan(a) ? b : a;
  }
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

// f32 operation with .ftz/.sat applied around a core.
// The lane function of a one-operand f32 op `core` under the instruction's
// .ftz and .sat (f32_op's, shared with the gang handlers).
template <class F>
auto f32_unary(const Instruction& i, F core) {
  const bool z = i.has(kFtz), s = i.has(kSat);
  return [z, s, core](u64 a) {
    float v = bits_to_f32(a);
    if (z) v = ftz(v);
    v = core(v, 0.0f, 0.0f);
    if (z) v = ftz(v);
    if (s) v = sat(v);
    return f32_to_bits(v);
  };
}

template <class F>
void f32_op(Ctx& c, const Instruction& i, unsigned arity, F core) {
  if (arity == 1) {
    map1(c, i, f32_unary(i, core));
    return;
  }
  const bool z = i.has(kFtz), s = i.has(kSat);
  auto wrap = [&](float v) {
    if (z) v = ftz(v);
    if (s) v = sat(v);
    return f32_to_bits(v);
  };
  auto in = [&](u64 b) { return z ? ftz(bits_to_f32(b)) : bits_to_f32(b); };
  if (arity == 2)
    map2(c, i, [&](u64 a, u64 b) { return wrap(core(in(a), in(b), 0.0f)); });
  else
    map3(c, i, [&](u64 a, u64 b, u64 x) { return wrap(core(in(a), in(b), in(x))); });
}

// f32_op / f64_op with the instruction's rounding mode in force for all its
// lanes (.ftz, .sat and the bit conversions around the core are exact, so
// they do not care).
template <class F>
void f32_rounded(Ctx& c, const Instruction& i, unsigned arity, F core);
template <class F>
void f64_rounded(Ctx& c, const Instruction& i, unsigned arity, F core);

template <class F>
void f64_op(Ctx& c, const Instruction& i, unsigned arity, F core) {
  auto in = [](u64 b) { return bits_to_f64(b); };
  if (arity == 1)
    map1(c, i, [&](u64 a) { return f64_to_bits(core(in(a), 0.0, 0.0)); });
  else if (arity == 2)
    map2(c, i, [&](u64 a, u64 b) { return f64_to_bits(core(in(a), in(b), 0.0)); });
  else
    map3(c, i, [&](u64 a, u64 b, u64 x) { return f64_to_bits(core(in(a), in(b), in(x))); });
}

template <class F>
void f32_rounded(Ctx& c, const Instruction& i, unsigned arity, F core) {
  const RoundingScope scope(i.round);
  f32_op(c, i, arity, core);
}

template <class F>
void f64_rounded(Ctx& c, const Instruction& i, unsigned arity, F core) {
  const RoundingScope scope(i.round);
  f64_op(c, i, arity, core);
}

// Half-precision (f16/bf16, scalar or packed pair): each half computed exactly
// in double and rounded once (double has more than twice the precision, so the
// result is the correctly rounded one).
template <class F>
void half_op(Ctx& c, const Instruction& i, unsigned arity, F core) {
  const bool bf = i.type == Type::BF16 || i.type == Type::BF16x2;
  const unsigned lanes = (i.type == Type::F16x2 || i.type == Type::BF16x2) ? 2 : 1;
  const bool s = i.has(kSat), z = i.has(kFtz);
  auto one = [&](std::uint16_t a, std::uint16_t b, std::uint16_t x) -> std::uint16_t {
    auto val = [&](std::uint16_t h) -> double {
      double v = bf ? bf16_to_f32(h) : f16_to_f32(h);
      if (z && v != 0 && std::fabs(v) < (bf ? 1.17549435e-38 : 6.103515625e-05))
        v = std::copysign(0.0, v);
      return v;
    };
    double r = core(val(a), val(b), val(x));
    if (s) r = std::isnan(r) ? 0.0 : r < 0 ? 0.0 : r > 1 ? 1.0 : r;
    std::uint16_t h = bf ? f64_to_bf16(r, i.round) : f64_to_f16(r, i.round);
    if (z) {
      const double back = bf ? bf16_to_f32(h) : f16_to_f32(h);
      if (back != 0 && std::fabs(back) < (bf ? 1.17549435e-38 : 6.103515625e-05)) h &= 0x8000;
    }
    return h;
  };
  auto packed = [&](u64 a, u64 b, u64 x) {
    u64 r = 0;
    for (unsigned k = 0; k < lanes; ++k)
      r |= u64{one(static_cast<std::uint16_t>(a >> (16 * k)),
                   static_cast<std::uint16_t>(b >> (16 * k)),
                   static_cast<std::uint16_t>(x >> (16 * k)))}
           << (16 * k);
    return r;
  };
  if (arity == 1)
    map1(c, i, [&](u64 a) { return packed(a, 0, 0); });
  else if (arity == 2)
    map2(c, i, [&](u64 a, u64 b) { return packed(a, b, 0); });
  else
    map3(c, i, [&](u64 a, u64 b, u64 x) { return packed(a, b, x); });
}

// fma.rn.f32 on all lanes. std::fma is one instruction where the host has
// FMA and a libm call per lane otherwise; both round once, so the results are
// the same bits. The FMA clone is chosen once per process.
inline __attribute__((always_inline)) void fma_f32_lanes_body(u64* d, const u64* a, const u64* b,
                                                              const u64* x, std::uint32_t m) {
  if (m == ~0u) {  // a converged warp: a straight loop
    for (unsigned l = 0; l < 32; ++l)
      d[l] = f32_to_bits(std::fma(bits_to_f32(a[l]), bits_to_f32(b[l]), bits_to_f32(x[l])));
    return;
  }
  for (unsigned l = 0; l < 32; ++l) {
    const u64 r = f32_to_bits(std::fma(bits_to_f32(a[l]), bits_to_f32(b[l]), bits_to_f32(x[l])));
    d[l] = ((m >> l) & 1) ? r : d[l];
  }
}
#if defined(__x86_64__) && defined(__GNUC__)
// The f32 values in the low halves of 8 lanes' registers.
__attribute__((target("avx2,fma"))) inline __m256 low_halves(const u64* p) {
  const __m256i odd_last = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  const __m256i lo = _mm256_permutevar8x32_epi32(
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), odd_last);
  const __m256i hi = _mm256_permutevar8x32_epi32(
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 4)), odd_last);
  return _mm256_castsi256_ps(_mm256_permute2x128_si256(lo, hi, 0x20));
}
// A converged warp 8 lanes at a time (vfmadd rounds once per lane, as
// std::fma does: the same bits). Each group of lanes is read before it is
// written, so the destination may be a source register.
__attribute__((target("avx2,fma"))) void fma_f32_lanes_fma(u64* d, const u64* a, const u64* b,
                                                           const u64* x, std::uint32_t m) {
  if (m != ~0u) return fma_f32_lanes_body(d, a, b, x, m);
  for (unsigned l = 0; l < 32; l += 8) {
    const __m256i v = _mm256_castps_si256(
        _mm256_fmadd_ps(low_halves(a + l), low_halves(b + l), low_halves(x + l)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + l),
                        _mm256_cvtepu32_epi64(_mm256_castsi256_si128(v)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + l + 4),
                        _mm256_cvtepu32_epi64(_mm256_extracti128_si256(v, 1)));
  }
}
#endif
void fma_f32_lanes_plain(u64* d, const u64* a, const u64* b, const u64* x, std::uint32_t m) {
  fma_f32_lanes_body(d, a, b, x, m);
}
using FmaLanes = void (*)(u64*, const u64*, const u64*, const u64*, std::uint32_t);
FmaLanes fma_lanes() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const FmaLanes lanes = __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2")
                                    ? fma_f32_lanes_fma
                                    : fma_f32_lanes_plain;
#else
  static const FmaLanes lanes = fma_f32_lanes_plain;
#endif
  return lanes;
}
void fma_f32(Ctx& c, const Instruction& i) {
  const FmaLanes lanes = fma_lanes();
  std::uint64_t sa[32], sb[32], sc[32];
  const u64* a = c.src(i.ops[1], sa);
  const u64* b = c.src(i.ops[2], sb);
  const u64* x = c.src(i.ops[3], sc);
  if (i.ops[0].kind != Operand::Kind::Reg) return;
  lanes(c.reg(i.ops[0].reg), a, b, x, c.mask);
}
bool is_half(Type t) {
  return t == Type::F16 || t == Type::F16x2 || t == Type::BF16 || t == Type::BF16x2;
}

}  // namespace

double float_value(u64 bits, Type t) {
  switch (t) {
    case Type::F64:
      return bits_to_f64(bits);
    case Type::F16:
      return f16_to_f32(static_cast<std::uint16_t>(bits));
    case Type::BF16:
      return bf16_to_f32(static_cast<std::uint16_t>(bits));
    default:
      return bits_to_f32(bits);
  }
}

bool compare_float(Cmp cmp, double x, double y) {
  const bool unordered = std::isnan(x) || std::isnan(y);
  switch (cmp) {
    case Cmp::Eq:
      return !unordered && x == y;
    case Cmp::Ne:
      return !unordered && x != y;
    case Cmp::Lt:
      return !unordered && x < y;
    case Cmp::Le:
      return !unordered && x <= y;
    case Cmp::Gt:
      return !unordered && x > y;
    case Cmp::Ge:
      return !unordered && x >= y;
    case Cmp::Equ:
      return unordered || x == y;
    case Cmp::Neu:
      return unordered || x != y;
    case Cmp::Ltu:
      return unordered || x < y;
    case Cmp::Leu:
      return unordered || x <= y;
    case Cmp::Gtu:
      return unordered || x > y;
    case Cmp::Geu:
      return unordered || x >= y;
    case Cmp::Num:
      return !unordered;
    case Cmp::Nan:
      return unordered;
    default:
      return false;
  }
}

namespace {

// setp.cmp.f32/f64 into p (and its negation into q), without a combining
// predicate or .ftz: compare_float's result with the comparison chosen once
// per instruction. (A float converted to double compares as the float does.)
template <class T, class Op>
void compare_floats(Ctx& c, const Instruction& i, Op op) {
  std::uint64_t sa[32], sb[32];
  const u64* a = c.src(i.ops[1], sa);
  const u64* b = c.src(i.ops[2], sb);
  bool r[32];
  for (unsigned l = 0; l < 32; ++l) {
    T x, y;
    if constexpr (sizeof(T) == 4) {
      x = bits_to_f32(a[l]), y = bits_to_f32(b[l]);
    } else {
      x = bits_to_f64(a[l]), y = bits_to_f64(b[l]);
    }
    r[l] = op(x, y);
  }
  const Operand& d = i.ops[0];
  u64* p = d.kind == Operand::Kind::Reg ? c.reg(d.reg) : nullptr;
  u64* q = d.reg2 >= 0 ? c.reg(d.reg2) : nullptr;
  const std::uint32_t m = c.mask;
  for (unsigned l = 0; l < 32; ++l) {
    if (!((m >> l) & 1)) continue;
    if (p) p[l] = r[l];
    if (q) q[l] = !r[l];
  }
}

template <class T>
bool compare_floats(Ctx& c, const Instruction& i) {
  auto nan = [](T x, T y) { return x != x || y != y; };
  switch (i.cmp) {
    case Cmp::Eq:
      compare_floats<T>(c, i, [](T x, T y) { return x == y; });
      return true;
    case Cmp::Ne:  // ordered: false when either is NaN
      compare_floats<T>(c, i, [nan](T x, T y) { return !nan(x, y) && x != y; });
      return true;
    case Cmp::Lt:
      compare_floats<T>(c, i, [](T x, T y) { return x < y; });
      return true;
    case Cmp::Le:
      compare_floats<T>(c, i, [](T x, T y) { return x <= y; });
      return true;
    case Cmp::Gt:
      compare_floats<T>(c, i, [](T x, T y) { return x > y; });
      return true;
    case Cmp::Ge:
      compare_floats<T>(c, i, [](T x, T y) { return x >= y; });
      return true;
    case Cmp::Equ:
      compare_floats<T>(c, i, [nan](T x, T y) { return nan(x, y) || x == y; });
      return true;
    case Cmp::Neu:
      compare_floats<T>(c, i, [](T x, T y) { return x != y; });
      return true;
    case Cmp::Ltu:
      compare_floats<T>(c, i, [](T x, T y) { return !(x >= y); });
      return true;
    case Cmp::Leu:
      compare_floats<T>(c, i, [](T x, T y) { return !(x > y); });
      return true;
    case Cmp::Gtu:
      compare_floats<T>(c, i, [](T x, T y) { return !(x <= y); });
      return true;
    case Cmp::Geu:
      compare_floats<T>(c, i, [](T x, T y) { return !(x < y); });
      return true;
    case Cmp::Num:
      compare_floats<T>(c, i, [nan](T x, T y) { return !nan(x, y); });
      return true;
    case Cmp::Nan:
      compare_floats<T>(c, i, nan);
      return true;
    default:
      return false;
  }
}

}  // namespace

bool exec_float(Ctx& c, const Instruction& i) {
  const Type t = i.type;
  if (!is_float(t)) return false;
  const Round r = i.round;
  const bool nan_mode = i.has(kNaN);
  if (i.op == Opcode::setp && (t == Type::F32 || t == Type::F64) && !i.has(kFtz) && !i.has(kAnd) &&
      !i.has(kOr) && !i.has(kXor) &&
      (t == Type::F32 ? compare_floats<float>(c, i) : compare_floats<double>(c, i)))
    return true;
  if (i.op == Opcode::setp || i.op == Opcode::set) {
    std::uint64_t sa[32], sb[32], sp[32];
    const u64* a = c.src(i.ops[1], sa);
    const u64* b = c.src(i.ops[2], sb);
    const bool combine = i.has(kAnd) || i.has(kOr) || i.has(kXor);
    const u64* p = combine ? c.src(i.ops[3], sp) : nullptr;
    const bool z = i.has(kFtz);
    const unsigned halves = (t == Type::F16x2 || t == Type::BF16x2) ? 2 : 1;
    each_lane(c.mask, [&](unsigned l) {
      auto value = [&](u64 bits, unsigned k) {
        if (halves == 2) {
          const auto h = static_cast<std::uint16_t>(bits >> (16 * k));
          return t == Type::F16x2 ? double{f16_to_f32(h)} : double{bf16_to_f32(h)};
        }
        double v = float_value(bits, t);
        if (z && t == Type::F32) v = ftz(static_cast<float>(v));
        return v;
      };
      for (unsigned k = 0; k < halves; ++k) {
        bool res = compare_float(i.cmp, value(a[l], k), value(b[l], k));
        bool inv = !res;
        if (combine) {
          const bool q = p[l] != 0;
          if (i.has(kAnd))
            res = res && q, inv = inv && q;
          else if (i.has(kOr))
            res = res || q, inv = inv || q;
          else
            res = res != q, inv = inv != q;
        }
        const Operand& d = i.ops[0];
        if (i.op == Opcode::setp) {
          if (halves == 2) {
            // setp.f16x2 p|q: p from the low half, q from the high half
            const std::int32_t reg = k == 0 ? d.reg : d.reg2;
            if (reg >= 0) c.reg(reg)[l] = res;
          } else {
            if (d.kind == Operand::Kind::Reg) c.reg(d.reg)[l] = res;
            if (d.reg2 >= 0) c.reg(d.reg2)[l] = inv;
          }
        } else {
          u64 v = res ? truncate(~u64{0}, type_bits(i.type2)) : 0;
          if (i.type2 == Type::F32) v = res ? 0x3f800000u : 0;
          put(c, d, l, v);
        }
      }
    });
    return true;
  }
  if (is_half(t)) {
    switch (i.op) {
      case Opcode::add:
        half_op(c, i, 2, [](double a, double b, double) { return a + b; });
        return true;
      case Opcode::sub:
        half_op(c, i, 2, [](double a, double b, double) { return a - b; });
        return true;
      case Opcode::mul:
        half_op(c, i, 2, [](double a, double b, double) { return a * b; });
        return true;
      case Opcode::fma:
      case Opcode::mad:
        half_op(c, i, 3, [](double a, double b, double x) { return std::fma(a, b, x); });
        return true;
      case Opcode::neg:
        half_op(c, i, 1, [](double a, double, double) { return -a; });
        return true;
      case Opcode::abs:
        half_op(c, i, 1, [](double a, double, double) { return std::fabs(a); });
        return true;
      case Opcode::min:
        half_op(c, i, 2,
                [nan_mode](double a, double b, double) { return fmin_ptx(a, b, nan_mode); });
        return true;
      case Opcode::max:
        half_op(c, i, 2,
                [nan_mode](double a, double b, double) { return fmax_ptx(a, b, nan_mode); });
        return true;
      case Opcode::ex2:
        half_op(c, i, 1, [](double a, double, double) { return std::exp2(a); });
        return true;
      case Opcode::tanh:
        half_op(c, i, 1, [](double a, double, double) { return std::tanh(a); });
        return true;
      default:
        return false;
    }
  }
  if (t == Type::F32) {
    switch (i.op) {
      case Opcode::add:
        if (r == Round::None || r == Round::Rn) {
          if (!i.has(kFtz) && !i.has(kSat)) {
            map2(c, i, [](u64 a, u64 b) { return f32_to_bits(bits_to_f32(a) + bits_to_f32(b)); });
            return true;
          }
        }
        f32_rounded(c, i, 2, [](float a, float b, float) {
          volatile float v = a + b;
          return float{v};
        });
        return true;
      case Opcode::sub:
        if ((r == Round::None || r == Round::Rn) && !i.has(kFtz) && !i.has(kSat)) {
          map2(c, i, [](u64 a, u64 b) { return f32_to_bits(bits_to_f32(a) - bits_to_f32(b)); });
          return true;
        }
        f32_rounded(c, i, 2, [](float a, float b, float) {
          volatile float v = a - b;
          return float{v};
        });
        return true;
      case Opcode::mul:
        if ((r == Round::None || r == Round::Rn) && !i.has(kFtz) && !i.has(kSat)) {
          map2(c, i, [](u64 a, u64 b) { return f32_to_bits(bits_to_f32(a) * bits_to_f32(b)); });
          return true;
        }
        f32_rounded(c, i, 2, [](float a, float b, float) {
          volatile float v = a * b;
          return float{v};
        });
        return true;
      case Opcode::fma:
      case Opcode::mad:
        if ((r == Round::None || r == Round::Rn) && !i.has(kFtz) && !i.has(kSat)) {
          fma_f32(c, i);
          return true;
        }
        f32_rounded(c, i, 3, [](float a, float b, float x) {
          volatile float v = std::fma(a, b, x);
          return float{v};
        });
        return true;
      case Opcode::div:
        if ((r == Round::None || r == Round::Rn) && !i.has(kFtz) && !i.has(kSat)) {
          map2(c, i, [](u64 a, u64 b) { return f32_to_bits(bits_to_f32(a) / bits_to_f32(b)); });
          return true;
        }
        f32_rounded(c, i, 2, [](float a, float b, float) {
          volatile float v = a / b;
          return float{v};
        });
        return true;
      case Opcode::rcp:
        if ((r == Round::None || r == Round::Rn) && !i.has(kFtz) && !i.has(kSat)) {
          map1(c, i, [](u64 a) { return f32_to_bits(1.0f / bits_to_f32(a)); });
          return true;
        }
        f32_rounded(c, i, 1, [](float a, float, float) {
          volatile float v = 1.0f / a;
          return float{v};
        });
        return true;
      case Opcode::sqrt:
        if ((r == Round::None || r == Round::Rn) && !i.has(kFtz) && !i.has(kSat)) {
          map1(c, i, [](u64 a) { return sqrt_f32_lane(a); });
          return true;
        }
        f32_rounded(c, i, 1, [](float a, float, float) {
          volatile float v = std::sqrt(a);
          return float{v};
        });
        return true;
      case Opcode::rsqrt:
        f32_op(c, i, 1, [](float a, float, float) {
          return static_cast<float>(1.0 / std::sqrt(double{a}));
        });
        return true;
      case Opcode::sin:
        f32_op(c, i, 1, [](float a, float b, float x) { return sin_core(a, b, x); });
        return true;
      case Opcode::cos:
        f32_op(c, i, 1, [](float a, float b, float x) { return cos_core(a, b, x); });
        return true;
      case Opcode::lg2:
        f32_op(c, i, 1, [](float a, float b, float x) { return lg2_core(a, b, x); });
        return true;
      case Opcode::ex2:
        f32_op(c, i, 1, [](float a, float b, float x) { return ex2_core(a, b, x); });
        return true;
      case Opcode::tanh:
        f32_op(c, i, 1,
               [](float a, float, float) { return static_cast<float>(std::tanh(double{a})); });
        return true;
      case Opcode::min:
        f32_op(c, i, 2, [nan_mode](float a, float b, float) { return fmin_ptx(a, b, nan_mode); });
        return true;
      case Opcode::max:
        f32_op(c, i, 2, [nan_mode](float a, float b, float) { return fmax_ptx(a, b, nan_mode); });
        return true;
      case Opcode::abs:
        if (!i.has(kFtz) && !i.has(kSat)) {
          map1(c, i, [](u64 a) { return f32_to_bits(std::fabs(bits_to_f32(a))); });
          return true;
        }
        f32_op(c, i, 1, [](float a, float, float) { return std::fabs(a); });
        return true;
      case Opcode::neg:
        if (!i.has(kFtz) && !i.has(kSat)) {
          map1(c, i, [](u64 a) { return f32_to_bits(-bits_to_f32(a)); });
          return true;
        }
        f32_op(c, i, 1, [](float a, float, float) { return -a; });
        return true;
      case Opcode::copysign:
        map2(c, i, [](u64 a, u64 b) { return (b & 0x7fffffffu) | (a & 0x80000000u); });
        return true;
      default:
        break;
    }
  }
  if (t == Type::F64) {
    switch (i.op) {
      case Opcode::add:
        f64_rounded(c, i, 2, [](double a, double b, double) {
          volatile double v = a + b;
          return double{v};
        });
        return true;
      case Opcode::sub:
        f64_rounded(c, i, 2, [](double a, double b, double) {
          volatile double v = a - b;
          return double{v};
        });
        return true;
      case Opcode::mul:
        f64_rounded(c, i, 2, [](double a, double b, double) {
          volatile double v = a * b;
          return double{v};
        });
        return true;
      case Opcode::fma:
      case Opcode::mad:
        f64_rounded(c, i, 3, [](double a, double b, double x) {
          volatile double v = std::fma(a, b, x);
          return double{v};
        });
        return true;
      case Opcode::div:
        f64_rounded(c, i, 2, [](double a, double b, double) {
          volatile double v = a / b;
          return double{v};
        });
        return true;
      case Opcode::rcp:
        f64_rounded(c, i, 1, [](double a, double, double) {
          volatile double v = 1.0 / a;
          return double{v};
        });
        return true;
      case Opcode::sqrt:
        f64_rounded(c, i, 1, [](double a, double, double) {
          volatile double v = std::sqrt(a);
          return double{v};
        });
        return true;
      case Opcode::rsqrt:
        f64_op(c, i, 1, [](double a, double, double) { return 1.0 / std::sqrt(a); });
        return true;
      case Opcode::min:
        f64_op(c, i, 2,
               [nan_mode](double a, double b, double) { return fmin_ptx(a, b, nan_mode); });
        return true;
      case Opcode::max:
        f64_op(c, i, 2,
               [nan_mode](double a, double b, double) { return fmax_ptx(a, b, nan_mode); });
        return true;
      case Opcode::abs:
        f64_op(c, i, 1, [](double a, double, double) { return std::fabs(a); });
        return true;
      case Opcode::neg:
        f64_op(c, i, 1, [](double a, double, double) { return -a; });
        return true;
      case Opcode::copysign:
        map2(c, i, [](u64 a, u64 b) { return (b & ~(u64{1} << 63)) | (a & (u64{1} << 63)); });
        return true;
      default:
        break;
    }
  }
  if (i.op == Opcode::testp) {
    std::uint64_t sa[32];
    const u64* a = c.src(i.ops[1], sa);
    each_lane(c.mask, [&](unsigned l) {
      const double v = float_value(a[l], t);
      bool res = false;
      switch (i.mode) {
        case Mode::Finite:
          res = std::isfinite(v);
          break;
        case Mode::Infinite:
          res = std::isinf(v);
          break;
        case Mode::Number:
          res = !std::isnan(v);
          break;
        case Mode::NotANumber:
          res = std::isnan(v);
          break;
        case Mode::Normal:
          res = t == Type::F32 ? std::isnormal(static_cast<float>(v)) : std::isnormal(v);
          break;
        case Mode::Subnormal:
          res = t == Type::F32 ? std::fpclassify(static_cast<float>(v)) == FP_SUBNORMAL
                               : std::fpclassify(v) == FP_SUBNORMAL;
          break;
        default:
          break;
      }
      put(c, i.ops[0], l, res);
    });
    return true;
  }
  return false;
}

// --- Handlers for the frequent forms (fast_paths.h): exec_float's f32
// branches for round-to-nearest without .ftz or .sat.
namespace {

u64 add_f32_lane(u64 a, u64 b) {
  return f32_to_bits(bits_to_f32(a) + bits_to_f32(b));
}
u64 sub_f32_lane(u64 a, u64 b) {
  return f32_to_bits(bits_to_f32(a) - bits_to_f32(b));
}
u64 mul_f32_lane(u64 a, u64 b) {
  return f32_to_bits(bits_to_f32(a) * bits_to_f32(b));
}
template <float (*Core)(float, float, float)>
void unary_f32(Ctx& c, const Instruction& i) {
  f32_op(c, i, 1, [](float a, float b, float x) { return Core(a, b, x); });
}
template <float (*Core)(float, float, float)>
bool unary_f32_gang(const Gang& g, const Instruction& i) {
  return gang_map1(g, i, f32_unary(i, [](float a, float b, float x) { return Core(a, b, x); }));
}
// sin/cos/ex2 .approx over whole rows (approx::lanes: four lanes at a time
// where the host has AVX2), one warp or a gang.
template <approx::Function F>
void approx_f32(Ctx& c, const Instruction& i) {
  u64 sa[32];
  const u64* a = c.src(i.ops[1], sa);
  if (i.ops[0].kind != Operand::Kind::Reg) return;
  u64* d = c.reg(i.ops[0].reg);
  if (c.mask == ~0u) return approx::lanes(F, d, a, i.has(kFtz));
  u64 r[32];
  approx::lanes(F, r, a, i.has(kFtz));
  blend_lanes(d, r, c.mask);
}
template <approx::Function F>
bool approx_f32_gang(const Gang& g, const Instruction& i) {
  if (!plain_register(i.ops[0]) || !plain_register(i.ops[1])) return false;
  for (std::size_t k = 0; k < g.n; ++k)
    approx::lanes(F, g.regs[k] + row(i.ops[0]), g.regs[k] + row(i.ops[1]), i.has(kFtz));
  return true;
}
u64 min_f32_lane(u64 a, u64 b) {
  return f32_to_bits(fmin_ptx(bits_to_f32(a), bits_to_f32(b), false));
}
u64 max_f32_lane(u64 a, u64 b) {
  return f32_to_bits(fmax_ptx(bits_to_f32(a), bits_to_f32(b), false));
}
void setp_f32(Ctx& c, const Instruction& i) {
  compare_floats<float>(c, i);
}
void sqrt_f32(Ctx& c, const Instruction& i) {
  map1(c, i, [](u64 a) { return sqrt_f32_lane(a); });
}
bool sqrt_f32_gang(const Gang& g, const Instruction& i) {
  return gang_map1(g, i, [](u64 a) { return sqrt_f32_lane(a); });
}

bool fma_f32_gang(const Gang& g, const Instruction& i) {
  u64 sa[32], sb[32], sc[32];
  GangRow a, b, x;
  if (!plain_register(i.ops[0]) || !gang_row(g, i.ops[1], sa, a) || !gang_row(g, i.ops[2], sb, b) ||
      !gang_row(g, i.ops[3], sc, x))
    return false;
  const FmaLanes lanes = fma_lanes();
  for (std::size_t k = 0; k < g.n; ++k) {
    u64* r = g.regs[k];
    lanes(r + row(i.ops[0]), a.of(r), b.of(r), x.of(r), ~0u);
  }
  return true;
}

}  // namespace

GangHandler float_gang_handler(FastForm f) {
  switch (f) {
    case FastForm::AddF32:
      return gang2<add_f32_lane>;
    case FastForm::SubF32:
      return gang2<sub_f32_lane>;
    case FastForm::MulF32:
      return gang2<mul_f32_lane>;
    case FastForm::FmaF32:
      return fma_f32_gang;
    case FastForm::SinF32:
      return approx_f32_gang<approx::Function::Sin>;
    case FastForm::CosF32:
      return approx_f32_gang<approx::Function::Cos>;
    case FastForm::Ex2F32:
      return approx_f32_gang<approx::Function::Ex2>;
    case FastForm::Lg2F32:
      return unary_f32_gang<lg2_core>;
    case FastForm::SqrtF32:
      return sqrt_f32_gang;
    case FastForm::MinF32:
      return gang2<min_f32_lane>;
    case FastForm::MaxF32:
      return gang2<max_f32_lane>;
    default:
      return nullptr;
  }
}

FastHandler float_fast_handler(FastForm f) {
  switch (f) {
    case FastForm::AddF32:
      return one_warp2<add_f32_lane>;
    case FastForm::SubF32:
      return one_warp2<sub_f32_lane>;
    case FastForm::MulF32:
      return one_warp2<mul_f32_lane>;
    case FastForm::FmaF32:
      return fma_f32;
    case FastForm::SinF32:
      return approx_f32<approx::Function::Sin>;
    case FastForm::CosF32:
      return approx_f32<approx::Function::Cos>;
    case FastForm::Ex2F32:
      return approx_f32<approx::Function::Ex2>;
    case FastForm::Lg2F32:
      return unary_f32<lg2_core>;
    case FastForm::SqrtF32:
      return sqrt_f32;
    case FastForm::MinF32:
      return one_warp2<min_f32_lane>;
    case FastForm::MaxF32:
      return one_warp2<max_f32_lane>;
    case FastForm::SetpF32:
      return setp_f32;
    default:
      return nullptr;
  }
}

}  // namespace cnuas::ptx
