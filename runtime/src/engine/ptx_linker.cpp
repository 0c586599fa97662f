#include "engine/ptx_linker.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>

#include <fmt/format.h>

namespace cnuas::cuda {
namespace {

// ---- tokens: just enough of PTX's lexical rules to find statements and names ----

struct Tok {
  enum class Kind { Ident, Number, String, Punct } kind;
  std::size_t begin, end;
  unsigned line;
};

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' ||
         c == '.';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}

std::vector<Tok> scan(const std::string& s, const std::string& unit) {
  std::vector<Tok> out;
  unsigned line = 1;
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c)) || c == '\0') {
      ++i;
    } else if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      const std::size_t e = s.find("*/", i + 2);
      if (e == std::string::npos)
        throw PtxLinkError(fmt::format("{}:{}: unterminated /* comment", unit, line));
      line += static_cast<unsigned>(
          std::count(s.begin() + static_cast<long>(i), s.begin() + static_cast<long>(e), '\n'));
      i = e + 2;
    } else if (c == '"') {
      std::size_t j = i + 1;
      while (j < n && s[j] != '"' && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
      if (j >= n || s[j] != '"')
        throw PtxLinkError(fmt::format("{}:{}: unterminated string", unit, line));
      out.push_back({Tok::Kind::String, i, j + 1, line});
      i = j + 1;
    } else if (ident_start(c)) {
      std::size_t j = i + 1;
      while (j < n && (ident_char(s[j]) ||
                       (s[j] == ':' && j + 2 < n && s[j + 1] == ':' && ident_char(s[j + 2]))))
        j += s[j] == ':' ? 2 : 1;
      out.push_back({Tok::Kind::Ident, i, j, line});
      i = j;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i + 1;
      while (j < n && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '.' ||
                       ((s[j] == '+' || s[j] == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E'))))
        ++j;
      out.push_back({Tok::Kind::Number, i, j, line});
      i = j;
    } else {
      out.push_back({Tok::Kind::Punct, i, i + 1, line});
      ++i;
    }
  }
  return out;
}

// ---- module-scope statements ----

enum class Linkage { None, Visible, Extern, Weak, Common };
enum class StatementKind { Version, Target, AddressSize, Dropped, Variable, Function, Other };

struct Statement {
  StatementKind kind = StatementKind::Other;
  std::size_t first = 0, last = 0;  // token range, inclusive
  Linkage linkage = Linkage::None;
  bool entry = false;
  bool defined = false;            // a function body, or a variable that is not .extern
  bool dynamic_shared = false;     // .extern .shared NAME[]
  std::size_t body = 0;            // the token of a function body's '{'
  std::size_t space = 0;           // a variable's state space token (after its linkage)
  std::vector<std::string> names;  // declared symbols
  enum class Fate { Keep, Prototype, Drop } fate = Fate::Keep;
};

struct Unit {
  const PtxUnit* source;
  std::vector<Tok> toks;
  std::vector<Statement> statements;
  std::map<std::string, std::string> renamed;  // private names clashing with another unit's
  std::string text(const Tok& t) const { return source->text.substr(t.begin, t.end - t.begin); }
  bool is(std::size_t i, const char* w) const {
    const Tok& t = toks[i];
    return t.end - t.begin == std::strlen(w) &&
           source->text.compare(t.begin, t.end - t.begin, w) == 0;
  }
};

bool is_space_word(const std::string& w) {
  return w == ".global" || w == ".const" || w == ".shared" || w == ".tex" || w == ".texref" ||
         w == ".surfref" || w == ".samplerref";
}

// The index of the token closing the bracket opened at `open`.
std::size_t matching(const Unit& u, std::size_t open) {
  int depth = 0;
  for (std::size_t j = open; j < u.toks.size(); ++j) {
    if (u.toks[j].kind != Tok::Kind::Punct) continue;
    const char c = u.source->text[u.toks[j].begin];
    if (c == '(' || c == '[' || c == '{') ++depth;
    if ((c == ')' || c == ']' || c == '}') && --depth == 0) return j;
  }
  throw PtxLinkError(fmt::format("{}:{}: unbalanced bracket", u.source->name, u.toks[open].line));
}

bool punct(const Unit& u, std::size_t i, char c) {
  return i < u.toks.size() && u.toks[i].kind == Tok::Kind::Punct &&
         u.source->text[u.toks[i].begin] == c;
}

void classify(Unit& u, Statement& st) {
  std::size_t i = st.first;
  for (;; ++i) {
    if (u.is(i, ".visible")) {
      st.linkage = Linkage::Visible;
    } else if (u.is(i, ".extern")) {
      st.linkage = Linkage::Extern;
    } else if (u.is(i, ".weak")) {
      st.linkage = Linkage::Weak;
    } else if (u.is(i, ".common")) {
      st.linkage = Linkage::Common;
    } else {
      break;
    }
  }
  const std::string word = u.text(u.toks[i]);
  if (word == ".entry" || word == ".func") {
    st.kind = StatementKind::Function;
    st.entry = word == ".entry";
    std::size_t j = i + 1;
    if (punct(u, j, '(')) j = matching(u, j) + 1;  // return parameters
    if (j > st.last || u.toks[j].kind != Tok::Kind::Ident)
      throw PtxLinkError(
          fmt::format("{}:{}: a function without a name", u.source->name, u.toks[i].line));
    st.names.push_back(u.text(u.toks[j]));
    st.defined = punct(u, st.last, '}');
    for (std::size_t k = j; st.defined && k <= st.last; ++k) {
      if (punct(u, k, '(')) {
        k = matching(u, k);
      } else if (punct(u, k, '{')) {
        st.body = k;
        break;
      }
    }
    return;
  }
  if (!is_space_word(word)) return;  // .pragma and the like stay where they are
  st.space = i;
  st.kind = StatementKind::Variable;
  st.defined = st.linkage != Linkage::Extern;
  std::size_t j = i + 1;
  auto skip_qualifiers = [&] {
    while (j <= st.last) {
      const Tok& t = u.toks[j];
      if (t.kind == Tok::Kind::Number) {
        ++j;
      } else if (t.kind == Tok::Kind::Ident && u.source->text[t.begin] == '.') {
        ++j;
        if (punct(u, j, '(')) j = matching(u, j) + 1;  // .attribute(.managed)
      } else {
        break;
      }
    }
  };
  skip_qualifiers();
  // Declarators: NAME [dims] [= init] {, NAME ...}
  while (j <= st.last && u.toks[j].kind == Tok::Kind::Ident) {
    st.names.push_back(u.text(u.toks[j]));
    ++j;
    bool unsized = false;
    while (punct(u, j, '[')) {
      unsized = unsized || punct(u, j + 1, ']');
      j = matching(u, j) + 1;
    }
    if (unsized && word == ".shared" && st.linkage == Linkage::Extern) st.dynamic_shared = true;
    while (j <= st.last && !punct(u, j, ',') && !punct(u, j, ';'))
      j = punct(u, j, '{') || punct(u, j, '(') ? matching(u, j) + 1 : j + 1;
    if (!punct(u, j, ',')) break;
    ++j;
  }
}

void split(Unit& u) {
  const std::size_t n = u.toks.size();
  std::size_t i = 0;
  while (i < n) {
    Statement st;
    st.first = i;
    const std::string word = u.text(u.toks[i]);
    if (word == ".version" || word == ".target" || word == ".address_size" || word == ".file") {
      std::size_t j = i;
      while (j + 1 < n && u.toks[j + 1].line == u.toks[i].line) ++j;
      st.last = j;
      st.kind = word == ".version"        ? StatementKind::Version
                : word == ".target"       ? StatementKind::Target
                : word == ".address_size" ? StatementKind::AddressSize
                                          : StatementKind::Dropped;  // debug file table
    } else if (word == ".section") {  // debug sections: nothing the engine reads
      std::size_t j = i;
      while (j < n && !punct(u, j, '{')) ++j;
      st.last = j < n ? matching(u, j) : n - 1;
      st.kind = StatementKind::Dropped;
    } else {
      bool function = false;
      std::size_t j = i;
      for (; j < n; ++j) {
        if (u.is(j, ".entry") || u.is(j, ".func")) function = true;
        if (punct(u, j, '(') || punct(u, j, '[')) {
          j = matching(u, j);
        } else if (punct(u, j, '{')) {
          j = matching(u, j);
          if (function) break;  // a function body ends the definition
        } else if (punct(u, j, ';')) {
          break;
        }
      }
      if (j >= n)
        throw PtxLinkError(fmt::format("{}:{}: the statement starting here has no end",
                                       u.source->name, u.toks[i].line));
      st.last = j;
      classify(u, st);
    }
    u.statements.push_back(std::move(st));
    i = u.statements.back().last + 1;
  }
}

// ---- versions and targets ----

std::pair<int, int> version_of(const std::string& v) {
  int major = 0, minor = 0;
  std::sscanf(v.c_str(), "%d.%d", &major, &minor);
  return {major, minor};
}

int target_number(const std::string& t) {
  const std::size_t us = t.find('_');
  return us == std::string::npos ? 0 : std::atoi(t.c_str() + us + 1);
}

// ---- symbol resolution ----

struct Declaration {
  std::size_t unit, statement;
};

std::string describe(const std::vector<Unit>& units, const Declaration& d) {
  const Unit& u = units[d.unit];
  const bool ambiguous = std::count_if(units.begin(), units.end(), [&](const Unit& other) {
                           return other.source->name == u.source->name;
                         }) > 1;
  return fmt::format("{}:{}{}", u.source->name, u.toks[u.statements[d.statement].first].line,
                     ambiguous ? fmt::format(" (input {})", d.unit + 1) : "");
}

// Whether `name` occurs in unit u outside the statements that declare it.
bool referenced(const Unit& u, const std::string& name) {
  std::vector<bool> declaring(u.toks.size(), false);
  for (const Statement& st : u.statements)
    if (std::find(st.names.begin(), st.names.end(), name) != st.names.end() && !st.defined)
      for (std::size_t k = st.first; k <= st.last; ++k) declaring[k] = true;
  for (std::size_t k = 0; k < u.toks.size(); ++k)
    if (!declaring[k] && u.toks[k].kind == Tok::Kind::Ident && u.text(u.toks[k]) == name)
      return true;
  return false;
}

// Text of tokens [first, last] with the unit's private renames applied.
std::string emit(const Unit& u, std::size_t first, std::size_t last) {
  std::string out;
  std::size_t at = u.toks[first].begin;
  for (std::size_t k = first; k <= last; ++k) {
    const Tok& t = u.toks[k];
    if (t.kind != Tok::Kind::Ident || u.renamed.empty()) continue;
    auto r = u.renamed.find(u.text(t));
    if (r == u.renamed.end()) continue;
    out.append(u.source->text, at, t.begin - at);
    out += r->second;
    at = t.end;
  }
  out.append(u.source->text, at, u.toks[last].end - at);
  return out;
}

// Whether unit u defines `name` for other units.
bool defines(const Unit& u, const std::string& name) {
  for (const Statement& st : u.statements)
    if (st.defined && (st.linkage != Linkage::None || st.entry) &&
        std::find(st.names.begin(), st.names.end(), name) != st.names.end())
      return true;
  return false;
}

// The units that are not library members, and the library members that
// define what those refer to and nothing else defines, transitively.
std::vector<Unit> with_needed_library_members(std::vector<Unit> all) {
  std::vector<bool> in(all.size());
  for (std::size_t i = 0; i < all.size(); ++i) in[i] = !all[i].source->from_library;
  for (bool grew = true; grew;) {
    grew = false;
    std::set<std::string> wanted;
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (!in[i]) continue;
      for (const Statement& st : all[i].statements)
        if (!st.defined && st.linkage == Linkage::Extern)
          for (const std::string& n : st.names) wanted.insert(n);
    }
    for (std::size_t i = 0; i < all.size(); ++i)
      if (in[i])
        for (auto w = wanted.begin(); w != wanted.end();)
          w = defines(all[i], *w) ? wanted.erase(w) : std::next(w);
    for (std::size_t i = 0; i < all.size() && !wanted.empty(); ++i)
      if (!in[i] && std::any_of(wanted.begin(), wanted.end(),
                                [&](const std::string& n) { return defines(all[i], n); }))
        in[i] = grew = true;
  }
  std::vector<Unit> kept;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (in[i]) kept.push_back(std::move(all[i]));
  return kept;
}

}  // namespace

