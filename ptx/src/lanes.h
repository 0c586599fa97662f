// Lane-parallel helpers: apply a scalar function to all 32 lanes of a warp and
// keep inactive lanes' destinations unchanged. Loops are branch-free so the
// compiler can vectorize the full-mask case.
#pragma once

#include "exec_state.h"

namespace cnuas::ptx {

// d[l] = r[l] for the lanes set in m; the others keep d[l].
void blend_lanes(std::uint64_t* d, const std::uint64_t* r, std::uint32_t m);

template <class F>
inline void map1(Ctx& c, const Instruction& i, F f) {
  std::uint64_t sa[32];
  const std::uint64_t* a = c.src(i.ops[1], sa);
  if (i.ops[0].kind != Operand::Kind::Reg) return;
  std::uint64_t* d = c.reg(i.ops[0].reg);
  const std::uint32_t m = c.mask;
  if (m == ~0u) {  // a converged warp: a straight loop
    for (unsigned l = 0; l < 32; ++l) d[l] = f(a[l]);
    return;
  }
  std::uint64_t r[32];  // every lane (a straight loop), then the active ones
  for (unsigned l = 0; l < 32; ++l) r[l] = f(a[l]);
  blend_lanes(d, r, m);
}

template <class F>
inline void map2(Ctx& c, const Instruction& i, F f) {
  std::uint64_t sa[32], sb[32];
  const std::uint64_t* a = c.src(i.ops[1], sa);
  const std::uint32_t m = c.mask;
  if (m == ~0u && i.ops[2].kind == Operand::Kind::Imm && i.ops[0].kind == Operand::Kind::Reg) {
    // A converged warp and an immediate (a loop step, a scale): no lane copies of it.
    const auto b = static_cast<std::uint64_t>(i.ops[2].imm);
    std::uint64_t* d = c.reg(i.ops[0].reg);
    for (unsigned l = 0; l < 32; ++l) d[l] = f(a[l], b);
    return;
  }
  const std::uint64_t* b = c.src(i.ops[2], sb);
  if (i.ops[0].kind != Operand::Kind::Reg) return;
  std::uint64_t* d = c.reg(i.ops[0].reg);
  if (m == ~0u) {  // a converged warp: a straight loop
    for (unsigned l = 0; l < 32; ++l) d[l] = f(a[l], b[l]);
    return;
  }
  std::uint64_t r[32];
  for (unsigned l = 0; l < 32; ++l) r[l] = f(a[l], b[l]);
  blend_lanes(d, r, m);
}

template <class F>
inline void map3(Ctx& c, const Instruction& i, F f) {
  std::uint64_t sa[32], sb[32], sc[32];
  const std::uint64_t* a = c.src(i.ops[1], sa);
  const std::uint64_t* b = c.src(i.ops[2], sb);
  const std::uint64_t* x = c.src(i.ops[3], sc);
  if (i.ops[0].kind != Operand::Kind::Reg) return;
  std::uint64_t* d = c.reg(i.ops[0].reg);
  const std::uint32_t m = c.mask;
  if (m == ~0u) {  // a converged warp: a straight loop
    for (unsigned l = 0; l < 32; ++l) d[l] = f(a[l], b[l], x[l]);
    return;
  }
  std::uint64_t r[32];
  for (unsigned l = 0; l < 32; ++l) r[l] = f(a[l], b[l], x[l]);
  blend_lanes(d, r, m);
}

template <class F>
inline void map4(Ctx& c, const Instruction& i, F f) {
  std::uint64_t sa[32], sb[32], sc[32], sd[32];
  const std::uint64_t* a = c.src(i.ops[1], sa);
  const std::uint64_t* b = c.src(i.ops[2], sb);
  const std::uint64_t* x = c.src(i.ops[3], sc);
  const std::uint64_t* y = c.src(i.ops[4], sd);
  if (i.ops[0].kind != Operand::Kind::Reg) return;
  std::uint64_t* d = c.reg(i.ops[0].reg);
  const std::uint32_t m = c.mask;
  if (m == ~0u) {  // a converged warp: a straight loop
    for (unsigned l = 0; l < 32; ++l) d[l] = f(a[l], b[l], x[l], y[l]);
    return;
  }
  std::uint64_t r[32];
  for (unsigned l = 0; l < 32; ++l) r[l] = f(a[l], b[l], x[l], y[l]);
  blend_lanes(d, r, m);
}

// --- Gangs (executor.cpp, "lock step"): n converged warps of one CTA with
// every lane active issue an instruction together. The gang maps run a form's
// lane function over each warp's registers with the operands decoded once;
// they handle plain register and immediate operands only, and return false,
// having done nothing, for anything else.
constexpr std::size_t kMaxGang = 8;
struct Gang {
  std::uint64_t* const* regs;  // each warp's frame: register r of lane l at regs[k][r * 32 + l]
  std::size_t n;               // at most kMaxGang
  Ctx* lead;  // the first warp's context (all lanes active, no step record): the CTA's state
};

inline bool plain_register(const Operand& o) {
  return o.kind == Operand::Kind::Reg && !o.component;
}
inline std::size_t row(const Operand& o) {
  return static_cast<std::size_t>(o.reg) * 32;
}

// A gang's source operand: each warp's register row, or one row that every
// warp reads: an immediate, or a special register with the same lanes in every
// warp of the CTA (%ntid, %ctaid, %nctaid, %laneid, %lanemask_*), filled once
// per instruction into `scratch`.
struct GangRow {
  const std::uint64_t* shared = nullptr;
  std::size_t row = 0;
  const std::uint64_t* of(const std::uint64_t* regs) const { return shared ? shared : regs + row; }
};
inline bool same_in_every_warp(SpecialReg r) {
  switch (r) {
    case SpecialReg::Ntid:
    case SpecialReg::Ctaid:
    case SpecialReg::Nctaid:
    case SpecialReg::Laneid:
    case SpecialReg::LanemaskEq:
    case SpecialReg::LanemaskLe:
    case SpecialReg::LanemaskLt:
    case SpecialReg::LanemaskGe:
    case SpecialReg::LanemaskGt:
      return true;
    default:
      return false;
  }
}
inline bool gang_row(const Gang& g, const Operand& o, std::uint64_t* scratch, GangRow& out) {
  if (plain_register(o)) {
    out.row = row(o);
    return true;
  }
  if (o.kind == Operand::Kind::Imm) {
    for (unsigned l = 0; l < 32; ++l) scratch[l] = static_cast<std::uint64_t>(o.imm);
  } else if (o.kind == Operand::Kind::Special && g.lead && same_in_every_warp(o.special)) {
    g.lead->special_lanes(o, scratch);
  } else {
    return false;
  }
  out.shared = scratch;
  return true;
}

template <class F>
inline bool gang_map1(const Gang& g, const Instruction& i, F f) {
  std::uint64_t sa[32];
  GangRow a;
  if (!plain_register(i.ops[0]) || !gang_row(g, i.ops[1], sa, a)) return false;
  const std::size_t d = row(i.ops[0]);
  for (std::size_t k = 0; k < g.n; ++k) {
    std::uint64_t* r = g.regs[k];
    const std::uint64_t* x = a.of(r);
    for (unsigned l = 0; l < 32; ++l) r[d + l] = f(x[l]);
  }
  return true;
}

template <class F>
inline bool gang_map2(const Gang& g, const Instruction& i, F f) {
  if (!plain_register(i.ops[0])) return false;
  const std::size_t d = row(i.ops[0]);
  if (i.ops[2].kind == Operand::Kind::Imm && plain_register(i.ops[1])) {
    const std::size_t a = row(i.ops[1]);
    const auto b = static_cast<std::uint64_t>(i.ops[2].imm);
    for (std::size_t k = 0; k < g.n; ++k) {
      std::uint64_t* r = g.regs[k];
      for (unsigned l = 0; l < 32; ++l) r[d + l] = f(r[a + l], b);
    }
    return true;
  }
  std::uint64_t sa[32], sb[32];
  GangRow a, b;
  if (!gang_row(g, i.ops[1], sa, a) || !gang_row(g, i.ops[2], sb, b)) return false;
  for (std::size_t k = 0; k < g.n; ++k) {
    std::uint64_t* r = g.regs[k];
    const std::uint64_t *x = a.of(r), *y = b.of(r);
    for (unsigned l = 0; l < 32; ++l) r[d + l] = f(x[l], y[l]);
  }
  return true;
}

template <class F>
inline bool gang_map3(const Gang& g, const Instruction& i, F f) {
  if (!plain_register(i.ops[0])) return false;
  const std::size_t d = row(i.ops[0]);
  if (i.ops[3].kind == Operand::Kind::Imm && plain_register(i.ops[1]) && plain_register(i.ops[2])) {
    const std::size_t a = row(i.ops[1]), b = row(i.ops[2]);
    const auto x = static_cast<std::uint64_t>(i.ops[3].imm);
    for (std::size_t k = 0; k < g.n; ++k) {
      std::uint64_t* r = g.regs[k];
      for (unsigned l = 0; l < 32; ++l) r[d + l] = f(r[a + l], r[b + l], x);
    }
    return true;
  }
  std::uint64_t sa[32], sb[32], sc[32];
  GangRow a, b, c;
  if (!gang_row(g, i.ops[1], sa, a) || !gang_row(g, i.ops[2], sb, b) ||
      !gang_row(g, i.ops[3], sc, c))
    return false;
  for (std::size_t k = 0; k < g.n; ++k) {
    std::uint64_t* r = g.regs[k];
    const std::uint64_t *x = a.of(r), *y = b.of(r), *z = c.of(r);
    for (unsigned l = 0; l < 32; ++l) r[d + l] = f(x[l], y[l], z[l]);
  }
  return true;
}

// A form's handlers from its lane function F, one warp (one_warpN) or a gang
// (gangN) at a time. Each wraps F in a lambda so that map*/gang_map* are
// instantiated for that function and inline it: given the pointer itself, one
// shared instantiation called it indirectly for every lane (half of a
// divergent kernel's time).
template <std::uint64_t (*F)(std::uint64_t)>
void one_warp1(Ctx& c, const Instruction& i) {
  map1(c, i, [](std::uint64_t a) { return F(a); });
}
template <std::uint64_t (*F)(std::uint64_t, std::uint64_t)>
void one_warp2(Ctx& c, const Instruction& i) {
  map2(c, i, [](std::uint64_t a, std::uint64_t b) { return F(a, b); });
}
template <std::uint64_t (*F)(std::uint64_t, std::uint64_t, std::uint64_t)>
void one_warp3(Ctx& c, const Instruction& i) {
  map3(c, i, [](std::uint64_t a, std::uint64_t b, std::uint64_t x) { return F(a, b, x); });
}
template <std::uint64_t (*F)(std::uint64_t)>
bool gang1(const Gang& g, const Instruction& i) {
  return gang_map1(g, i, [](std::uint64_t a) { return F(a); });
}
template <std::uint64_t (*F)(std::uint64_t, std::uint64_t)>
bool gang2(const Gang& g, const Instruction& i) {
  return gang_map2(g, i, [](std::uint64_t a, std::uint64_t b) { return F(a, b); });
}
template <std::uint64_t (*F)(std::uint64_t, std::uint64_t, std::uint64_t)>
bool gang3(const Gang& g, const Instruction& i) {
  return gang_map3(g, i,
                   [](std::uint64_t a, std::uint64_t b, std::uint64_t x) { return F(a, b, x); });
}

}  // namespace cnuas::ptx
