// The wgmma instruction family's opcode words and operand lists.
#pragma once

#include <string>
#include <vector>

#include "ptx/ir.h"

namespace cnuas::ptx {

// wgmma.fence / commit_group / wait_group / mma_async[.sp] with shape and types: fills
// inst.matrix and inst.type, and inst.unsupported for forms the engine does not run.
void decode_wgmma(const std::vector<std::string>& parts, Instruction& inst);

// Puts a parsed wgmma operand list in place: d, a, b and scale-d in ops[0..3] (the sparse
// metadata and selector in ops[4], ops[5]), the trailing immediates (imm-scale-a/b,
// imm-trans-a/b) into inst.matrix. Returns an error naming what is wrong, with the index
// of the offending operand in `bad`; empty when the list is well formed.
std::string place_wgmma_operands(Instruction& inst, std::vector<Operand>& list, std::size_t& bad);

}  // namespace cnuas::ptx
