// `cnuas debug instrument`: a captured kernel's PTX with a store of every
// register write to a global log buffer after the instruction that made it,
// and a standalone CUDA program (driver API) that replays the captured launch
// with that PTX and writes the log in the format of `cnuas debug trace`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "capture.h"
#include "ptx/ir.h"

namespace cnuas::debugger {

// One logged register write of the source: the record's site index is its
// position in the list.
struct LogSite {
  std::uint32_t line = 0;
  std::string reg;
  std::uint64_t mask = 0;  // bits of the register the log keeps
  std::string text;
};

struct InstrumentedModule {
  std::string ptx;
  std::vector<LogSite> sites;
};

// Every defined function of `module` (parsed from `text`) instrumented.
// Throws InputError for a register type the log cannot store.
InstrumentedModule instrument_ptx(const std::string& text, const ptx::Module& module);

// The host program's source; it reads instrumented.ptx and inputs.bin from the
// directory given as its first argument and writes the log to its second.
std::string replay_program(const Capture& c, const std::vector<LogSite>& sites,
                           std::uint64_t log_capacity);

// inputs.bin: the parameter buffer, the buffers and the variables' contents.
void write_program_inputs(const Capture& c, const std::string& path);

}  // namespace cnuas::debugger
