// The platform as SystemC modules: every element, bound by its connections.
//
// Hierarchical instance names ("server[0].gpu[3]") become nested sc_modules, so
// the element's sc_object name is "<platform>.server[0].gpu[3]".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/inputs/platform.h"
#include "core/kernel/element.h"

namespace cnuas {

class PlatformModule : public sc_core::sc_module {
 public:
  PlatformModule(sc_core::sc_module_name name, const PlatformDesc& desc);
  ~PlatformModule() override;

  Element& element(const std::string& instance_name) const;
  const std::vector<Element*>& elements() const { return elements_; }
  // Binding of from.out leading to `to`.
  std::uint32_t out_port(const Element* from, const Element* to) const {
    return port(from, to).out;
  }
  // Binding of e.in the workload driver uses (the driver binds after all connections).
  std::uint32_t driver_in_port(const Element* e) const { return in_bindings_[position_of_.at(e)]; }

 private:
  struct Port {
    const Element* target;
    std::uint32_t out;
  };
  struct Node;
  class Group;
  void create(const Node& node);
  const Port& port(const Element* from, const Element* to) const;

  std::vector<Element*> elements_;
  std::vector<std::unique_ptr<sc_core::sc_module>> owned_;
  std::unordered_map<std::string, std::size_t> by_name_;
  std::unordered_map<const Element*, std::size_t> position_of_;
  std::vector<std::vector<Port>> ports_;
  std::vector<std::uint32_t> in_bindings_;
};

}  // namespace cnuas
