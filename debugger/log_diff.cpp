#include "log_diff.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "core/kernel/errors.h"

namespace cnuas::debugger {
namespace {

struct Entry {
  std::string where;  // "cta=(..) tid=(..)"
  std::uint32_t line = 0;
  std::string reg, value, text;
};

using Log = std::map<std::uint64_t, std::vector<Entry>>;

// "T cta=(x,y,z) tid=(x,y,z) line=L REG=0xV | TEXT"
Log read_log(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("cannot open the log '{}'", path));
  Log log;
  std::string s;
  int number = 0;
  bool header = false;
  while (std::getline(in, s)) {
    ++number;
    if (s.rfind("# cnuas register-write log", 0) == 0) {
      header = true;
      continue;
    }
    if (s.empty() || s[0] == '#') continue;
    const auto bad = [&](const char* why) {
      return InputError(SourceLocation{path, number, 1},
                        fmt::format("not a register-write line ({}); expected 'THREAD "
                                    "cta=(x,y,z) tid=(x,y,z) line=N REG=0xVALUE | TEXT'",
                                    why));
    };
    const std::size_t bar = s.find(" | ");
    if (bar == std::string::npos) throw bad("no ' | '");
    Entry e;
    e.text = s.substr(bar + 3);
    const std::string head = s.substr(0, bar);
    std::vector<std::string> parts;
    for (std::size_t at = 0; at < head.size();) {
      const std::size_t sp = head.find(' ', at);
      parts.push_back(head.substr(at, sp == std::string::npos ? sp : sp - at));
      if (sp == std::string::npos) break;
      at = sp + 1;
    }
    if (parts.size() != 5 || parts[3].rfind("line=", 0) != 0) throw bad("wrong fields");
    std::uint64_t thread = 0;
    try {
      std::size_t used = 0;
      thread = std::stoull(parts[0], &used);
      if (used != parts[0].size()) throw bad("thread index");
      e.line = static_cast<std::uint32_t>(std::stoul(parts[3].substr(5)));
    } catch (const std::logic_error&) {
      throw bad("a number");
    }
    const std::size_t eq = parts[4].find("=0x");
    if (eq == std::string::npos) throw bad("no REG=0xVALUE");
    e.where = parts[1] + " " + parts[2];
    e.reg = parts[4].substr(0, eq);
    e.value = parts[4].substr(eq + 1);
    log[thread].push_back(std::move(e));
  }
  if (!header)
    throw InputError(fmt::format(
        "{}: not a register-write log (no '# cnuas register-write log' header); `cnuas debug "
        "trace` and the instrumented program write them",
        path));
  return log;
}

}  // namespace

DiffSummary diff_logs(const std::string& path_a, const std::string& path_b, std::ostream& out) {
  const Log a = read_log(path_a), b = read_log(path_b);
  DiffSummary sum;
  std::map<std::pair<std::uint32_t, std::string>, std::uint64_t> first_lines;  // A's line, text
  for (const auto& [thread, writes_a] : a) {
    const auto other = b.find(thread);
    if (other == b.end()) {
      ++sum.only_one;
      continue;
    }
    ++sum.compared;
    const std::vector<Entry>& writes_b = other->second;
    const std::size_t n = std::min(writes_a.size(), writes_b.size());
    std::size_t k = 0;
    while (k < n && writes_a[k].line == writes_b[k].line && writes_a[k].reg == writes_b[k].reg &&
           writes_a[k].value == writes_b[k].value)
      ++k;
    if (k == n && writes_a.size() == writes_b.size()) continue;
    ++sum.diverging;
    if (k == n) {
      const bool a_longer = writes_a.size() > writes_b.size();
      const Entry& e = a_longer ? writes_a[k] : writes_b[k];
      out << fmt::format("thread {} {}: write {}: only {} goes on: PTX line {} '{}' {}={}\n",
                         thread, e.where, k + 1, a_longer ? "A" : "B", e.line, e.text, e.reg,
                         e.value);
      continue;
    }
    const Entry& x = writes_a[k];
    const Entry& y = writes_b[k];
    ++first_lines[{x.line, x.text}];
    if (x.line == y.line && x.reg == y.reg)
      out << fmt::format("thread {} {}: write {}: PTX line {} '{}': {} A={} B={}\n", thread,
                         x.where, k + 1, x.line, x.text, x.reg, x.value, y.value);
    else
      out << fmt::format(
          "thread {} {}: write {}: A: PTX line {} '{}' {}={}; B: PTX line {} "
          "'{}' {}={}\n",
          thread, x.where, k + 1, x.line, x.text, x.reg, x.value, y.line, y.text, y.reg, y.value);
  }
  for (const auto& [thread, writes] : b)
    if (!a.count(thread)) ++sum.only_one;
  // Where the threads go wrong first, in one place: the line to look at.
  for (const auto& [line, count] : first_lines)
    out << fmt::format("first divergence at PTX line {} '{}': {} threads\n", line.first,
                       line.second, count);
  out << fmt::format("{} threads compared, {} diverge", sum.compared, sum.diverging);
  if (sum.only_one) out << fmt::format(", {} in one log only", sum.only_one);
  out << "\n";
  return sum;
}

}  // namespace cnuas::debugger
