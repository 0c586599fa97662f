#include "register_init.h"

#include <algorithm>

#include "cfg.h"

namespace cnuas::ptx {
namespace {

using Bits = std::vector<std::uint64_t>;

bool test(const Bits& b, std::uint32_t r) {
  return (b[r / 64] >> (r % 64)) & 1;
}
void set(Bits& b, std::uint32_t r) {
  b[r / 64] |= std::uint64_t{1} << (r % 64);
}

// Instructions that write their destination (ops[0]: a register, or the
// registers of a vector) in every active lane and read nothing of it.
bool writes_destination(const Instruction& i) {
  if (i.guard >= 0) return false;
  switch (i.op) {
    case Opcode::mov:
    case Opcode::ld:
    case Opcode::ldu:
    case Opcode::add:
    case Opcode::sub:
    case Opcode::mul:
    case Opcode::mad:
    case Opcode::mul24:
    case Opcode::mad24:
    case Opcode::div:
    case Opcode::rem:
    case Opcode::and_:
    case Opcode::or_:
    case Opcode::xor_:
    case Opcode::not_:
    case Opcode::cnot:
    case Opcode::shl:
    case Opcode::shr:
    case Opcode::shf:
    case Opcode::cvt:
    case Opcode::cvta:
    case Opcode::setp:
    case Opcode::selp:
    case Opcode::slct:
    case Opcode::min:
    case Opcode::max:
    case Opcode::neg:
    case Opcode::abs:
    case Opcode::fma:
    case Opcode::rcp:
    case Opcode::sqrt:
    case Opcode::rsqrt:
    case Opcode::ex2:
    case Opcode::lg2:
    case Opcode::sin:
    case Opcode::cos:
    case Opcode::popc:
    case Opcode::clz:
    case Opcode::brev:
    case Opcode::bfind:
    case Opcode::bfe:
    case Opcode::bfi:
    case Opcode::prmt:
    case Opcode::lop3:
      return true;
    default:
      return false;
  }
}

// Instructions whose lanes read other lanes' registers (or hand them on).
bool reads_other_lanes(const Instruction& i) {
  switch (i.op) {
    case Opcode::shfl:
    case Opcode::vote:
    case Opcode::match:
    case Opcode::redux:
    case Opcode::mma:
    case Opcode::wmma:
    case Opcode::wgmma:
    case Opcode::ldmatrix:
    case Opcode::stmatrix:
    case Opcode::movmatrix:
    case Opcode::call:
      return true;
    default:
      return false;
  }
}

// Calls f(register) for each register operand of `i`; `skip_destination`
// leaves out what ops[0] writes.
template <class F>
void each_register(const Instruction& i, bool skip_destination, std::size_t count, F f) {
  auto reg = [&](std::int32_t r) {
    if (r >= 0 && static_cast<std::size_t>(r) < count) f(static_cast<std::uint32_t>(r));
  };
  if (i.guard >= 0) reg(i.guard);
  for (std::size_t k = 0; k < 6; ++k) {
    const Operand& o = i.ops[k];
    const bool destination = k == 0 && skip_destination;
    if (!destination || o.kind == Operand::Kind::Address) reg(o.reg);
    reg(o.reg2);
    if (o.kind == Operand::Kind::Vector && i.op != Opcode::brx && !destination)
      for (std::int32_t r : o.regs) reg(r);
  }
}

void written(const Instruction& i, std::size_t count, Bits& out) {
  if (!writes_destination(i)) return;
  const Operand& d = i.ops[0];
  auto reg = [&](std::int32_t r) {
    if (r >= 0 && static_cast<std::size_t>(r) < count) set(out, static_cast<std::uint32_t>(r));
  };
  if (d.kind == Operand::Kind::Reg) reg(d.reg);
  if (d.kind == Operand::Kind::Vector)
    for (std::int32_t r : d.regs) reg(r);
}

}  // namespace

std::vector<std::uint32_t> registers_read_before_written(const Function& f) {
  const std::size_t count = f.registers.size();
  std::vector<std::uint32_t> out;
  if (count == 0 || f.code.empty()) return out;
  const std::size_t words = (count + 63) / 64;
  const BlockGraph g = block_graph(f);
  const std::size_t blocks = g.start.size();
  // Written by the end of each block (the exit block has no code).
  std::vector<Bits> gen(blocks, Bits(words, 0));
  for (std::size_t b = 0; b + 1 < blocks; ++b)
    for (std::uint32_t pc = g.start[b]; pc < g.start[b + 1]; ++pc)
      written(f.code[pc], count, gen[b]);
  std::vector<std::vector<std::uint32_t>> pred(blocks);
  for (std::size_t b = 0; b < blocks; ++b)
    for (std::uint32_t s : g.succ[b]) pred[s].push_back(static_cast<std::uint32_t>(b));
  // Reachable blocks; the others never run (and are checked as if nothing was written).
  std::vector<bool> reached(blocks, false);
  std::vector<std::uint32_t> work = {0};
  reached[0] = true;
  while (!work.empty()) {
    const std::uint32_t b = work.back();
    work.pop_back();
    for (std::uint32_t s : g.succ[b])
      if (!reached[s]) reached[s] = true, work.push_back(s);
  }
  // in[b]: definitely written on entry to b; the meet over predecessors, from
  // "everything" down to the fixed point.
  std::vector<Bits> in(blocks, Bits(words, ~std::uint64_t{0}));
  in[0].assign(words, 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t b = 1; b < blocks; ++b) {
      if (!reached[b]) continue;
      Bits meet(words, ~std::uint64_t{0});
      for (std::uint32_t p : pred[b]) {
        if (!reached[p]) continue;
        for (std::size_t w = 0; w < words; ++w) meet[w] &= in[p][w] | gen[p][w];
      }
      if (meet != in[b]) in[b] = std::move(meet), changed = true;
    }
  }
  Bits need(words, 0);
  for (std::size_t b = 0; b + 1 < blocks; ++b) {
    Bits have = reached[b] ? in[b] : Bits(words, 0);
    for (std::uint32_t pc = g.start[b]; pc < g.start[b + 1]; ++pc) {
      const Instruction& i = f.code[pc];
      const bool other_lanes = reads_other_lanes(i);
      each_register(i, writes_destination(i), count, [&](std::uint32_t r) {
        if (other_lanes || !test(have, r)) set(need, r);
      });
      if (other_lanes) each_register(i, false, count, [&](std::uint32_t r) { set(need, r); });
      written(i, count, have);
    }
  }
  for (std::uint32_t r = 0; r < count; ++r)
    if (test(need, r)) out.push_back(r);
  return out;
}

}  // namespace cnuas::ptx
