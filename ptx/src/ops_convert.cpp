// cvt between every pair of types (rounding, saturation, .ftz; .relu and
// .satfinite on the fp8 pairs), cvta between generic and state-space addresses, isspacep.
#include <cmath>

#include "fast_paths.h"
#include "fp8.h"
#include "half.h"
#include "lanes.h"
#include "rounding.h"

namespace cnuas::ptx {
namespace {

using u64 = std::uint64_t;
using i64 = std::int64_t;
__extension__ typedef __int128 i128;

double float_in(u64 bits, Type t, bool ftz) {
  switch (t) {
    case Type::F64:
      return bits_to_f64(bits);
    case Type::F16:
      return f16_to_f32(static_cast<std::uint16_t>(bits));
    case Type::BF16:
      return bf16_to_f32(static_cast<std::uint16_t>(bits));
    default: {
      float f = bits_to_f32(bits);
      if (ftz && std::fpclassify(f) == FP_SUBNORMAL) f = std::copysign(0.0f, f);
      return f;
    }
  }
}

double round_integral(double v, Round r) {
  switch (r) {
    case Round::Rzi:
    case Round::Rz:
      return std::trunc(v);
    case Round::Rmi:
    case Round::Rm:
      return std::floor(v);
    case Round::Rpi:
    case Round::Rp:
      return std::ceil(v);
    default:
      return std::nearbyint(v);
  }
}

// Float to integer: rounded, NaN -> 0, saturated to the destination range.
u64 float_to_int(double v, Round r, Type dst) {
  if (std::isnan(v)) return 0;
  const unsigned bits = type_bits(dst);
  v = round_integral(v, r == Round::None ? Round::Rzi : r);
  if (is_signed(dst)) {
    const double lo = -std::ldexp(1.0, static_cast<int>(bits) - 1);
    const double hi = std::ldexp(1.0, static_cast<int>(bits) - 1);
    if (v <= lo) return truncate(static_cast<u64>(static_cast<i64>(lo)), bits);
    if (v >= hi)
      return truncate(static_cast<u64>(bits == 64 ? INT64_MAX : static_cast<i64>(hi) - 1), bits);
    return truncate(static_cast<u64>(static_cast<i64>(v)), bits);
  }
  if (v <= 0) return 0;
  const double hi = std::ldexp(1.0, static_cast<int>(bits));
  if (v >= hi) return truncate(~u64{0}, bits);
  return static_cast<u64>(v);
}

u64 int_to_float(u64 v, Type src, Type dst, Round r) {
  const bool s = is_signed(src);
  const unsigned sb = type_bits(src);
  const i64 sv = sign_extend(v, sb);
  const u64 uv = truncate(v, sb);
  if (dst == Type::F16 || dst == Type::BF16) {
    // Integers up to 64 bits into double may round; f16 range is tiny, so a
    // double carries every value that matters exactly below 2^53.
    const double d = s ? static_cast<double>(sv) : static_cast<double>(uv);
    return dst == Type::F16 ? f64_to_f16(d, r) : f64_to_bf16(d, r);
  }
  return with_rounding(r, [&]() -> u64 {
    if (dst == Type::F64) {
      volatile double d = s ? static_cast<double>(sv) : static_cast<double>(uv);
      return f64_to_bits(d);
    }
    volatile float f = s ? static_cast<float>(sv) : static_cast<float>(uv);
    return f32_to_bits(f);
  });
}

u64 float_to_float(double v, Type src, Type dst, const Instruction& i) {
  const Round r = i.round;
  const bool relu = false;
  (void)relu;
  if (src == dst || (r >= Round::Rni && r <= Round::Rpi)) {
    // Same type: round to an integral value (cvt.rni.f32.f32) or apply .ftz/.sat.
    if (r >= Round::Rni && r <= Round::Rpi) v = round_integral(v, r);
  }
  if (i.has(kSat)) v = std::isnan(v) ? 0.0 : v < 0 ? 0.0 : v > 1 ? 1.0 : v;
  switch (dst) {
    case Type::F64:
      return f64_to_bits(v);
    case Type::F32: {
      float f = round_to_f32(v, r >= Round::Rni ? Round::Rn : r);
      if (i.has(kFtz) && std::fpclassify(f) == FP_SUBNORMAL) f = std::copysign(0.0f, f);
      return f32_to_bits(f);
    }
    case Type::F16:
      return f64_to_f16(v, r >= Round::Rni ? Round::Rn : r);
    case Type::BF16:
      return f64_to_bf16(v, r >= Round::Rni ? Round::Rn : r);
    case Type::TF32: {
      // tf32: f32 layout with 10 mantissa bits kept (rna: ties away from zero).
      const std::uint32_t b = static_cast<std::uint32_t>(f32_to_bits(static_cast<float>(v)));
      if (std::isnan(v) || std::isinf(v)) return b;
      const std::uint32_t rounded = r == Round::Rz ? b & 0xffffe000u : (b + 0x1000u) & 0xffffe000u;
      return rounded;
    }
    default:
      return 0;
  }
}

u64 int_to_int(u64 v, Type src, Type dst, bool sat) {
  const unsigned sb = type_bits(src), db = type_bits(dst);
  const bool ss = is_signed(src), ds = is_signed(dst);
  const i128 value = ss ? i128{sign_extend(v, sb)} : i128{truncate(v, sb)};
  if (!sat) {
    // Sign- or zero-extend per the source, then truncate.
    return truncate(static_cast<u64>(static_cast<i64>(value)), db);
  }
  i128 lo, hi;
  if (ds) {
    lo = -(i128{1} << (db - 1));
    hi = (i128{1} << (db - 1)) - 1;
  } else {
    lo = 0;
    hi = (i128{1} << db) - 1;
  }
  const i128 c = value < lo ? lo : value > hi ? hi : value;
  return truncate(static_cast<u64>(c), db);
}

// The fp8 pair forms (the decoder admits only those the PTX ISA defines):
// cvt.rn.satfinite{.relu}.f8x2.f32 d, a, b puts a in the high byte and b in
// the low one; .f8x2.f16x2 and .f16x2.f8x2 convert each half of a pair.
void convert_fp8_pair(Ctx& c, const Instruction& i) {
  const Type dst = i.type, src = i.type2;
  const bool relu = i.has(kRelu), satfinite = i.has(kSatFinite);
  if (is_fp8_pair(dst) && src == Type::F32) {
    map2(c, i, [&](u64 a, u64 b) -> u64 {
      const u64 hi = double_to_fp8(bits_to_f32(a), dst, satfinite, relu);
      const u64 lo = double_to_fp8(bits_to_f32(b), dst, satfinite, relu);
      return (hi << 8) | lo;
    });
  } else if (is_fp8_pair(dst)) {  // from f16x2
    map1(c, i, [&](u64 a) -> u64 {
      const u64 hi =
          double_to_fp8(f16_to_f32(static_cast<std::uint16_t>(a >> 16)), dst, satfinite, relu);
      const u64 lo = double_to_fp8(f16_to_f32(static_cast<std::uint16_t>(a)), dst, satfinite, relu);
      return (hi << 8) | lo;
    });
  } else {  // to f16x2
    map1(c, i, [&](u64 a) -> u64 {
      const u64 hi = fp8_to_f16_bits(static_cast<std::uint8_t>(a >> 8), src, relu);
      const u64 lo = fp8_to_f16_bits(static_cast<std::uint8_t>(a), src, relu);
      return (hi << 16) | lo;
    });
  }
}

}  // namespace

bool exec_convert(Ctx& c, const Instruction& i) {
  switch (i.op) {
    case Opcode::cvt: {
      const Type dst = i.type, src = i.type2;
      const bool ftz = i.has(kFtz);
      if (is_fp8_pair(dst) || is_fp8_pair(src)) {
        convert_fp8_pair(c, i);
        return true;
      }
      if (dst == Type::F16x2 || dst == Type::BF16x2) {  // two f32 into a packed pair: a high, b low
        map2(c, i, [&](u64 a, u64 b) -> u64 {
          const double hi = bits_to_f32(a), lo = bits_to_f32(b);
          const bool bf = dst == Type::BF16x2;
          const u64 h = bf ? f64_to_bf16(hi, i.round) : f64_to_f16(hi, i.round);
          const u64 l = bf ? f64_to_bf16(lo, i.round) : f64_to_f16(lo, i.round);
          return (h << 16) | l;
        });
        return true;
      }
      if (is_float(src) && is_float(dst)) {
        map1(c, i, [&](u64 a) { return float_to_float(float_in(a, src, ftz), src, dst, i); });
      } else if (is_float(src)) {
        map1(c, i, [&](u64 a) { return float_to_int(float_in(a, src, ftz), i.round, dst); });
      } else if (is_float(dst)) {
        map1(c, i, [&](u64 a) { return int_to_float(a, src, dst, i.round); });
      } else if (!i.has(kSat)) {  // int_to_int without saturation, its types looked up once
        const unsigned sb = type_bits(src), db = type_bits(dst);
        if (is_signed(src))
          map1(c, i, [=](u64 a) { return truncate(static_cast<u64>(sign_extend(a, sb)), db); });
        else
          map1(c, i, [=](u64 a) { return truncate(truncate(a, sb), db); });
      } else {
        map1(c, i, [&](u64 a) { return int_to_int(a, src, dst, true); });
      }
      // A signed result narrower than its register is sign-extended into it.
      if (is_signed(dst) && type_bits(dst) < 64 && i.ops[0].kind == Operand::Kind::Reg) {
        const unsigned width = c.reg_width(i.ops[0].reg);
        std::uint64_t* d = c.reg(i.ops[0].reg);
        each_lane(c.mask, [&](unsigned l) {
          d[l] = truncate(static_cast<u64>(sign_extend(d[l], type_bits(dst))), width);
        });
      }
      return true;
    }
    case Opcode::cvta: {
      std::uint64_t window = 0;
      if (i.space == Space::Shared)
        window = kSharedWindow;
      else if (i.space == Space::Local)
        window = kLocalWindow;
      else if (i.space == Space::Param)
        window = kParamWindow;
      const bool to = i.has(kTo);
      const unsigned bits = type_bits(i.type);
      map1(c, i, [=](u64 a) { return truncate(to ? a - window : a + window, bits); });
      return true;
    }
    case Opcode::mapa: {  // the same shared location in CTA `rank` of the cluster
      std::uint64_t sa[32], sr[32];
      const u64* a = c.src(i.ops[1], sa);
      const u64* rank = c.src(i.ops[2], sr);
      const bool cluster_space = i.space == Space::SharedCluster;
      each_lane(c.mask, [&](unsigned l) {
        if (rank[l] >= c.s.cluster->members.size())
          c.fault(l, i,
                  "mapa to CTA rank " + std::to_string(rank[l]) + " in a cluster of " +
                      std::to_string(c.s.cluster->members.size()) + " CTAs");
        const SharedTarget t =
            shared_target(c.s, cluster_space ? Space::SharedCluster : Space::Generic, a[l]);
        if (!t.cta) c.fault(l, i, "mapa of an address that is not in shared memory");
        put(c, i.ops[0], l,
            cluster_space ? ((rank[l] + 1) << kClusterRankShift) | t.offset
                          : kClusterWindow + rank[l] * kWindowSize + t.offset);
      });
      return true;
    }
    case Opcode::getctarank: {
      std::uint64_t sa[32];
      const u64* a = c.src(i.ops[1], sa);
      const bool cluster_space = i.space == Space::SharedCluster;
      each_lane(c.mask, [&](unsigned l) {
        const SharedTarget t =
            shared_target(c.s, cluster_space ? Space::SharedCluster : Space::Generic, a[l]);
        if (!t.cta) c.fault(l, i, "getctarank of an address that is not in shared memory");
        put(c, i.ops[0], l, t.cta->rank);
      });
      return true;
    }
    case Opcode::isspacep: {
      const Space sp = i.space;
      map1(c, i, [sp](u64 a) -> u64 {
        const bool own = a >= kSharedWindow && a < kSharedWindow + kWindowSize;
        const bool cluster = a >= kClusterWindow && a < kClusterWindow + 16 * kWindowSize;
        if (sp == Space::SharedCluster) return own || cluster;
        const bool shared = own;
        const bool local = a >= kLocalWindow && a < kLocalWindow + kWindowSize;
        switch (sp) {
          case Space::Shared:
          case Space::SharedCluster:
            return shared;
          case Space::Local:
            return local;
          case Space::Global:
            return !shared && !cluster && !local;
          default:
            return 0;
        }
      });
      return true;
    }
    default:
      return false;
  }
}

// --- Handlers for the frequent forms (fast_paths.h): int_to_float for a
// 32-bit integer into f32 in the default rounding (to nearest).
namespace {

u64 f32_from_u32_lane(u64 a) {
  return f32_to_bits(static_cast<float>(static_cast<std::uint32_t>(a)));
}
u64 f32_from_s32_lane(u64 a) {
  return f32_to_bits(static_cast<float>(static_cast<std::int32_t>(a)));
}

}  // namespace

FastHandler convert_fast_handler(FastForm f) {
  switch (f) {
    case FastForm::CvtF32U32:
      return one_warp1<f32_from_u32_lane>;
    case FastForm::CvtF32S32:
      return one_warp1<f32_from_s32_lane>;
    default:
      return nullptr;
  }
}

GangHandler convert_gang_handler(FastForm f) {
  switch (f) {
    case FastForm::CvtF32U32:
      return gang1<f32_from_u32_lane>;
    case FastForm::CvtF32S32:
      return gang1<f32_from_s32_lane>;
    default:
      return nullptr;
  }
}

}  // namespace cnuas::ptx
