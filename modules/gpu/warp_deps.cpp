#include "gpu/warp_deps.h"

#include <algorithm>

namespace cnuas::gpu {

namespace {

using ptx::Instruction;
using ptx::Opcode;
using ptx::Operand;

enum class Role : std::uint8_t { None, Read, Write, ReadWrite };

// Whether operand 0 is what the instruction produces. It is not for stores,
// branches, barriers without a result and the instructions whose first
// operand is a count or mask; address and texture operands are sorted out
// before this is asked.
bool first_operand_is_result(const Instruction& i) {
  switch (i.op) {
    case Opcode::bar:
    case Opcode::barrier:
      return i.has(ptx::kRed);  // bar.red d, a{, b}, {!}c
    case Opcode::st:
    case Opcode::red:
    case Opcode::sured:
    case Opcode::sust:
    case Opcode::stmatrix:
    case Opcode::bra:
    case Opcode::brx:
    case Opcode::membar:
    case Opcode::fence:
    case Opcode::prefetch:
    case Opcode::prefetchu:
    case Opcode::exit:
    case Opcode::ret:
    case Opcode::trap:
    case Opcode::brkpt:
    case Opcode::cp:
    case Opcode::nanosleep:  // nanosleep t: t is a duration
    case Opcode::pmevent:
    case Opcode::stackrestore:
    case Opcode::setmaxnreg:
      return false;
    default:
      return true;
  }
}

// What instruction `i` does with the registers operand k names.
Role role(const Instruction& i, unsigned k) {
  const Operand& o = i.ops[k];
  // An address's base register, a texture handle, sampler and coordinates are
  // always inputs, whichever position they hold (wmma.store, mbarrier.init ...).
  if (o.kind == Operand::Kind::Address || o.kind == Operand::Kind::Texture) return Role::Read;
  // call's return and argument lists hold .param offsets, brx's table holds
  // branch targets: neither names registers.
  if (i.op == Opcode::call) return k == 1 ? Role::Read : Role::None;
  if (i.op == Opcode::brx && o.kind == Operand::Kind::Vector) return Role::None;
  if (k != 0 || !first_operand_is_result(i)) return Role::Read;
  // wgmma accumulates into its D fragment; wmma and mma read C separately.
  return i.op == Opcode::wgmma ? Role::ReadWrite : Role::Write;
}

void add(std::vector<std::int32_t>& list, std::int32_t reg) {
  if (reg < 0) return;  // no register, or a sink (_) in a vector
  if (std::find(list.begin(), list.end(), reg) == list.end()) list.push_back(reg);
}

// Every register an operand names: the register (and the predicate of a
// "d|p" pair), an address's base, a vector's elements, a texture's handle,
// sampler and coordinates.
void add_operand(std::vector<std::int32_t>& list, const Operand& o) {
  switch (o.kind) {
    case Operand::Kind::Reg:
    case Operand::Kind::Address:
    case Operand::Kind::Vector:
    case Operand::Kind::Texture:
      add(list, o.reg);
      add(list, o.reg2);
      for (std::int32_t r : o.regs) add(list, r);
      break;
    default:
      break;
  }
}

void describe_wgmma(const Instruction& i, WarpDeps& d) {
  using Kind = ptx::MatrixOp::Kind;
  const ptx::MatrixOp& mx = i.matrix;
  switch (mx.kind) {
    case Kind::Mma: {
      d.wgmma = WarpDeps::Wgmma::Mma;
      d.wgmma_flops = 2ull * 16 * mx.n * mx.k / (mx.sparse ? 2 : 1);
      break;
    }
    case Kind::Commit:
      d.wgmma = WarpDeps::Wgmma::Commit;
      break;
    case Kind::Wait:
      d.wgmma = WarpDeps::Wgmma::Wait;
      d.wgmma_wait = static_cast<std::uint32_t>(i.ops[0].imm);
      break;
    default:
      d.wgmma = WarpDeps::Wgmma::Fence;
      break;
  }
}

WarpDeps::TensorInput tensor_input(ptx::Type a) {
  using In = WarpDeps::TensorInput;
  switch (a) {
    case ptx::Type::TF32:
      return In::Tf32;
    case ptx::Type::E4M3:
    case ptx::Type::E5M2:
      return In::Fp8;
    case ptx::Type::S8:
    case ptx::Type::U8:
    case ptx::Type::S4:
    case ptx::Type::U4:
    case ptx::Type::B1:
      return In::Int8;
    case ptx::Type::F64:
      return In::F64;
    default:  // f16, bf16; wmma's f16 forms name no input type
      return In::F16;
  }
}

bool reads_carry(Opcode op) {
  return op == Opcode::addc || op == Opcode::subc || op == Opcode::madc;
}

}  // namespace

void WarpDeps::assign(const std::vector<std::int32_t>& reads,
                      const std::vector<std::int32_t>& writes) {
  reads_ = static_cast<std::uint32_t>(reads.size());
  writes_ = static_cast<std::uint32_t>(writes.size());
  std::int32_t* out = inline_;
  if (reads.size() + writes.size() > kInline) {
    spill_.assign(reads.size() + writes.size(), 0);
    out = spill_.data();
  } else {
    spill_.clear();
  }
  std::copy(writes.begin(), writes.end(), std::copy(reads.begin(), reads.end(), out));
}

WarpDeps DepsCache::decode(const ptx::Instruction& i) {
  WarpDeps d;
  d.unit = ptx::unit_class(i);
  std::vector<std::int32_t> reads, writes;
  add(reads, i.guard);
  bool has_result = false;
  for (unsigned k = 0; k < i.nops; ++k) {
    const Role r = role(i, k);
    if (r == Role::Read || r == Role::ReadWrite) add_operand(reads, i.ops[k]);
    if (r == Role::Write || r == Role::ReadWrite) {
      add_operand(writes, i.ops[k]);
      has_result = true;
    }
  }
  d.assign(reads, writes);
  d.reads_carry = reads_carry(i.op);
  d.writes_carry = i.has(ptx::kCc);
  d.waits_for_memory = has_result && d.unit == ptx::UnitClass::Memory;
  if (i.op == Opcode::wgmma) describe_wgmma(i, d);
  if (i.matrix.kind == ptx::MatrixOp::Kind::Mma) d.tensor_input = tensor_input(i.matrix.a);
  if (i.matrix.kind == ptx::MatrixOp::Kind::Mma)
    d.tensor_flops = i.op == Opcode::wgmma
                         ? d.wgmma_flops
                         : 2ull * i.matrix.m * i.matrix.n * i.matrix.k / (i.matrix.sparse ? 2 : 1);
  d.cache_hint = cache_hint_of(i);
  return d;
}

}  // namespace cnuas::gpu
