// Lane-parallel helpers: apply a scalar function to all 32 lanes of a warp and
// keep inactive lanes' destinations unchanged. Loops are branch-free so the
// compiler can vectorize the full-mask case.
#pragma once

#include "exec_state.h"

namespace cnuas::ptx {

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
  for (unsigned l = 0; l < 32; ++l) {
    const std::uint64_t r = f(a[l]);
    d[l] = ((m >> l) & 1) ? r : d[l];
  }
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
  for (unsigned l = 0; l < 32; ++l) {
    const std::uint64_t r = f(a[l], b[l]);
    d[l] = ((m >> l) & 1) ? r : d[l];
  }
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
  for (unsigned l = 0; l < 32; ++l) {
    const std::uint64_t r = f(a[l], b[l], x[l]);
    d[l] = ((m >> l) & 1) ? r : d[l];
  }
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
  for (unsigned l = 0; l < 32; ++l) {
    const std::uint64_t r = f(a[l], b[l], x[l], y[l]);
    d[l] = ((m >> l) & 1) ? r : d[l];
  }
}

}  // namespace cnuas::ptx
