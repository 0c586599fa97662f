// Static stack sizes: the frames of a kernel and of the calls it makes
// directly, laid out as the executor lays them out (exec_state.h).
#include "ptx/stack.h"

#include <algorithm>
#include <vector>

#include "exec_state.h"

namespace cnuas::ptx {
namespace {

// The deepest stack a call of `f` reaches below its caller's frame; the
// functions on the current chain are marked so that recursion ends the walk.
std::uint32_t deepest(const Module& m, const Function& f, std::vector<bool>& on_chain) {
  std::uint32_t callees = 0;
  for (const Instruction& i : f.code) {
    if (i.op != Opcode::call || i.ops[1].kind != Operand::Kind::Symbol) continue;
    const auto index = static_cast<std::size_t>(i.ops[1].symbol);
    if (index >= m.functions.size() || on_chain[index] || !m.functions[index].defined) continue;
    on_chain[index] = true;
    callees = std::max(callees, deepest(m, m.functions[index], on_chain));
    on_chain[index] = false;
  }
  return frame_bytes(f) + callees;
}

}  // namespace

std::uint32_t static_stack_bytes(const Module& module, const Function& kernel) {
  const bool calls = std::any_of(kernel.code.begin(), kernel.code.end(),
                                 [](const Instruction& i) { return i.op == Opcode::call; });
  if (kernel.local_bytes == 0 && kernel.call_param_bytes == 0 && !calls) return 0;
  std::vector<bool> on_chain(module.functions.size(), false);
  for (std::size_t i = 0; i < module.functions.size(); ++i)
    if (&module.functions[i] == &kernel) on_chain[i] = true;
  return deepest(module, kernel, on_chain);
}

}  // namespace cnuas::ptx
