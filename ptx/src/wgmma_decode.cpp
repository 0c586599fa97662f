#include "wgmma_decode.h"

#include <cstdio>

#include "mma_layout.h"

namespace cnuas::ptx {
namespace {

// The K of a dense wgmma for input type t (ISA 9.0: 16-bit k16, tf32 k8, 8-bit k32).
unsigned dense_k(Type t) {
  if (mma_half(t)) return 16;
  if (t == Type::TF32) return 8;
  if (mma_fp8(t) || mma_byte_int(t)) return 32;
  return 0;
}

// Empty when the ISA defines this shape and type combination, else why not.
std::string form_problem(const MatrixOp& mx) {
  const std::string name = "wgmma.mma_async m" + std::to_string(mx.m) + "n" + std::to_string(mx.n) +
                           "k" + std::to_string(mx.k) + "." + std::string(type_name(mx.d)) + "." +
                           std::string(type_name(mx.a)) + "." + std::string(type_name(mx.b));
  const unsigned k = dense_k(mx.a);
  if (k == 0) return name + " (input types: f16, bf16, tf32, e4m3, e5m2, s8, u8)";
  const bool types_ok = mma_half(mx.a)       ? mx.b == mx.a
                        : mx.a == Type::TF32 ? mx.b == Type::TF32
                        : mma_fp8(mx.a)      ? mma_fp8(mx.b)
                                             : mma_byte_int(mx.b);
  if (!types_ok) return name + " (A and B: both f16, both bf16, both tf32, fp8 or 8-bit integer)";
  const bool d_ok = mx.a == Type::F16 || mma_fp8(mx.a) ? mx.d == Type::F16 || mx.d == Type::F32
                    : mma_byte_int(mx.a)               ? mx.d == Type::S32
                                                       : mx.d == Type::F32;
  if (!d_ok)
    return name +
           " (accumulator: f32 or f16 for f16 and fp8, f32 for bf16 and tf32, s32 for s8/u8)";
  if (mx.m != 64 || mx.k != k * (mx.sparse ? 2 : 1))
    return name + " (shape m64nNk" + std::to_string(k * (mx.sparse ? 2 : 1)) + " for ." +
           std::string(type_name(mx.a)) + ")";
  const bool n_ok = mma_byte_int(mx.a) ? (mx.n >= 8 && mx.n <= 32 && mx.n % 8 == 0) ||
                                             (mx.n > 32 && mx.n <= 256 && mx.n % 16 == 0)
                                       : mx.n >= 8 && mx.n <= 256 && mx.n % 8 == 0;
  if (!n_ok)
    return name + (mma_byte_int(mx.a) ? " (N: 8, 16, 24, 32, then 48 to 256 in steps of 16)"
                                      : " (N: 8 to 256 in steps of 8)");
  if (mx.satfinite && !mma_byte_int(mx.a))
    return name + " with .satfinite (only the integer forms)";
  return {};
}

}  // namespace

void decode_wgmma(const std::vector<std::string>& parts, Instruction& inst) {
  MatrixOp& mx = inst.matrix;
  std::vector<Type> types;
  auto unsupported = [&](const std::string& why) {
    if (inst.unsupported.empty()) inst.unsupported = why;
  };
  for (std::size_t k = 1; k < parts.size(); ++k) {
    const std::string& m = parts[k];
    unsigned mm = 0, nn = 0, kk = 0;
    if (m == "fence")
      mx.kind = MatrixOp::Kind::Fence;
    else if (m == "commit_group")
      mx.kind = MatrixOp::Kind::Commit;
    else if (m == "wait_group")
      mx.kind = MatrixOp::Kind::Wait;
    else if (m == "mma_async")
      mx.kind = MatrixOp::Kind::Mma;
    else if (m == "sp")
      mx.sparse = true;
    else if (m == "satfinite")
      mx.satfinite = true;
    else if (m == "sync" || m == "aligned")
      continue;
    else if (std::sscanf(m.c_str(), "m%un%uk%u", &mm, &nn, &kk) == 3 && mm < 65536 && nn < 65536 &&
             kk < 65536) {
      mx.m = static_cast<std::uint16_t>(mm);
      mx.n = static_cast<std::uint16_t>(nn);
      mx.k = static_cast<std::uint16_t>(kk);
    } else if (auto t = type_from_name(m))
      types.push_back(*t);
    else
      unsupported("modifier ." + m + " of wgmma");
  }
  if (mx.kind == MatrixOp::Kind::None) {
    unsupported("wgmma without .fence, .commit_group, .wait_group or .mma_async");
    return;
  }
  if (mx.kind != MatrixOp::Kind::Mma) return;
  if (types.size() != 3) {
    unsupported("wgmma.mma_async with " + std::to_string(types.size()) +
                " types (it takes .dtype.atype.btype)");
    return;
  }
  mx.d = mx.c = types[0];
  mx.a = types[1];
  mx.b = types[2];
  // inst.type stays None: the parser would read the immediates as that type's bits.
  if (std::string why = form_problem(mx); !why.empty()) unsupported(why);
}

std::string place_wgmma_operands(Instruction& inst, std::vector<Operand>& list, std::size_t& bad) {
  MatrixOp& mx = inst.matrix;
  bad = 0;
  if (mx.kind == MatrixOp::Kind::Fence || mx.kind == MatrixOp::Kind::Commit)
    return "wgmma.fence and wgmma.commit_group take no operands";
  if (mx.kind == MatrixOp::Kind::Wait) {
    if (list.size() != 1 || list[0].kind != Operand::Kind::Imm)
      return "wgmma.wait_group takes one operand, an integer constant";
    inst.ops[0] = list[0];
    inst.nops = 1;
    return {};
  }
  if (mx.kind != MatrixOp::Kind::Mma) return {};  // unsupported already says why
  const std::size_t fixed = mx.sparse ? 6 : 4;    // d, a, b, [meta, selector,] scale-d
  const bool a_registers = list.size() > 1 && list[1].kind == Operand::Kind::Vector;
  // Immediates after scale-d: none for integers; imm-scale-a/b for tf32 and fp8; and
  // imm-trans-b (plus imm-trans-a when A is in shared memory) for f16/bf16.
  const std::size_t imms = mma_byte_int(mx.a) ? 0 : !mma_half(mx.a) ? 2 : a_registers ? 3 : 4;
  if (list.size() != fixed + imms) {
    bad = list.size() > fixed + imms ? fixed + imms : list.size() - 1;
    return "wgmma.mma_async." + std::string(type_name(mx.d)) + "." + std::string(type_name(mx.a)) +
           (a_registers ? " with A in registers" : "") + " takes " + std::to_string(fixed + imms) +
           " operands (d, a, b" + (mx.sparse ? ", sp-meta, sp-sel" : "") + ", scale-d" +
           (imms >= 2 ? ", imm-scale-a, imm-scale-b" : "") + (imms == 4 ? ", imm-trans-a" : "") +
           (imms >= 3 ? ", imm-trans-b" : "") + "), not " + std::to_string(list.size());
  }
  if (list[0].kind != Operand::Kind::Vector) return "wgmma d must be a vector of registers";
  if (!a_registers && list[1].kind != Operand::Kind::Reg)
    return bad = 1, "wgmma a must be a 64-bit descriptor register or a vector of registers";
  if (list[2].kind != Operand::Kind::Reg)
    return bad = 2, "wgmma b must be a 64-bit descriptor register";
  if (mx.sparse) {
    if (list[3].kind != Operand::Kind::Reg)
      return bad = 3, "wgmma sp-meta must be a 32-bit register";
    const unsigned selectors = SparseA{mx.a, mx.k}.selectors();
    if (list[4].kind != Operand::Kind::Imm || list[4].imm < 0 ||
        list[4].imm >= static_cast<std::int64_t>(selectors))
      return bad = 4, "wgmma sp-sel must be an integer constant, " +
                          std::string(selectors == 1 ? "0" : "0 or 1") + " for ." +
                          std::string(type_name(mx.a)) + " (the threads of each group of " +
                          "four that hold the metadata)";
  }
  const std::size_t scale_d = fixed - 1;
  if (list[scale_d].kind != Operand::Kind::Reg && list[scale_d].kind != Operand::Kind::Imm)
    return bad = scale_d, "wgmma scale-d must be a predicate or an integer constant";
  for (std::size_t k = fixed; k < list.size(); ++k) {
    const bool scale = k < fixed + 2;
    const std::int64_t v = list[k].imm;
    if (list[k].kind != Operand::Kind::Imm || (scale ? v != 1 && v != -1 : v != 0 && v != 1))
      return bad = k, std::string("wgmma ") + (scale ? "imm-scale-a/b must be 1 or -1"
                                                     : "imm-trans-a/b must be 0 or 1");
  }
  if (imms >= 2) {
    mx.scale_a = static_cast<std::int8_t>(list[fixed].imm);
    mx.scale_b = static_cast<std::int8_t>(list[fixed + 1].imm);
  }
  if (imms == 4) mx.trans = list[fixed + 2].imm != 0;
  if (imms >= 3) mx.trans_b = list.back().imm != 0;
  inst.ops[0] = list[0];
  inst.ops[1] = list[1];
  inst.ops[2] = list[2];
  inst.ops[3] = list[scale_d];
  if (mx.sparse) {
    inst.ops[4] = list[3];
    inst.ops[5] = list[4];
  }
  inst.nops = static_cast<std::uint8_t>(fixed);
  return {};
}

}  // namespace cnuas::ptx
