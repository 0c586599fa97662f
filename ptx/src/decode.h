// Turns an opcode word ("setp.ge.s32", "ld.global.nc.v4.f32") into the enums
// and flags of an Instruction, and decides whether the executor runs that form.
#pragma once

#include <string>
#include <vector>

#include "ptx/ir.h"

namespace cnuas::ptx {

// Fills op, types, space, cmp, round, mode, vec and flags. Returns false when
// the opcode itself is not a PTX instruction. Unknown or unimplemented
// modifiers set inst.unsupported rather than failing: the module still loads.
bool decode_opcode(const std::string& word, Instruction& inst);

// After operands are parsed: checks that the executor implements this form
// (operand count and kinds, types) and sets inst.unsupported when not.
void check_supported(Instruction& inst);

// The bulk copy family (decode_bulk.cpp): whether an opcode word split at its dots is one,
// and its decoding into Instruction::bulk.
bool is_bulk_form(const std::vector<std::string>& parts);
void decode_bulk(const std::vector<std::string>& parts, Instruction& inst);

// Video instructions: 1 for the scalar forms (vadd, vmad, vset ...), 2 or 4 for the SIMD forms
// (vadd2, vset4 ...), 0 for every other opcode.
unsigned video_lanes(Opcode op);

}  // namespace cnuas::ptx
