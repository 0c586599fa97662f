// Static stack sizes: the frames of a kernel and of the calls it makes
// directly, laid out as the executor lays them out (exec_state.h).
#include "ptx/stack.h"

#include <algorithm>
#include <vector>

#include "exec_state.h"

namespace cnuas::ptx {
namespace {

// A depth-first walk of the direct-call graph, each function's deepest stack
// (its frame plus its deepest callee's) computed once: a call to a function
// whose walk is still in progress is recursion and is not followed.
class Walk {
 public:
  explicit Walk(const Module& m) : m_(m), state_(m.functions.size(), kNew), depth_(state_.size()) {}

  std::uint32_t deepest(std::size_t index) {
    if (state_[index] == kDone) return depth_[index];
    state_[index] = kInProgress;
    const Function& f = m_.functions[index];
    std::uint32_t callees = 0;
    for (const Instruction& i : f.code) {
      if (i.op != Opcode::call || i.ops[1].kind != Operand::Kind::Symbol) continue;
      const auto callee = static_cast<std::size_t>(i.ops[1].symbol);
      if (callee >= m_.functions.size() || state_[callee] == kInProgress ||
          !m_.functions[callee].defined)
        continue;
      callees = std::max(callees, deepest(callee));
    }
    state_[index] = kDone;
    return depth_[index] = frame_bytes(f) + callees;
  }

 private:
  enum State : std::uint8_t { kNew, kInProgress, kDone };
  const Module& m_;
  std::vector<State> state_;
  std::vector<std::uint32_t> depth_;
};

}  // namespace

std::uint32_t static_stack_bytes(const Module& module, const Function& kernel) {
  const bool calls = std::any_of(kernel.code.begin(), kernel.code.end(),
                                 [](const Instruction& i) { return i.op == Opcode::call; });
  if (kernel.local_bytes == 0 && kernel.call_param_bytes == 0 && !calls) return 0;
  for (std::size_t i = 0; i < module.functions.size(); ++i)
    if (&module.functions[i] == &kernel) return Walk(module).deepest(i);
  return frame_bytes(kernel);  // not a function of `module`: its own frame only
}

}  // namespace cnuas::ptx
