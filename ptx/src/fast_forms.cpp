// Which FastForm an instruction has: the conditions under which exec_integer
// and exec_memory take the branch each form's handler runs.
#include "fast_paths.h"

namespace cnuas::ptx {
namespace {

bool integer_like(Type t) {  // what exec_integer's arithmetic accepts
  return !is_float(t) && t != Type::None && t != Type::B128;
}

bool plain_arithmetic(const Instruction& i) {
  return integer_like(i.type) && !i.has(kCc) && !i.has(kSat) && !i.has(kHi) && !i.has(kWide);
}

FastForm sized(unsigned bytes, FastForm one) {
  const auto base = static_cast<unsigned>(one);
  switch (bytes) {
    case 1:
      return one;
    case 2:
      return static_cast<FastForm>(base + 1);
    case 4:
      return static_cast<FastForm>(base + 2);
    case 8:
      return static_cast<FastForm>(base + 3);
    default:
      return FastForm::None;
  }
}

bool setp_compare(Cmp c) {  // the comparisons exec_integer's compare_lanes runs itself
  switch (c) {
    case Cmp::Eq:
    case Cmp::Ne:
    case Cmp::Lo:
    case Cmp::Ls:
    case Cmp::Hi:
    case Cmp::Hs:
    case Cmp::Lt:
    case Cmp::Le:
    case Cmp::Gt:
    case Cmp::Ge:
      return true;
    default:
      return false;
  }
}

// f32 add/sub/mul/fma (and mad, fma's alias here) rounded to nearest without
// .ftz or .sat: exec_float's plain lane loops.
FastForm float_form(const Instruction& i) {
  if (i.type != Type::F32 || (i.round != Round::None && i.round != Round::Rn) || i.has(kFtz) ||
      i.has(kSat))
    return FastForm::None;
  switch (i.op) {
    case Opcode::add:
      return FastForm::AddF32;
    case Opcode::sub:
      return FastForm::SubF32;
    case Opcode::mul:
      return FastForm::MulF32;
    case Opcode::fma:
    case Opcode::mad:
      return FastForm::FmaF32;
    default:
      return FastForm::None;
  }
}

bool float_compare(Cmp c) {  // the comparisons exec_float's compare_floats runs itself
  switch (c) {
    case Cmp::Eq:
    case Cmp::Ne:
    case Cmp::Lt:
    case Cmp::Le:
    case Cmp::Gt:
    case Cmp::Ge:
    case Cmp::Equ:
    case Cmp::Neu:
    case Cmp::Ltu:
    case Cmp::Leu:
    case Cmp::Gtu:
    case Cmp::Geu:
    case Cmp::Num:
    case Cmp::Nan:
      return true;
    default:
      return false;
  }
}

// sin/cos/ex2/lg2 (.approx, any .ftz), sqrt rounded to nearest, min/max and
// setp without .ftz: exec_float's lane loops for them.
FastForm f32_function_form(const Instruction& i) {
  if (i.type != Type::F32) return FastForm::None;
  switch (i.op) {
    case Opcode::sin:
      return FastForm::SinF32;
    case Opcode::cos:
      return FastForm::CosF32;
    case Opcode::ex2:
      return FastForm::Ex2F32;
    case Opcode::lg2:
      return FastForm::Lg2F32;
    case Opcode::min:
    case Opcode::max:
      if (i.has(kFtz) || i.has(kSat) || i.has(kNaN)) return FastForm::None;
      return i.op == Opcode::min ? FastForm::MinF32 : FastForm::MaxF32;
    case Opcode::setp:  // compare_floats: no .ftz, no combining with a predicate
      return !i.has(kFtz) && !i.has(kAnd) && !i.has(kOr) && !i.has(kXor) && float_compare(i.cmp)
                 ? FastForm::SetpF32
                 : FastForm::None;
    case Opcode::sqrt:
      return (i.round == Round::None || i.round == Round::Rn) && !i.has(kFtz) && !i.has(kSat)
                 ? FastForm::SqrtF32
                 : FastForm::None;
    default:
      return FastForm::None;
  }
}

// cvt.rn.f32.u32 / .s32 (exec_convert's int_to_float in the default rounding).
FastForm int_to_f32_form(const Instruction& i) {
  if (i.type != Type::F32 || (i.round != Round::None && i.round != Round::Rn) || i.has(kSat) ||
      i.ops[0].kind != Operand::Kind::Reg || i.ops[1].kind == Operand::Kind::Vector)
    return FastForm::None;
  if (i.type2 == Type::U32) return FastForm::CvtF32U32;
  return i.type2 == Type::S32 ? FastForm::CvtF32S32 : FastForm::None;
}

}  // namespace

FastForm fast_form(const Instruction& i) {
  if (!i.unsupported.empty()) return FastForm::None;
  const bool arithmetic = i.op == Opcode::add || i.op == Opcode::sub || i.op == Opcode::mul ||
                          i.op == Opcode::fma || i.op == Opcode::mad;
  if (is_float(i.type) && arithmetic) return float_form(i);  // exec_float's, tried first
  if (i.op == Opcode::sin || i.op == Opcode::cos || i.op == Opcode::ex2 || i.op == Opcode::lg2 ||
      i.op == Opcode::sqrt || i.op == Opcode::min || i.op == Opcode::max ||
      (i.op == Opcode::setp && i.type == Type::F32))
    return f32_function_form(i);
  if (i.op == Opcode::cvt) return int_to_f32_form(i);
  const unsigned bits = type_bits(i.type);
  switch (i.op) {
    case Opcode::mov:
      if (i.ops[0].kind != Operand::Kind::Reg || i.ops[1].kind == Operand::Kind::Vector ||
          i.type == Type::Pred)
        return FastForm::None;
      if (bits == 32) return FastForm::Mov32;
      return bits == 64 || bits == 0 ? FastForm::Mov64 : FastForm::None;
    case Opcode::cvta:
      // Global (and const) addresses are generic ones as they are: exec_convert
      // adds or subtracts a window of 0 and truncates to the type, a mov.
      if (i.space == Space::Shared || i.space == Space::Local || i.space == Space::Param ||
          i.ops[0].kind != Operand::Kind::Reg || i.ops[1].kind == Operand::Kind::Vector)
        return FastForm::None;
      return bits == 32 ? FastForm::Mov32 : bits == 64 ? FastForm::Mov64 : FastForm::None;
    case Opcode::setp:
      if (is_float(i.type) || i.type == Type::None || i.has(kAnd) || i.has(kOr) || i.has(kXor) ||
          bits > 64 || !setp_compare(i.cmp))
        return FastForm::None;
      return FastForm::SetpInt;
    case Opcode::add:
    case Opcode::sub:
      if (!plain_arithmetic(i)) return FastForm::None;
      if (bits == 32) return i.op == Opcode::add ? FastForm::AddU32 : FastForm::SubU32;
      return i.op == Opcode::add ? FastForm::AddAny : FastForm::SubAny;
    case Opcode::shr:
      if (!integer_like(i.type) || bits != 32) return FastForm::None;
      return is_signed(i.type) ? FastForm::ShrS32 : FastForm::ShrU32;
    case Opcode::selp:  // the integer group's whatever the type (f32 too)
      if (i.type == Type::Pred || i.ops[0].kind != Operand::Kind::Reg) return FastForm::None;
      return bits == 32 ? FastForm::Selp32 : bits == 64 ? FastForm::Selp64 : FastForm::None;
    case Opcode::mul:
      if (!integer_like(i.type) || i.has(kHi) || bits != 32) return FastForm::None;
      if (!i.has(kWide)) return FastForm::MulLoU32;
      return is_signed(i.type) ? FastForm::MulWideS32 : FastForm::MulWideU32;
    case Opcode::mad:
      return plain_arithmetic(i) && bits == 32 ? FastForm::MadLoU32 : FastForm::None;
    case Opcode::shl:
      return integer_like(i.type) && bits == 32 ? FastForm::ShlU32 : FastForm::None;
    case Opcode::and_:
      return integer_like(i.type) ? FastForm::And : FastForm::None;
    case Opcode::or_:
      return integer_like(i.type) ? FastForm::Or : FastForm::None;
    case Opcode::xor_:
      return integer_like(i.type) ? FastForm::Xor : FastForm::None;
    case Opcode::ld:
    case Opcode::ldu:
      if (i.ops[0].kind != Operand::Kind::Reg) return FastForm::None;
      return sized(type_bytes(i.type), FastForm::Load1);
    case Opcode::st:
      if (i.ops[1].kind == Operand::Kind::Vector) return FastForm::None;
      return sized(type_bytes(i.type), FastForm::Store1);
    default:
      return FastForm::None;
  }
}

}  // namespace cnuas::ptx
