// Calls to functions the module declares but does not define: the device
// runtime's vprintf, malloc and free, __assertfail (a failed device assert)
// and cudaGraphSetConditional (a conditional graph node's condition).
#pragma once

#include <ostream>

#include "exec_state.h"

namespace cnuas::ptx {

// Runs the builtin for the active lanes, in lane order; faults for any other
// undefined function.
void call_builtin(Ctx& c, const Instruction& call, const Function& callee, std::ostream& out);

}  // namespace cnuas::ptx
