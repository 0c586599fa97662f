#include "shared_layout.h"

#include <algorithm>
#include <map>

namespace cnuas::ptx {
namespace {

std::uint32_t align_to(std::uint32_t v, std::uint32_t a) {
  return a ? (v + a - 1) / a * a : v;
}

// An operand naming a module-region .shared variable (not dynamic shared
// memory, not a kernel's own region).
bool names_module_shared(const Operand& o) {
  const bool symbolic =
      o.kind == Operand::Kind::Symbol ||
      ((o.kind == Operand::Kind::Address || o.kind == Operand::Kind::Texture) && o.has_symbol);
  return symbolic && o.symbol_kind == SymbolKind::Shared && o.symbol >= 0 &&
         (o.symbol & kEntrySharedBit) == 0;
}

bool names_function(const Operand& o) {
  return o.kind == Operand::Kind::Symbol && o.symbol_kind == SymbolKind::Function;
}

// What one function's own code names.
struct Reach {
  std::vector<std::size_t> variables;  // positions in module_shared
  std::vector<std::size_t> functions;  // called or address taken
  bool indirect = false;               // calls through a pointer
  bool everything = false;             // names an offset no variable starts at
};

struct ModuleReach {
  std::vector<Reach> functions;
  // Where a call through a pointer may go: the functions whose address some
  // code or some variable's initializer takes.
  std::vector<std::size_t> address_taken;
};

ModuleReach direct_reach(const Module& m, const std::map<std::int64_t, std::size_t>& by_offset) {
  ModuleReach r;
  r.functions.resize(m.functions.size());
  for (std::size_t f = 0; f < m.functions.size(); ++f)
    for (const Instruction& inst : m.functions[f].code) {
      const bool call = inst.op == Opcode::call;
      if (call && inst.ops[1].kind == Operand::Kind::Reg) r.functions[f].indirect = true;
      for (const Operand& o : inst.ops) {
        if (names_function(o)) {
          const auto g = static_cast<std::size_t>(o.symbol);
          r.functions[f].functions.push_back(g);
          if (!call || &o != &inst.ops[1]) r.address_taken.push_back(g);
        }
        if (!names_module_shared(o)) continue;
        const auto v = by_offset.find(o.symbol);
        if (v == by_offset.end())
          r.functions[f].everything = true;
        else
          r.functions[f].variables.push_back(v->second);
      }
    }
  for (const Variable& v : m.variables)
    for (const auto& [offset, name] : v.address_init)
      if (const auto g = m.function_index.find(name); g != m.function_index.end())
        r.address_taken.push_back(g->second);
  return r;
}

// The variables a kernel's code can reach, through the functions it names.
std::vector<bool> kernel_reach(const ModuleReach& reach, std::size_t kernel,
                               std::size_t variables) {
  const std::size_t count = reach.functions.size();
  std::vector<bool> seen(count), uses(variables);
  std::vector<std::size_t> todo{kernel};
  seen[kernel] = true;
  bool pointers_followed = false;
  auto visit = [&](std::size_t f) {
    if (f < count && !seen[f]) {
      seen[f] = true;
      todo.push_back(f);
    }
  };
  while (!todo.empty()) {
    const Reach& r = reach.functions[todo.back()];
    todo.pop_back();
    if (r.everything) return std::vector<bool>(variables, true);
    for (std::size_t v : r.variables) uses[v] = true;
    for (std::size_t f : r.functions) visit(f);
    if (r.indirect && !pointers_followed) {
      pointers_followed = true;
      for (std::size_t f : reach.address_taken) visit(f);
    }
  }
  return uses;
}

}  // namespace

void lay_out_module_shared(Module& m, const std::vector<std::size_t>& module_shared,
                           std::uint32_t entry_align) {
  auto footprint = [&](Function& f, std::uint32_t module_bytes) {
    f.entry_shared_base = align_to(module_bytes, entry_align);
    f.static_shared_bytes =
        f.entry_shared_bytes > 0 ? f.entry_shared_base + f.entry_shared_bytes : module_bytes;
  };
  if (module_shared.empty()) {  // the common case: nothing to lay out
    for (Function& f : m.functions) footprint(f, 0);
    return;
  }
  std::map<std::int64_t, std::size_t> by_offset;  // the parser's offset -> position
  for (std::size_t i = 0; i < module_shared.size(); ++i)
    by_offset[m.variables[module_shared[i]].offset] = i;
  const ModuleReach reach = direct_reach(m, by_offset);
  std::vector<std::size_t> kernels;
  std::vector<std::vector<bool>> uses;
  for (std::size_t f = 0; f < m.functions.size(); ++f)
    if (m.functions[f].is_entry) {
      kernels.push_back(f);
      uses.push_back(kernel_reach(reach, f, module_shared.size()));
    }

  // In declaration order, each variable goes after the last one placed for
  // any kernel that reaches it: the parser's layout for a kernel reaching all.
  std::vector<std::uint32_t> kernel_end(kernels.size(), 0), offset(module_shared.size());
  std::uint32_t module_end = 0;
  for (std::size_t v = 0; v < module_shared.size(); ++v) {
    const Variable& var = m.variables[module_shared[v]];
    std::uint32_t start = 0;
    for (std::size_t k = 0; k < kernels.size(); ++k)
      if (uses[k][v]) start = std::max(start, kernel_end[k]);
    offset[v] = align_to(start, var.align);
    const std::uint32_t end = offset[v] + static_cast<std::uint32_t>(var.size);
    for (std::size_t k = 0; k < kernels.size(); ++k)
      if (uses[k][v]) kernel_end[k] = end;
    module_end = std::max(module_end, end);
  }

  for (Function& f : m.functions)
    for (Instruction& inst : f.code)
      for (Operand& o : inst.ops)
        if (names_module_shared(o))
          if (const auto v = by_offset.find(o.symbol); v != by_offset.end())
            o.symbol = offset[v->second];
  for (std::size_t v = 0; v < module_shared.size(); ++v)
    m.variables[module_shared[v]].offset = offset[v];

  for (Function& f : m.functions) footprint(f, module_end);
  for (std::size_t k = 0; k < kernels.size(); ++k)
    footprint(m.functions[kernels[k]], kernel_end[k]);
}

}  // namespace cnuas::ptx
