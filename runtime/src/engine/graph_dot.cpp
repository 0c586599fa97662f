// cudaGraphDebugDotPrint: a graph in Graphviz DOT, one box per node labelled
// with its type and what it does, child graphs and conditional bodies as
// clusters inside their node's cluster.
#include <fstream>

#include <fmt/format.h>

#include "engine/graph.h"
#include "engine/graph_memory.h"

namespace cnuas::cuda {
namespace {

constexpr unsigned kVerbose = 1u << 0, kHandles = 1u << 10;

std::string label(const GraphNode& n, unsigned flags) {
  const NodeSpec& s = n.spec;
  std::string text = fmt::format("{}: {}", n.id, node_type_name(s.type));
  switch (s.type) {
    case NodeType::Kernel:
      text += fmt::format("\\n{}\\ngrid ({},{},{}) block ({},{},{}) shared {}", s.kernel->name,
                          s.launch.grid.x, s.launch.grid.y, s.launch.grid.z, s.launch.block.x,
                          s.launch.block.y, s.launch.block.z, s.launch.shared);
      break;
    case NodeType::Memcpy: {
      std::size_t bytes = 0;
      for (const Runtime::Copy& c : s.copies) bytes += c.width * c.height;
      text += fmt::format("\\n{} bytes, kind {}", bytes, s.copies.front().kind);
      if (flags & kVerbose)
        text += fmt::format("\\ndst {} src {}", s.copies.front().dst, s.copies.front().src);
      break;
    }
    case NodeType::Memset:
      text += fmt::format("\\n{} x {} elements of {} bytes = {:#x}", s.memset.width,
                          s.memset.height, s.memset.element_bytes, s.memset.value);
      break;
    case NodeType::Host:
      text += fmt::format("\\nfn {} data {}", reinterpret_cast<const void*>(s.fn), s.user_data);
      break;
    case NodeType::WaitEvent:
    case NodeType::EventRecord:
      text += fmt::format("\\nevent {}", static_cast<const void*>(s.event));
      break;
    case NodeType::MemAlloc:
      text += fmt::format("\\n{} bytes at {:#x}", s.allocation->bytes, s.allocation->base);
      break;
    case NodeType::MemFree:
      text += fmt::format("\\n{}", s.free_ptr);
      break;
    case NodeType::Conditional: {
      static const char* const kinds[] = {"IF", "WHILE", "SWITCH"};
      text += fmt::format("\\n{} handle {:#x} default {}", kinds[static_cast<int>(s.conditional)],
                          s.condition->address, s.condition->default_value);
      break;
    }
    default:
      break;
  }
  if (!n.enabled) text += "\\n(disabled)";
  if (flags & kHandles) text += fmt::format("\\nnode {}", static_cast<const void*>(&n));
  return text;
}

void write_graph(std::ostream& out, const Graph& g, const std::string& prefix, unsigned flags,
                 int depth) {
  const std::string indent(static_cast<std::size_t>(2 * depth), ' ');
  auto name = [&](const GraphNode* n) { return fmt::format("{}n{}", prefix, n->id); };
  for (const auto& n : g.nodes) {
    out << indent << name(n.get()) << " [shape=box label=\"" << label(*n, flags) << "\"];\n";
    for (std::size_t b = 0; b < n->children.size(); ++b) {
      const std::string inner = fmt::format("{}n{}_{}_", prefix, n->id, b);
      out << indent << "subgraph cluster_" << inner << " {\n"
          << indent << "  label=\""
          << (n->spec.type == NodeType::Graph ? std::string("child graph of ")
                                              : fmt::format("body {} of ", b))
          << n->id << "\";\n";
      write_graph(out, *n->children[b], inner, flags, depth + 1);
      out << indent << "}\n";
    }
  }
  for (const auto& n : g.nodes)
    for (const GraphNode* d : n->deps) out << indent << name(d) << " -> " << name(n.get()) << ";\n";
}

}  // namespace

bool write_dot(const Graph& g, const std::string& path, unsigned flags) {
  std::ofstream out(path);
  if (!out) return false;
  out << "digraph cuda_graph {\n  compound=true;\n";
  write_graph(out, g, "", flags, 1);
  out << "}\n";
  return static_cast<bool>(out);
}

}  // namespace cnuas::cuda
