#include "cfg.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace cnuas::ptx {
namespace {

bool ends_block(const Instruction& i) {
  return i.op == Opcode::bra || i.op == Opcode::brx || i.op == Opcode::ret ||
         i.op == Opcode::exit || i.op == Opcode::trap;
}

// Is this instruction unconditional control transfer (no fall-through)?
bool no_fallthrough(const Instruction& i) {
  if (i.guard >= 0) return false;
  return i.op == Opcode::bra || i.op == Opcode::brx || i.op == Opcode::ret ||
         i.op == Opcode::exit || i.op == Opcode::trap;
}

}  // namespace

BlockGraph block_graph(const Function& f) {
  BlockGraph g;
  const std::uint32_t n = static_cast<std::uint32_t>(f.code.size());
  // Leaders: pc 0, branch targets, and the instruction after a block end.
  std::vector<bool> leader(n + 1, false);
  leader[0] = true;
  leader[n] = true;
  for (std::uint32_t pc = 0; pc < n; ++pc) {
    const Instruction& i = f.code[pc];
    if (ends_block(i)) leader[pc + 1] = true;
    for (const Operand& o : i.ops) {
      if (o.kind == Operand::Kind::Label && o.imm >= 0 && o.imm <= n) leader[o.imm] = true;
      if (i.op == Opcode::brx && o.kind == Operand::Kind::Vector)
        for (std::int32_t t : o.regs)
          if (t >= 0 && static_cast<std::uint32_t>(t) <= n) leader[t] = true;
    }
  }
  g.block_of.resize(n + 1);
  for (std::uint32_t pc = 0; pc <= n; ++pc) {
    if (leader[pc]) g.start.push_back(pc);
    g.block_of[pc] = static_cast<std::uint32_t>(g.start.size() - 1);
  }
  const std::size_t blocks = g.start.size();  // the last block is the virtual exit (pc n)
  const std::size_t exit_block = blocks - 1;
  g.succ.resize(blocks);
  for (std::size_t b = 0; b + 1 < blocks; ++b) {
    const std::uint32_t last = g.start[b + 1] - 1;
    const Instruction& i = f.code[last];
    auto add = [&](std::uint32_t target_pc) {
      g.succ[b].push_back(g.block_of[std::min(target_pc, n)]);
    };
    if (i.op == Opcode::ret || i.op == Opcode::exit || i.op == Opcode::trap) {
      g.succ[b].push_back(static_cast<std::uint32_t>(exit_block));
    } else if (i.op == Opcode::bra) {
      for (const Operand& o : i.ops)
        if (o.kind == Operand::Kind::Label && o.imm >= 0) add(static_cast<std::uint32_t>(o.imm));
    } else if (i.op == Opcode::brx) {
      for (const Operand& o : i.ops)
        if (o.kind == Operand::Kind::Vector)
          for (std::int32_t t : o.regs) add(static_cast<std::uint32_t>(t));
    }
    if (!no_fallthrough(i)) add(last + 1);
  }
  return g;
}

void compute_reconvergence(Function& f) {
  if (f.code.empty()) return;
  const BlockGraph g = block_graph(f);
  const std::vector<std::uint32_t>& start = g.start;
  const std::vector<std::vector<std::uint32_t>>& succ = g.succ;
  const std::size_t blocks = start.size();
  const std::size_t exit_block = blocks - 1;
  // Post-dominator sets by iteration over bitsets (functions are small).
  const std::size_t words = (blocks + 63) / 64;
  std::vector<std::vector<std::uint64_t>> pdom(blocks, std::vector<std::uint64_t>(words, ~0ull));
  pdom[exit_block].assign(words, 0);
  pdom[exit_block][exit_block / 64] |= 1ull << (exit_block % 64);
  bool changed = true;
  while (changed) {
    changed = false;
    for (std::size_t b = blocks - 1; b-- > 0;) {
      std::vector<std::uint64_t> meet(words, ~0ull);
      if (succ[b].empty()) meet.assign(words, 0);  // cannot reach exit (infinite loop)
      for (std::uint32_t s : succ[b])
        for (std::size_t w = 0; w < words; ++w) meet[w] &= pdom[s][w];
      meet[b / 64] |= 1ull << (b % 64);
      if (meet != pdom[b]) {
        pdom[b] = std::move(meet);
        changed = true;
      }
    }
  }
  auto has = [&](std::size_t b, std::size_t d) { return (pdom[b][d / 64] >> (d % 64)) & 1; };
  // The immediate post-dominator: the strict post-dominator that every other
  // strict post-dominator also post-dominates, i.e. the one with the most.
  for (std::size_t b = 0; b + 1 < blocks; ++b) {
    const std::uint32_t last = start[b + 1] - 1;
    Instruction& i = f.code[last];
    if (i.op != Opcode::bra && i.op != Opcode::brx) continue;
    std::size_t best = exit_block;
    std::size_t best_count = 0;
    for (std::size_t d = 0; d < blocks; ++d) {
      if (d == b || !has(b, d)) continue;
      std::size_t count = 0;
      for (std::size_t w = 0; w < words; ++w)
        count += static_cast<std::size_t>(__builtin_popcountll(pdom[d][w]));
      if (count > best_count) {
        best_count = count;
        best = d;
      }
    }
    i.reconverge = start[best];
  }
}

}  // namespace cnuas::ptx
