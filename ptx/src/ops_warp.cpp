// Warp-level operations: shfl.sync, vote.sync, match.sync, redux.sync,
// activemask, elect.sync.
#include "lanes.h"

namespace cnuas::ptx {
namespace {
using u64 = std::uint64_t;

// The lanes each executing lane's .sync operation combines: its own member
// mask limited to the lanes executing now. Lanes of one warp may name
// different masks (cooperative-groups partitions reach the instruction
// together), so every group reduces separately. The forms without .sync
// (no member-mask operand) take the whole active mask.
void member_groups(Ctx& c, const Instruction& i, unsigned mask_op, std::uint32_t group[32]) {
  if (mask_op >= i.nops) {
    for (unsigned l = 0; l < 32; ++l) group[l] = c.mask;
    return;
  }
  std::uint64_t sm[32];
  const u64* member = c.src(i.ops[mask_op], sm);
  for (unsigned l = 0; l < 32; ++l) group[l] = static_cast<std::uint32_t>(member[l]) & c.mask;
}
}  // namespace

bool exec_warp(Ctx& c, const Instruction& i) {
  switch (i.op) {
    case Opcode::shfl: {
      std::uint64_t sa[32], sb[32], sc[32];
      const u64* a = c.src(i.ops[1], sa);
      const u64* b = c.src(i.ops[2], sb);
      const u64* cc = c.src(i.ops[3], sc);
      u64 result[32];
      bool valid[32];
      each_lane(c.mask, [&](unsigned lane) {
        const unsigned bval = b[lane] & 31, cval = cc[lane] & 31, seg = (cc[lane] >> 8) & 31;
        const unsigned max_lane = (lane & seg) | (cval & ~seg), min_lane = lane & seg;
        int j = 0;
        bool p = false;
        switch (i.mode) {
          case Mode::Up:
            j = static_cast<int>(lane) - static_cast<int>(bval);
            p = j >= static_cast<int>(max_lane);
            break;
          case Mode::Down:
            j = static_cast<int>(lane + bval);
            p = j <= static_cast<int>(max_lane);
            break;
          case Mode::Bfly:
            j = static_cast<int>(lane ^ bval);
            p = j <= static_cast<int>(max_lane);
            break;
          default:
            j = static_cast<int>(min_lane | (bval & ~seg));
            p = j <= static_cast<int>(max_lane);
            break;
        }
        if (!p) j = static_cast<int>(lane);
        result[lane] = a[j & 31] & 0xffffffffu;
        valid[lane] = p;
      });
      const Operand& d = i.ops[0];
      each_lane(c.mask, [&](unsigned l) {
        put(c, d, l, result[l]);
        if (d.reg2 >= 0) c.reg(d.reg2)[l] = valid[l];
      });
      return true;
    }
    case Opcode::vote: {
      std::uint64_t sa[32];
      const u64* a = c.src(i.ops[1], sa);
      std::uint32_t group[32];
      member_groups(c, i, 2, group);
      std::uint32_t votes = 0;  // lanes whose predicate holds, over all groups
      each_lane(c.mask, [&](unsigned l) { votes |= static_cast<std::uint32_t>(a[l] != 0) << l; });
      each_lane(c.mask, [&](unsigned l) {
        const std::uint32_t ballot = votes & group[l];
        u64 v = 0;
        switch (i.mode) {
          case Mode::All:
            v = ballot == group[l];
            break;
          case Mode::Any:
            v = ballot != 0;
            break;
          case Mode::Uni:
            v = ballot == 0 || ballot == group[l];
            break;
          default:
            v = ballot;
            break;
        }
        put(c, i.ops[0], l, v);
      });
      return true;
    }
    case Opcode::match: {
      std::uint64_t sa[32], sm[32];
      const u64* a = c.src(i.ops[1], sa);
      const u64* member = c.src(i.ops[2], sm);
      const unsigned bits = type_bits(i.type);
      const Operand& d = i.ops[0];
      each_lane(c.mask, [&](unsigned l) {
        const std::uint32_t group = static_cast<std::uint32_t>(member[l]) & c.mask;
        std::uint32_t same = 0;
        each_lane(group, [&](unsigned k) {
          if (truncate(a[k], bits) == truncate(a[l], bits)) same |= 1u << k;
        });
        if (i.mode == Mode::All) {
          const bool all = same == group;
          put(c, d, l, all ? group : 0);
          if (d.reg2 >= 0) c.reg(d.reg2)[l] = all;
        } else {
          put(c, d, l, same);
        }
      });
      return true;
    }
    case Opcode::redux: {
      std::uint64_t sa[32];
      const u64* a = c.src(i.ops[1], sa);
      std::uint32_t group[32];
      member_groups(c, i, 2, group);
      const bool sgn = is_signed(i.type);
      auto combine = [&](u64 acc, u64 v) -> u64 {
        switch (i.mode) {
          case Mode::Add:
            return (acc + v) & 0xffffffffu;
          case Mode::And:
            return acc & v;
          case Mode::Or:
            return acc | v;
          case Mode::Xor:
            return acc ^ v;
          case Mode::Min:
            return sgn ? (sign_extend(v, 32) < sign_extend(acc, 32) ? v : acc) : std::min(acc, v);
          case Mode::Max:
            return sgn ? (sign_extend(v, 32) > sign_extend(acc, 32) ? v : acc) : std::max(acc, v);
          default:
            return acc;
        }
      };
      // One reduction per distinct group; a full-warp mask makes it one.
      std::uint32_t done = 0;
      u64 result[32];
      each_lane(c.mask, [&](unsigned l) {
        if ((done >> l) & 1) return;
        const std::uint32_t g = group[l];
        u64 acc = 0;
        bool first = true;
        each_lane(g, [&](unsigned k) {
          const u64 v = a[k] & 0xffffffffu;
          acc = first ? v : combine(acc, v);
          first = false;
        });
        // Every executing lane naming the same group shares its result.
        each_lane(c.mask, [&](unsigned k) {
          if (group[k] == g) {
            result[k] = acc;
            done |= 1u << k;
          }
        });
      });
      each_lane(c.mask, [&](unsigned l) { put(c, i.ops[0], l, result[l]); });
      return true;
    }
    case Opcode::activemask:
      each_lane(c.mask, [&](unsigned l) { put(c, i.ops[0], l, c.mask); });
      return true;
    case Opcode::elect: {
      std::uint32_t group[32];
      member_groups(c, i, 1, group);
      const Operand& d = i.ops[0];
      each_lane(c.mask, [&](unsigned l) {
        const unsigned leader = group[l] ? static_cast<unsigned>(__builtin_ctz(group[l])) : 0;
        put(c, d, l, leader);
        if (d.reg2 >= 0) c.reg(d.reg2)[l] = l == leader && group[l];
      });
      return true;
    }
    default:
      return false;
  }
}

}  // namespace cnuas::ptx
