// The per-thread stack a kernel needs, as the driver sizes it at launch.
#pragma once

#include <cstdint>

#include "ptx/ir.h"

namespace cnuas::ptx {

// Bytes of stack per thread a launch of `kernel` needs without recursion:
// the kernel's own frame (its .local variables and call parameters) plus the
// deepest chain of frames its direct calls reach. A call through a function
// pointer and a recursive call are not followed (the stack-size limit covers
// those, as ptxas cannot bound them either). 0 for a kernel that uses no
// stack at all.
std::uint32_t static_stack_bytes(const Module& module, const Function& kernel);

}  // namespace cnuas::ptx