std::string link_ptx(const std::vector<PtxUnit>& sources,
                     const std::function<bool(const std::string&)>& is_builtin) {
  if (sources.empty()) throw PtxLinkError("nothing to link: no PTX was added");
  std::vector<Unit> units;
  units.reserve(sources.size());
  for (const PtxUnit& s : sources) {
    Unit u;
    u.source = &s;
    u.toks = scan(s.text, s.name);
    split(u);
    units.push_back(std::move(u));
  }
  units = with_needed_library_members(std::move(units));
  if (units.empty()) throw PtxLinkError("nothing to link: only library members were added");

  // Header: the newest version and target, one address size.
  std::string version = "0.0", target, address_size;
  for (const Unit& u : units)
    for (const Statement& st : u.statements) {
      if (st.first == st.last) continue;
      const std::string value = u.text(u.toks[st.first + 1]);
      if (st.kind == StatementKind::Version && version_of(value) > version_of(version))
        version = value;
      if (st.kind == StatementKind::Target &&
          (target.empty() || target_number(value) > target_number(target)))
        target = emit(u, st.first + 1, st.last);
      if (st.kind == StatementKind::AddressSize) {
        if (!address_size.empty() && address_size != value)
          throw PtxLinkError(fmt::format(
              "{} declares .address_size {}, another unit {}: one program has one address size",
              u.source->name, value, address_size));
        address_size = value;
      }
    }
  if (target.empty()) throw PtxLinkError(fmt::format("{} has no .target", units[0].source->name));

  // Every module-scope name, and where it is declared.
  std::map<std::string, std::vector<Declaration>> global, all;
  for (std::size_t ui = 0; ui < units.size(); ++ui)
    for (std::size_t si = 0; si < units[ui].statements.size(); ++si) {
      const Statement& st = units[ui].statements[si];
      for (const std::string& name : st.names) {
        all[name].push_back({ui, si});
        if (st.linkage != Linkage::None || st.entry) global[name].push_back({ui, si});
      }
    }

  // Private names another unit also uses are renamed in their unit.
  for (std::size_t ui = 0; ui < units.size(); ++ui)
    for (const Statement& st : units[ui].statements) {
      if (st.linkage != Linkage::None || st.entry) continue;
      for (const std::string& name : st.names) {
        const auto& decls = all[name];
        const bool shared = std::any_of(decls.begin(), decls.end(),
                                        [&](const Declaration& d) { return d.unit != ui; });
        if (!shared || units[ui].renamed.count(name)) continue;
        std::string fresh;
        for (int k = 0; fresh.empty() || all.count(fresh); ++k)
          fresh = fmt::format("{}$u{}{}", name, ui, k ? fmt::format("_{}", k) : "");
        units[ui].renamed[name] = fresh;
      }
    }

  // Program-wide symbols: one definition each.
  for (const auto& [name, decls] : global) {
    const Declaration* chosen = nullptr;
    for (const Declaration& d : decls) {
      const Statement& st = units[d.unit].statements[d.statement];
      if (!st.defined) continue;
      const bool strong = st.linkage == Linkage::Visible || st.linkage == Linkage::None;
      if (chosen) {
        const Statement& c = units[chosen->unit].statements[chosen->statement];
        const bool chosen_strong = c.linkage == Linkage::Visible || c.linkage == Linkage::None;
        if (strong && chosen_strong)
          throw PtxLinkError(fmt::format("'{}' is defined twice: at {} and at {}", name,
                                         describe(units, *chosen), describe(units, d)));
        if (!strong || chosen_strong) continue;
      }
      chosen = &d;
    }
    for (const Declaration& d : decls) {
      Statement& st = units[d.unit].statements[d.statement];
      if (chosen && d.unit == chosen->unit && d.statement == chosen->statement) continue;
      if (st.kind == StatementKind::Function) {
        // A definition that lost to another one still declares the function
        // for the calls of its own unit.
        if (st.defined) st.fate = Statement::Fate::Prototype;
        continue;
      }
      if (chosen || st.dynamic_shared) {
        if (st.names.size() == 1) st.fate = Statement::Fate::Drop;
        continue;
      }
    }
    if (chosen) continue;
    // Nothing defines it: the engine's own functions and dynamic shared memory
    // need no definition, an unreferenced declaration harms nobody.
    const Statement& first = units[decls[0].unit].statements[decls[0].statement];
    if (first.dynamic_shared) {
      units[decls[0].unit].statements[decls[0].statement].fate = Statement::Fate::Keep;
      continue;
    }
    if (first.kind == StatementKind::Function && is_builtin(name)) continue;
    for (const Declaration& d : decls)
      if (referenced(units[d.unit], name))
        throw PtxLinkError(
            fmt::format("undefined reference to {} '{}' in {}: no unit defines it",
                        first.kind == StatementKind::Function ? "function" : "variable", name,
                        units[d.unit].source->name));
  }

  // A module-scope .shared variable that one kernel alone uses becomes that
  // kernel's own: with -rdc=true, NVVM declares a kernel's static __shared__
  // (CUB's temp_storage) at module scope, and the engine charges every kernel
  // for all module-scope .shared, so one library's kernels would leave no
  // shared memory to the others.
  using Place = std::pair<std::size_t, std::size_t>;  // unit, statement
  auto local_name = [&](std::size_t ui, const std::string& n) {
    auto r = units[ui].renamed.find(n);
    return r == units[ui].renamed.end() ? n : r->second;
  };
  std::vector<std::pair<Place, std::set<std::string>>> bodies;  // identifiers each body names
  for (std::size_t ui = 0; ui < units.size(); ++ui)
    for (std::size_t si = 0; si < units[ui].statements.size(); ++si) {
      const Statement& st = units[ui].statements[si];
      if (st.kind != StatementKind::Function || !st.defined || st.fate != Statement::Fate::Keep)
        continue;
      std::set<std::string> names;
      for (std::size_t k = st.body; k <= st.last; ++k)
        if (units[ui].toks[k].kind == Tok::Kind::Ident)
          names.insert(local_name(ui, units[ui].text(units[ui].toks[k])));
      bodies.push_back({{ui, si}, std::move(names)});
    }
  std::set<Place> sunk;
  std::map<Place, std::string> sunk_into;  // kernel -> the declarations it takes in
  for (std::size_t ui = 0; ui < units.size(); ++ui)
    for (std::size_t si = 0; si < units[ui].statements.size(); ++si) {
      const Unit& u = units[ui];
      const Statement& st = u.statements[si];
      if (st.kind != StatementKind::Variable || !st.defined || st.fate != Statement::Fate::Keep ||
          st.names.size() != 1 || !u.is(st.space, ".shared"))
        continue;
      const std::string name = local_name(ui, st.names[0]);
      const Place* user = nullptr;
      std::size_t users = 0;
      for (const auto& [place, names] : bodies)
        if (names.count(name)) {
          user = &place;
          ++users;
        }
      if (users != 1 || !units[user->first].statements[user->second].entry) continue;
      sunk.insert({ui, si});
      sunk_into[*user] += "\t" + emit(u, st.space, st.last) + "\n";
    }

  // The linked text: variables first (every unit's functions may use them), then
  // the functions and everything else, each unit's in its order.
  std::string out =
      fmt::format("// Linked by Cnuas from {} unit{}:", units.size(), units.size() == 1 ? "" : "s");
  for (const Unit& u : units) out += " " + u.source->name;
  out += fmt::format("\n.version {}\n.target {}\n.address_size {}\n", version, target,
                     address_size.empty() ? "64" : address_size);
  for (const bool variables : {true, false})
    for (const Unit& u : units) {
      out += fmt::format("\n// ---- {} of {}\n", variables ? "variables" : "code", u.source->name);
      const std::size_t ui = static_cast<std::size_t>(&u - units.data());
      for (std::size_t si = 0; si < u.statements.size(); ++si) {
        const Statement& st = u.statements[si];
        if (st.kind == StatementKind::Version || st.kind == StatementKind::Target ||
            st.kind == StatementKind::AddressSize || st.kind == StatementKind::Dropped ||
            st.fate == Statement::Fate::Drop || variables != (st.kind == StatementKind::Variable) ||
            sunk.count({ui, si}))
          continue;
        auto own = sunk_into.find({ui, si});
        if (st.fate == Statement::Fate::Prototype)
          out += emit(u, st.first, st.body - 1) + ";\n";
        else if (own != sunk_into.end())
          out += emit(u, st.first, st.body) + "\n" + own->second + emit(u, st.body + 1, st.last) +
                 "\n";
        else
          out += emit(u, st.first, st.last) + "\n";
      }
    }
  return out;
}

}  // namespace cnuas::cuda
