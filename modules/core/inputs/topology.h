// Routing over a platform's connections: shortest paths with a stable
// tie-break (the earlier-declared connection wins), one breadth-first search per
// source, cached, so that collectives over thousands of endpoints stay cheap.
// Equal-cost multipath: where a shortest route may cross any of several
// switches of one array (the spines of a leaf-spine fabric), each pair of ends
// takes the one a hash of their names picks (FNV-1a of "from>to", modulo the
// number of such switches), as ECMP spreads flows.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/inputs/platform.h"

namespace cnuas {

class Topology {
 public:
  explicit Topology(const PlatformDesc& platform);

  bool has(const std::string& element) const { return index_.count(element) != 0; }
  bool connected(const std::string& from, const std::string& to) const;
  // Element names from `from` to `to`, both included; throws InputError at `where` when none.
  std::vector<std::string> path(const std::string& from, const std::string& to,
                                const SourceLocation& where);
  // Instance names matching a pattern: "gpu[*]", "server[*].gpu[*]" or a plain name, in declaration
  // order.
  std::vector<std::string> expand(const std::string& pattern) const;
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint32_t> index_;
  struct Search {
    std::vector<std::int32_t> parent;  // first found; -1: unreachable
    std::vector<std::uint32_t> distance;
  };
  std::vector<std::vector<std::uint32_t>> next_;  // by connection order
  std::vector<std::vector<std::uint32_t>> prev_;  // by connection order
  std::vector<std::string> switch_array_;  // per element: "spine" for a switch spine[3], else ""
  std::unordered_map<std::uint32_t, Search> searches_;  // per BFS source
};

// Whether `name` matches `pattern`, where "[*]" matches any "[<digits>]".
bool matches_pattern(const std::string& pattern, const std::string& name);

}  // namespace cnuas
