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
  prev_.resize(names_.size());
  for (const auto& c : platform.connections) {
    next_[index_.at(c.from)].push_back(index_.at(c.to));
    prev_[index_.at(c.to)].push_back(index_.at(c.from));
  }
  // Switches that are instances of one array ("spine[3]" -> "spine"): ECMP candidates.
  switch_array_.resize(names_.size());
  for (const auto& e : platform.elements) {
    if (e.type != "cnuas.switch" || e.name.empty() || e.name.back() != ']') continue;
    switch_array_[index_.at(e.name)] = e.name.substr(0, e.name.rfind('['));
  }
}

static std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
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
  auto cached = searches_.find(source);
  if (cached == searches_.end()) {
    Search search{std::vector<std::int32_t>(names_.size(), -1),
                  std::vector<std::uint32_t>(names_.size(), 0)};
    search.parent[source] = static_cast<std::int32_t>(source);
    std::deque<std::uint32_t> queue{source};
    while (!queue.empty()) {
      const std::uint32_t at = queue.front();
      queue.pop_front();
      for (std::uint32_t n : next_[at])
        if (search.parent[n] < 0) {
          search.parent[n] = static_cast<std::int32_t>(at);
          search.distance[n] = search.distance[at] + 1;
          queue.push_back(n);
        }
    }
    cached = searches_.emplace(source, std::move(search)).first;
  }
  const Search& search = cached->second;
  if (search.parent[target] < 0)
    throw InputError(
        where, fmt::format("no path from '{}' to '{}' along the platform's connections", from, to));
  std::vector<std::string> out;
  const std::uint64_t flow = fnv1a(from + ">" + to);
  for (std::uint32_t at = target;;) {
    out.push_back(names_[at]);
    if (at == source) break;
    std::uint32_t before = static_cast<std::uint32_t>(search.parent[at]);
    if (!switch_array_[before].empty()) {
      // The switches of that array one hop closer to the source: one per flow.
      std::vector<std::uint32_t> equal;
      for (std::uint32_t p : prev_[at])
        if (search.parent[p] >= 0 && search.distance[p] + 1 == search.distance[at] &&
            switch_array_[p] == switch_array_[before])
          equal.push_back(p);
      if (equal.size() > 1) before = equal[flow % equal.size()];
    }
    at = before;
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
