#include "core/inputs/topology.h"

#include <algorithm>
#include <cctype>
#include <deque>

#include <fmt/format.h>

namespace cnuas {

bool matches_pattern(const std::string& pattern, const std::string& name) {
  size_t p = 0, n = 0;
  while (p < pattern.size()) {
    if (pattern.compare(p, 3, "[*]") == 0) {
      if (n >= name.size() || name[n] != '[') return false;
      size_t digits = n + 1;
      while (digits < name.size() && std::isdigit(static_cast<unsigned char>(name[digits])))
        ++digits;
      if (digits == n + 1 || digits >= name.size() || name[digits] != ']') return false;
      n = digits + 1;
      p += 3;
    } else {
      if (n >= name.size() || pattern[p] != name[n]) return false;
      ++p;
      ++n;
    }
  }
  return n == name.size();
}

Topology::Topology(const PlatformDesc& platform) {
  for (const auto& e : platform.elements) {
    index_.emplace(e.name, static_cast<std::uint32_t>(names_.size()));
    names_.push_back(e.name);
  }
  next_.resize(names_.size());
  for (const auto& c : platform.connections) next_[index_.at(c.from)].push_back(index_.at(c.to));
}

bool Topology::connected(const std::string& from, const std::string& to) const {
  auto f = index_.find(from), t = index_.find(to);
  if (f == index_.end() || t == index_.end()) return false;
  const auto& n = next_[f->second];
  return std::find(n.begin(), n.end(), t->second) != n.end();
}

std::vector<std::string> Topology::path(const std::string& from, const std::string& to,
                                        const SourceLocation& where) {
  const std::uint32_t source = index_.at(from), target = index_.at(to);
  auto cached = parents_.find(source);
  if (cached == parents_.end()) {
    std::vector<std::int64_t> parent(names_.size(), -1);
    parent[source] = source;
    std::deque<std::uint32_t> queue{source};
    while (!queue.empty()) {
      const std::uint32_t at = queue.front();
      queue.pop_front();
      for (std::uint32_t n : next_[at])
        if (parent[n] < 0) {
          parent[n] = at;
          queue.push_back(n);
        }
    }
    cached = parents_.emplace(source, std::move(parent)).first;
  }
  const auto& parent = cached->second;
  if (parent[target] < 0)
    throw InputError(
        where, fmt::format("no path from '{}' to '{}' along the platform's connections", from, to));
  std::vector<std::string> out;
  for (std::uint32_t at = target;; at = static_cast<std::uint32_t>(parent[at])) {
    out.push_back(names_[at]);
    if (at == source) break;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<std::string> Topology::expand(const std::string& pattern) const {
  std::vector<std::string> out;
  if (pattern.find("[*]") == std::string::npos) {
    if (has(pattern)) out.push_back(pattern);
    return out;
  }
  for (const auto& n : names_)
    if (matches_pattern(pattern, n)) out.push_back(n);
  return out;
}

}  // namespace cnuas
