// Handlers for the frequent instruction forms. The generic path finds an
// instruction's group and form anew at every execution (the opcode switch,
// the group chain, the type and operand checks); for the forms of FastForm
// that choice depends on nothing but the decoded instruction, so the parser
// tags the instruction once and the warp loop calls the form's handler
// directly. Each handler runs exactly what the generic group runs for that
// form, so results, statistics and records are the same either way.
#pragma once

#include "ptx/ir.h"

namespace cnuas::ptx {

struct Ctx;
struct Gang;
using FastHandler = void (*)(Ctx&, const Instruction&);
// A form run for a gang of converged warps at once (lanes.h); false, having
// done nothing, when its operands are not the plain ones it handles.
using GangHandler = bool (*)(const Gang&, const Instruction&);

// The form of `i` (fast_forms.cpp, part of decoding: no engine code).
FastForm fast_form(const Instruction& i);

// The handler of a form, from the group that owns it; null for another group's.
FastHandler integer_fast_handler(FastForm f);  // ops_integer.cpp
FastHandler memory_fast_handler(FastForm f);   // ops_memory.cpp
FastHandler float_fast_handler(FastForm f);    // ops_float.cpp
FastHandler convert_fast_handler(FastForm f);  // ops_convert.cpp
// The gang handler of a form; null for forms that have none.
GangHandler integer_gang_handler(FastForm f);  // ops_integer.cpp
GangHandler memory_gang_handler(FastForm f);   // ops_memory.cpp
GangHandler float_gang_handler(FastForm f);    // ops_float.cpp
GangHandler convert_gang_handler(FastForm f);  // ops_convert.cpp

}  // namespace cnuas::ptx
