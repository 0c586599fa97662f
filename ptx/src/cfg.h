// Control flow of a function: basic blocks, immediate post-dominators, and the
// reconvergence pc of every branch (where a diverged warp joins again).
#pragma once

#include "ptx/ir.h"

#include <cstdint>
#include <vector>

namespace cnuas::ptx {

// The basic blocks of a function: block b holds pcs [start[b], start[b + 1]);
// the last block is a virtual exit at pc code.size(); succ[b] are the blocks
// control can pass to from b (a guarded branch or return also falls through).
struct BlockGraph {
  std::vector<std::uint32_t> start;
  std::vector<std::uint32_t> block_of;  // by pc, 0..code.size()
  std::vector<std::vector<std::uint32_t>> succ;
};
BlockGraph block_graph(const Function& f);

// Sets Instruction::reconverge on every bra/brx: the first pc of the branch
// block's immediate post-dominator, or code.size() when paths only meet at exit.
void compute_reconvergence(Function& f);

}  // namespace cnuas::ptx
