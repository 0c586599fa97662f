#include "core/kernel/platform_module.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/inputs/profile.h"
#include "core/kernel/errors.h"

namespace cnuas {

// One level of the instance-name hierarchy: an element, or a group of them.
struct PlatformModule::Node {
  std::string name;
  const ElementInstance* element = nullptr;
  std::vector<std::unique_ptr<Node>> children;
  std::unordered_map<std::string, Node*> index;

  Node& child(const std::string& child_name) {
    auto it = index.find(child_name);
    if (it != index.end()) return *it->second;
    children.push_back(std::make_unique<Node>());
    children.back()->name = child_name;
    index.emplace(child_name, children.back().get());
    return *children.back();
  }
};

// A group builds its children while it is being constructed, which is how
// SystemC places them below it.
class PlatformModule::Group : public sc_core::sc_module {
 public:
  Group(sc_core::sc_module_name name, const Node& node, PlatformModule& owner) : sc_module(name) {
    owner.create(node);
  }
};

PlatformModule::PlatformModule(sc_core::sc_module_name name, const PlatformDesc& desc)
    : sc_module(name) {
  Node root;
  for (const ElementInstance& inst : desc.elements) {
    Node* at = &root;
    for (std::size_t start = 0;;) {
      const std::size_t dot = inst.name.find('.', start);
      at = &at->child(
          inst.name.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    at->element = &inst;
  }
  create(root);
  ports_.resize(elements_.size());
  in_bindings_.assign(elements_.size(), 0);
  for (const Connection& c : desc.connections) {
    const std::size_t from = by_name_.at(c.from), to = by_name_.at(c.to);
    // multi_passthrough sockets number their bindings in binding order.
    ports_[from].push_back({elements_[to], static_cast<std::uint32_t>(ports_[from].size())});
    ++in_bindings_[to];
    elements_[from]->out.bind(elements_[to]->in);
  }
  // Each element's neighbours: where its `out` bindings lead, in binding
  // order, and who sends to it, in connection order.
  std::vector<std::vector<const Element*>> targets(elements_.size()), senders(elements_.size());
  for (std::size_t e = 0; e < elements_.size(); ++e)
    for (const Port& p : ports_[e]) targets[e].push_back(p.target);
  for (const Connection& c : desc.connections) {
    std::vector<const Element*>& in = senders[by_name_.at(c.to)];
    const Element* from = elements_[by_name_.at(c.from)];
    if (std::find(in.begin(), in.end(), from) == in.end()) in.push_back(from);
  }
  for (std::size_t e = 0; e < elements_.size(); ++e)
    elements_[e]->set_neighbours(std::move(targets[e]), std::move(senders[e]));
}

PlatformModule::~PlatformModule() {
  // Elements before the groups that hold them; a group is created after its children.
  for (auto& m : owned_)
    if (dynamic_cast<Element*>(m.get()) != nullptr) m.reset();
  while (!owned_.empty()) owned_.pop_back();
}

void PlatformModule::create(const Node& node) {
  for (const auto& child : node.children) {
    if (child->element == nullptr) {
      owned_.push_back(std::make_unique<Group>(child->name.c_str(), *child, *this));
      continue;
    }
    const ElementInstance& inst = *child->element;
    const ModelInfo& model = Registry::instance().require(inst.type, inst.where);
    if (inst.params.schema() != model.schema)
      throw InternalError(
          fmt::format("element '{}' was not resolved before elaboration", inst.name));
    std::unique_ptr<Element> made = model.create(child->name, inst.params);
    Element* e = made.get();
    owned_.push_back(std::move(made));
    by_name_.emplace(inst.name, elements_.size());
    position_of_.emplace(e, elements_.size());
    elements_.push_back(e);
    if (!child->children.empty())
      throw InputError(inst.where,
                       fmt::format("'{}' is an element and also a group of elements", inst.name));
  }
}

Element& PlatformModule::element(const std::string& instance_name) const {
  return *elements_[by_name_.at(instance_name)];
}

const PlatformModule::Port& PlatformModule::port(const Element* from, const Element* to) const {
  for (const Port& p : ports_[position_of_.at(from)])
    if (p.target == to) return p;
  throw std::logic_error(fmt::format("no connection {} -> {}", from->name(), to->name()));
}

}  // namespace cnuas
