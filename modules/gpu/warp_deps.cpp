#include "gpu/warp_deps.h"

namespace cnuas::gpu {

namespace {

using ptx::Opcode;
using ptx::Operand;

// Opcodes whose first operand is not a destination register.
bool first_operand_is_source(Opcode op) {
  switch (op) {
    case Opcode::st:
    case Opcode::red:
    case Opcode::bra:
    case Opcode::brx:
    case Opcode::bar:
    case Opcode::barrier:
    case Opcode::membar:
    case Opcode::fence:
    case Opcode::prefetch:
    case Opcode::prefetchu:
    case Opcode::exit:
    case Opcode::ret:
    case Opcode::trap:
    case Opcode::brkpt:
    case Opcode::call:
    case Opcode::sust:
    case Opcode::stmatrix:
    case Opcode::cp:
      return true;
    default:
      return false;
  }
}

void add(std::uint8_t& n, std::int32_t* list, std::int32_t reg) {
  if (reg < 0 || n >= WarpDeps::kMax) return;
  for (std::uint8_t k = 0; k < n; ++k)
    if (list[k] == reg) return;
  list[n++] = reg;
}

void add_operand(std::uint8_t& n, std::int32_t* list, const Operand& o) {
  switch (o.kind) {
    case Operand::Kind::Reg:
      add(n, list, o.reg);
      add(n, list, o.reg2);
      break;
    case Operand::Kind::Address:
      add(n, list, o.reg);
      break;
    case Operand::Kind::Vector:
    case Operand::Kind::Texture:
      add(n, list, o.reg);
      add(n, list, o.reg2);
      for (std::int32_t r : o.regs) add(n, list, r);
      break;
    default:
      break;
  }
}

}  // namespace

WarpDeps DepsCache::decode(const ptx::Instruction& i) {
  WarpDeps d;
  d.unit = ptx::unit_class(i);
  add(d.reads, d.read, i.guard);
  const bool dest_first = i.nops > 0 && !first_operand_is_source(i.op);
  for (std::uint8_t k = 0; k < i.nops; ++k) {
    if (k == 0 && dest_first)
      add_operand(d.writes, d.write, i.ops[0]);
    else
      add_operand(d.reads, d.read, i.ops[k]);
  }
  d.waits_for_memory = dest_first && d.unit == ptx::UnitClass::Memory;
  return d;
}

}  // namespace cnuas::gpu
