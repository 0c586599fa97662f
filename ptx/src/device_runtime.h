// Calls into the CUDA device runtime (dynamic parallelism): kernels launching
// kernels, device-side streams, events, errors, malloc and copies.
#pragma once

#include "exec_state.h"

namespace cnuas::ptx {

// Runs the device runtime function `callee` names for the active lanes, in
// lane order; false when `callee` is no device runtime function.
bool call_device_runtime(Ctx& c, const Instruction& call, const Function& callee);

}  // namespace cnuas::ptx
