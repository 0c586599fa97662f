// Which registers of a kernel a thread may read before it wrote them. A grid
// reuses one CTA's register storage for the next CTA (reallocating per CTA
// dominated small kernels); only these registers must be zeroed again for the
// next CTA to see what a fresh one would (all zeros), so the rest are left
// as the previous CTA wrote them, never to be read.
#pragma once

#include <cstdint>
#include <vector>

#include "ptx/ir.h"

namespace cnuas::ptx {

// A forward "definitely written" analysis over the basic blocks: a register
// counts as written once an unguarded instruction whose destination is written
// for every active lane (arithmetic, conversions, moves, loads) wrote it on
// every path from the entry. Every register another lane may read (shuffles,
// votes, matrix instructions, calls) is listed whatever the paths.
std::vector<std::uint32_t> registers_read_before_written(const Function& f);

}  // namespace cnuas::ptx
