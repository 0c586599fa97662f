// Control flow of a function: basic blocks, immediate post-dominators, and the
// reconvergence pc of every branch (where a diverged warp joins again).
#pragma once

#include "ptx/ir.h"

namespace cnuas::ptx {

// Sets Instruction::reconverge on every bra/brx: the first pc of the branch
// block's immediate post-dominator, or code.size() when paths only meet at exit.
void compute_reconvergence(Function& f);

}  // namespace cnuas::ptx
