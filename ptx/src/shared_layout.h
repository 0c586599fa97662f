// Where a module's .shared variables declared outside any kernel (at module
// scope or in device functions, as nvcc emits a function-local static
// __shared__) live in each kernel's shared memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ptx/ir.h"

namespace cnuas::ptx {

// `module_shared`: those variables' indices in m.variables, in declaration
// order, with the offsets the parser gave them one after another. A kernel
// holds only the variables its code can reach (its own body and the functions
// it calls or takes the address of; after a call through a pointer, every
// function whose address the module takes), and variables no kernel reaches
// together share offsets, so a library module with one static __shared__
// buffer per kernel does not charge every kernel for all of them. A kernel
// reaching every variable keeps the parser's layout. Rewrites the
// instructions' offsets and sets each function's entry_shared_base (its own
// .shared after those, aligned to `entry_align`) and static_shared_bytes.
void lay_out_module_shared(Module& m, const std::vector<std::size_t>& module_shared,
                           std::uint32_t entry_align);

}  // namespace cnuas::ptx
