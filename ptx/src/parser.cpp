// Recursive-descent parser for the PTX module grammar nvcc emits.
#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <optional>

#include "cfg.h"
#include "decode.h"
#include "fast_paths.h"
#include "lexer.h"
#include "ptx/errors.h"
#include "ptx/ir.h"
#include "register_init.h"
#include "shared_layout.h"
#include "wgmma_decode.h"

namespace cnuas::ptx {
namespace {

constexpr std::int64_t kDynamicShared = -1;  // value of an extern .shared array symbol

struct Symbol {
  SymbolKind kind;
  std::int64_t value;  // variable index, offset or function index
};

std::uint32_t align_up(std::uint32_t v, std::uint32_t a) {
  return a ? (v + a - 1) / a * a : v;
}

const std::map<std::string, SpecialReg>& special_registers() {
  static const std::map<std::string, SpecialReg> m{
      {"%tid", SpecialReg::Tid},
      {"%ntid", SpecialReg::Ntid},
      {"%ctaid", SpecialReg::Ctaid},
      {"%nctaid", SpecialReg::Nctaid},
      {"%laneid", SpecialReg::Laneid},
      {"%warpid", SpecialReg::Warpid},
      {"%nwarpid", SpecialReg::Nwarpid},
      {"%smid", SpecialReg::Smid},
      {"%nsmid", SpecialReg::Nsmid},
      {"%gridid", SpecialReg::Gridid},
      {"%lanemask_eq", SpecialReg::LanemaskEq},
      {"%lanemask_le", SpecialReg::LanemaskLe},
      {"%lanemask_lt", SpecialReg::LanemaskLt},
      {"%lanemask_ge", SpecialReg::LanemaskGe},
      {"%lanemask_gt", SpecialReg::LanemaskGt},
      {"%clock", SpecialReg::Clock},
      {"%clock64", SpecialReg::Clock64},
      {"%globaltimer", SpecialReg::Globaltimer},
      {"%dynamic_smem_size", SpecialReg::DynamicSmemSize},
      {"%total_smem_size", SpecialReg::TotalSmemSize},
      {"%cluster_ctaid", SpecialReg::ClusterCtaid},
      {"%cluster_nctaid", SpecialReg::ClusterNctaid},
      {"%cluster_ctarank", SpecialReg::ClusterCtarank},
      {"%cluster_nctarank", SpecialReg::ClusterNctarank},
      {"%clusterid", SpecialReg::Clusterid},
      {"%nclusterid", SpecialReg::Nclusterid},
      {"%is_explicit_cluster", SpecialReg::IsExplicitCluster},
  };
  return m;
}

class Parser {
 public:
  Parser(const std::string& text, const std::string& file, Module& m)
      : tokens_(tokenize(text, file)), file_(file), m_(m) {
    scopes_.emplace_back();
  }

  void parse_module() {
    while (!peek().kind_is_end()) parse_top_level();
    for (Function& f : m_.functions) {
      if (!f.defined) continue;
      compute_reconvergence(f);
      for (Instruction& i : f.code) i.fast = fast_form(i);
      f.zeroed_registers = registers_read_before_written(f);
      f.zeroed_registers_known = true;
    }
  }

 private:
  // --- tokens -------------------------------------------------------------
  struct Cursor {
    const Token& t;
    bool kind_is_end() const { return t.kind == Token::Kind::End; }
  };
  Cursor peek() const { return {tokens_[pos_]}; }
  const Token& tok(std::size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  [[noreturn]] void fail(const Token& t, const std::string& message) const {
    throw ParseError(
        file_, t.line, t.column,
        message + (t.kind == Token::Kind::End ? " (at end of file)" : " (at '" + t.text + "')"));
  }
  bool accept(char c) {
    if (tok().is(c)) {
      next();
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!accept(c)) fail(tok(), std::string("expected '") + c + "'");
  }
  bool accept_word(const char* w) {
    if (tok().kind == Token::Kind::Ident && tok().text == w) {
      next();
      return true;
    }
    return false;
  }
  std::string expect_ident(const char* what) {
    if (tok().kind != Token::Kind::Ident) fail(tok(), std::string("expected ") + what);
    return next().text;
  }
  // PTX's predefined integer constant: nvcc emits WARP_SZ for device-side warpSize.
  static constexpr std::int64_t kWarpSize = 32;
  bool at_warp_sz(std::size_t at = 0) const {
    return tok(at).kind == Token::Kind::Ident && tok(at).text == "WARP_SZ";
  }
  std::int64_t expect_int(const char* what) {
    bool neg = accept('-');
    if (at_warp_sz()) {
      next();
      return neg ? -kWarpSize : kWarpSize;
    }
    if (tok().kind != Token::Kind::Number) fail(tok(), std::string("expected ") + what);
    const Token& t = next();
    std::uint64_t v = 0;
    if (!parse_integer(t.text, v))
      fail(t, std::string("expected ") + what + ": an integer of at most 64 bits");
    return neg ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
  }
  static bool parse_integer(const std::string& text, std::uint64_t& v) {
    std::string s = text;
    if (!s.empty() && s.back() == 'U') s.pop_back();
    if (s.empty()) return false;
    int base = 10;
    std::size_t i = 0;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      base = 16;
      i = 2;
    } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
      base = 2;
      i = 2;
    } else if (s.size() > 1 && s[0] == '0') {
      base = 8;
      i = 1;
    }
    v = 0;
    for (; i < s.size(); ++i) {
      int d;
      const char c = s[i];
      if (c >= '0' && c <= '9')
        d = c - '0';
      else if (c >= 'a' && c <= 'f')
        d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        d = c - 'A' + 10;
      else
        return false;
      if (d >= base) return false;
      // PTX integers are 64-bit: a longer literal is an error, not a wrapped value.
      if (__builtin_mul_overflow(v, static_cast<std::uint64_t>(base), &v) ||
          __builtin_add_overflow(v, static_cast<std::uint64_t>(d), &v))
        return false;
    }
    return true;
  }
  // Skips every token on the current token's line (for .loc/.file, which have no ';').
  void skip_line() {
    const std::uint32_t line = tok().line;
    while (tok().kind != Token::Kind::End && tok().line == line) next();
  }
  void skip_to_semicolon() {
    while (tok().kind != Token::Kind::End && !tok().is(';')) next();
    expect(';');
  }

  // --- module level ---------------------------------------------------------
  void parse_top_level() {
    const Token& t = tok();
    if (t.kind != Token::Kind::Ident) fail(t, "expected a directive at module scope");
    const std::string& w = t.text;
    if (w == ".version") {
      next();
      m_.version = next().text;
    } else if (w == ".target") {
      next();
      m_.target = expect_ident("a target");
      while (accept(',')) m_.target += "," + expect_ident("a target");
    } else if (w == ".address_size") {
      next();
      m_.address_size = static_cast<unsigned>(expect_int("address size"));
      if (m_.address_size != 64 && m_.address_size != 32) fail(t, ".address_size must be 32 or 64");
    } else if (w == ".file" || w == ".loc") {
      skip_line();
    } else if (w == ".pragma") {
      next();
      skip_to_semicolon();
    } else if (w == ".section") {
      next();
      expect_ident("a section name");
      skip_block();
    } else if (w == ".visible" || w == ".extern" || w == ".weak" || w == ".common") {
      next();
      parse_top_level_decl(w == ".extern");
    } else if (w == ".entry" || w == ".func" || w == ".global" || w == ".const" || w == ".shared" ||
               w == ".tex" || w == ".surfref" || w == ".texref" || w == ".samplerref") {
      parse_top_level_decl(false);
    } else if (w == ".alias") {
      fail(t, ".alias is not supported (no nvcc output uses it)");
    } else {
      fail(t, "unknown module-scope directive");
    }
  }

  void skip_block() {
    expect('{');
    int depth = 1;
    while (depth > 0) {
      if (tok().kind == Token::Kind::End) fail(tok(), "unterminated block");
      if (tok().is('{')) ++depth;
      if (tok().is('}')) --depth;
      next();
    }
  }

  void parse_top_level_decl(bool is_extern) {
    const Token& t = tok();
    if (t.text == ".entry" || t.text == ".func") {
      parse_function();
    } else {
      parse_variable(is_extern, /*in_function=*/nullptr);
    }
  }

  // --- variables ------------------------------------------------------------
  Space space_of(const std::string& w) const {
    if (w == ".global") return Space::Global;
    if (w == ".const") return Space::Const;
    if (w == ".shared") return Space::Shared;
    if (w == ".local") return Space::Local;
    if (w == ".param") return Space::Param;
    if (w == ".tex" || w == ".surfref" || w == ".texref" || w == ".samplerref")
      return Space::Global;
    return Space::None;
  }

  // [.align N] [.vN] .type name[dims] [= init] {, name ...} ;
  void parse_variable(bool is_extern, Function* fn) {
    const Token& start = tok();
    const std::string space_word = next().text;
    Space space = space_of(space_word);
    if (space == Space::None) fail(start, "expected a state space");
    std::uint32_t align = 0;
    unsigned vec = 1;
    std::optional<Type> type;
    for (;;) {
      if (accept_word(".align")) {
        align = static_cast<std::uint32_t>(expect_int("alignment"));
      } else if (accept_word(".v2")) {
        vec = 2;
      } else if (accept_word(".v4")) {
        vec = 4;
      } else if (accept_word(".v8")) {
        vec = 8;
      } else if (tok().kind == Token::Kind::Ident && tok().text.size() > 1 &&
                 tok().text[0] == '.' && type_from_name(tok().text.substr(1))) {
        type = type_from_name(next().text.substr(1));
      } else if (accept_word(".attribute")) {
        expect('(');
        while (!accept(')')) next();
      } else {
        break;
      }
    }
    if (space_word == ".texref" || space_word == ".surfref" || space_word == ".samplerref" ||
        space_word == ".tex")
      type = Type::B64;
    if (!type) fail(tok(), "expected a type in the declaration");
    const unsigned elem = type_bytes(*type) * vec;
    if (align == 0) align = elem;
    do {
      const Token& name_tok = tok();
      std::string name = expect_ident("a variable name");
      // %r<42>: a range of registers (only .reg uses this; handled by the caller)
      std::uint64_t count = 1;
      bool unsized = false;
      while (accept('[')) {
        if (accept(']')) {
          unsized = true;
          continue;
        }
        const Token& size_tok = tok();
        const std::int64_t n = expect_int("an array size");
        if (n < 0 || __builtin_mul_overflow(count, static_cast<std::uint64_t>(n), &count))
          fail(size_tok, "array size " + size_tok.text + " is negative or overflows 64 bits");
        expect(']');
      }
      Variable v;
      v.name = name;
      v.space = space;
      v.type = *type;
      v.align = align;
      if (!unsized && count > max_variable_bytes(space) / elem)
        fail(name_tok, "'" + name + "' takes " + std::to_string(count) + " x " +
                           std::to_string(elem) + " bytes; a " + space_word +
                           " variable holds at most " + std::to_string(max_variable_bytes(space)) +
                           " bytes");
      v.size = unsized ? 0 : count * elem;
      v.is_extern = is_extern || unsized;
      v.line = name_tok.line;
      if (accept('=')) parse_initializer(v, elem);
      // Zeros after an initializer are stored; no initializer means zero-filled
      // storage, which the loader allocates without a host copy.
      if (!v.init.empty() && v.init.size() < v.size) v.init.resize(v.size, 0);
      declare_variable(v, fn, name_tok);
    } while (accept(','));
    expect(';');
  }

  void parse_initializer(Variable& v, unsigned elem) {
    auto emit = [&](std::uint64_t bits) {
      for (unsigned b = 0; b < elem && b < 8; ++b)
        v.init.push_back(static_cast<std::uint8_t>(bits >> (8 * b)));
      for (unsigned b = 8; b < elem; ++b) v.init.push_back(0);
    };
    std::function<void()> item = [&]() {
      if (tok().is('{') && expr_depth_ >= kMaxExprDepth)
        fail(tok(), "initializer nested deeper than " + std::to_string(kMaxExprDepth) + " levels");
      if (accept('{')) {
        ++expr_depth_;
        if (!tok().is('}')) {
          do item();
          while (accept(','));
        }
        expect('}');
        --expr_depth_;
        return;
      }
      if (at_warp_sz()) {
        next();
        emit(static_cast<std::uint64_t>(kWarpSize));
        return;
      }
      if (tok().kind == Token::Kind::Ident) {
        // generic(sym) or sym [+ off]: an address, filled in at load time
        std::string name = next().text;
        if (name == "generic") {
          expect('(');
          name = expect_ident("a symbol");
          expect(')');
        }
        v.address_init.push_back({v.init.size(), name});
        emit(0);
        return;
      }
      emit(parse_number_bits(v.type));
    };
    item();
  }

  std::uint64_t parse_number_bits(Type type) {
    const bool neg = accept('-');
    if (tok().kind != Token::Kind::Number) fail(tok(), "expected a number");
    const Token& t = next();
    std::uint64_t bits = 0;
    if (!number_bits(t.text, type, neg, bits)) fail(t, "malformed number");
    return bits;
  }

  static bool number_bits(const std::string& text, Type type, bool neg, std::uint64_t& bits) {
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'f' || text[1] == 'F')) {
      if (!parse_integer("0x" + text.substr(2), bits)) return false;
      if (neg) bits ^= 0x80000000u;
      if (type == Type::F64) {  // an f32 literal where f64 is expected: widen
        float f;
        std::uint32_t b32 = static_cast<std::uint32_t>(bits);
        std::memcpy(&f, &b32, 4);
        double d = f;
        std::memcpy(&bits, &d, 8);
      }
      return true;
    }
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'd' || text[1] == 'D')) {
      if (!parse_integer("0x" + text.substr(2), bits)) return false;
      if (neg) bits ^= 0x8000000000000000ull;
      if (type == Type::F32) {
        double d;
        std::memcpy(&d, &bits, 8);
        float f = static_cast<float>(d);
        std::uint32_t b32;
        std::memcpy(&b32, &f, 4);
        bits = b32;
      }
      return true;
    }
    const bool has_point = text.find_first_of(".eE") != std::string::npos &&
                           !(text.size() > 1 && (text[1] == 'x' || text[1] == 'X'));
    if (has_point || is_float(type)) {
      if (!has_point) {
        std::uint64_t iv;
        if (!parse_integer(text, iv)) return false;
        double d = static_cast<double>(iv) * (neg ? -1 : 1);
        return float_bits(d, type, bits);
      }
      char* end = nullptr;
      double d = std::strtod(text.c_str(), &end);
      if (!end || *end) return false;
      return float_bits(neg ? -d : d, type, bits);
    }
    std::uint64_t v;
    if (!parse_integer(text, v)) return false;
    bits = neg ? static_cast<std::uint64_t>(-static_cast<std::int64_t>(v)) : v;
    return true;
  }

  static bool is_float_literal(const std::string& text, Type type) {
    if (text.size() > 1 && text[0] == '0' && std::strchr("fFdD", text[1])) return true;
    const bool hex = text.size() > 1 && (text[1] == 'x' || text[1] == 'X');
    return !hex && (text.find_first_of(".eE") != std::string::npos || is_float(type));
  }

  // Integer constant expression, C precedence, by precedence climbing.
  std::int64_t const_expr(int min_prec) {
    std::int64_t lhs = const_unary();
    for (;;) {
      const Token& t = tok();
      std::string op = t.kind == Token::Kind::Punct ? t.text : "";
      if ((op == "<" || op == ">") && tok(1).is(op[0])) op += op;
      const int prec = op == "*" || op == "/" || op == "%" ? 5
                       : op == "+" || op == "-"            ? 4
                       : op == "<<" || op == ">>"          ? 3
                       : op == "&"                         ? 2
                       : op == "^"                         ? 1
                       : op == "|"                         ? 0
                                                           : -1;
      if (prec < min_prec || prec < 0) return lhs;
      for (std::size_t k = 0; k < op.size(); ++k) next();
      const std::int64_t rhs = const_expr(prec + 1);
      const auto ul = static_cast<std::uint64_t>(lhs), ur = static_cast<std::uint64_t>(rhs);
      if ((op == "/" || op == "%") && rhs == 0)
        fail(t, "division by zero in a constant expression");
      if (op == "*")
        lhs = static_cast<std::int64_t>(ul * ur);
      else if (op == "/")
        lhs = (rhs == -1) ? static_cast<std::int64_t>(0 - ul) : lhs / rhs;
      else if (op == "%")
        lhs = (rhs == -1) ? 0 : lhs % rhs;
      else if (op == "+")
        lhs = static_cast<std::int64_t>(ul + ur);
      else if (op == "-")
        lhs = static_cast<std::int64_t>(ul - ur);
      else if (op == "<<")
        lhs = static_cast<std::int64_t>(ur >= 64 ? 0 : ul << ur);
      else if (op == ">>")
        lhs = ur >= 64 ? (lhs < 0 ? -1 : 0) : lhs >> ur;
      else if (op == "&")
        lhs = static_cast<std::int64_t>(ul & ur);
      else if (op == "^")
        lhs = static_cast<std::int64_t>(ul ^ ur);
      else
        lhs = static_cast<std::int64_t>(ul | ur);
    }
  }

  std::int64_t const_unary() {
    // Each level recurses: cap the depth (a fuzzer's 50,000 parentheses
    // overflowed the stack); real PTX nests a handful.
    struct Depth {
      int& d;
      explicit Depth(int& depth) : d(depth) { ++d; }
      ~Depth() { --d; }
    } depth(expr_depth_);
    if (expr_depth_ > kMaxExprDepth)
      fail(tok(),
           "constant expression nested deeper than " + std::to_string(kMaxExprDepth) + " levels");
    if (accept('-'))
      return static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(const_unary()));
    if (accept('~')) return ~const_unary();
    if (accept('!')) return const_unary() == 0;
    if (accept('(')) {
      const std::int64_t v = const_expr(0);
      expect(')');
      return v;
    }
    if (at_warp_sz()) {
      next();
      return kWarpSize;
    }
    const Token& t = tok();
    if (t.kind != Token::Kind::Number) fail(t, "expected a number or a constant expression");
    next();
    std::uint64_t v;
    if (!parse_integer(t.text, v)) fail(t, "malformed integer");
    return static_cast<std::int64_t>(v);
  }

  static bool float_bits(double d, Type type, std::uint64_t& bits) {
    if (type == Type::F32) {
      float f = static_cast<float>(d);
      std::uint32_t b;
      std::memcpy(&b, &f, 4);
      bits = b;
    } else {
      std::memcpy(&bits, &d, 8);
    }
    return true;
  }

  void declare_variable(Variable& v, Function* fn, const Token& where) {
    Symbol sym{SymbolKind::Global, 0};
    switch (v.space) {
      case Space::Global:
      case Space::Const:
        sym = {v.space == Space::Global ? SymbolKind::Global : SymbolKind::Const,
               static_cast<std::int64_t>(m_.variables.size())};
        m_.variables.push_back(v);
        break;
      case Space::Shared:
        if (v.size == 0) {
          sym = {SymbolKind::Shared, kDynamicShared};
        } else if (fn && fn->is_entry) {
          // A kernel's own .shared lives in its region, after the module's:
          // kernels of one module never share a CTA, so their regions overlap.
          fn->entry_shared_bytes = align_up(fn->entry_shared_bytes, v.align);
          check_total(std::uint64_t{fn->entry_shared_bytes} + v.size, v.space, where,
                      "the kernel's .shared variables");
          v.offset = fn->entry_shared_bytes;
          fn->entry_shared_bytes += static_cast<std::uint32_t>(v.size);
          entry_shared_align_ = std::max(entry_shared_align_, v.align);
          sym = {SymbolKind::Shared, kEntrySharedBit | v.offset};
        } else {
          // Each kernel holds only those it reaches (shared_layout.h), so the
          // CTA limit applies per kernel, after the layout; the module's sum
          // (cuBLAS: 68 kernels' buffers, 363 KiB) only has to stay countable.
          module_shared_.push_back(m_.variables.size());
          shared_bytes_ = align_up(shared_bytes_, v.align);
          if (std::uint64_t{shared_bytes_} + v.size > kMaxModuleSharedBytes)
            fail(where, "the module's .shared variables would take " +
                            std::to_string(std::uint64_t{shared_bytes_} + v.size) +
                            " bytes; at most " + std::to_string(kMaxModuleSharedBytes) +
                            " are accepted");
          v.offset = shared_bytes_;
          shared_bytes_ += static_cast<std::uint32_t>(v.size);
          sym = {SymbolKind::Shared, v.offset};
        }
        m_.variables.push_back(v);
        break;
      case Space::Local:
        if (!fn) fail(where, ".local variables belong inside a function");
        fn->local_bytes = align_up(fn->local_bytes, v.align);
        check_total(std::uint64_t{fn->local_bytes} + v.size, v.space, where,
                    "the function's .local variables");
        sym = {SymbolKind::Local, fn->local_bytes};
        fn->local_bytes += static_cast<std::uint32_t>(v.size);
        break;
      case Space::Param:
        if (!fn) fail(where, ".param variables at module scope are not PTX");
        fn->call_param_bytes = align_up(fn->call_param_bytes, std::max<std::uint32_t>(v.align, 1));
        check_total(std::uint64_t{fn->call_param_bytes} + v.size, v.space, where,
                    "the function's .param variables");
        sym = {SymbolKind::CallParam, fn->call_param_bytes};
        fn->call_param_bytes += static_cast<std::uint32_t>(std::max<std::uint64_t>(v.size, 1));
        break;
      default:
        fail(where, "unsupported state space for a variable");
    }
    scopes_.back()[v.name] = sym;
  }

  // --- functions ------------------------------------------------------------
  std::vector<Param> parse_params(std::uint32_t& offset) {
    std::vector<Param> out;
    expect('(');
    if (accept(')')) return out;
    do {
      const Token& t = tok();
      const std::string space = expect_ident("a parameter");
      if (space != ".param" && space != ".reg") fail(t, "expected .param or .reg");
      std::uint32_t align = 0;
      std::optional<Type> type;
      for (;;) {
        if (accept_word(".align")) {
          align = static_cast<std::uint32_t>(expect_int("alignment"));
        } else if (accept_word(".ptr")) {
          // .ptr [.space] [.align N]: where the pointer points and how aligned
          // that is, a hint; the parameter keeps its own alignment.
          while (tok().kind == Token::Kind::Ident && tok().text[0] == '.' &&
                 tok().text != ".align" && !type_from_name(tok().text.substr(1)))
            next();
          if (accept_word(".align")) expect_int("alignment");
        } else if (tok().kind == Token::Kind::Ident && tok().text[0] == '.' &&
                   type_from_name(tok().text.substr(1))) {
          type = type_from_name(next().text.substr(1));
        } else {
          break;
        }
      }
      if (!type) fail(tok(), "expected a parameter type");
      Param p;
      p.name = expect_ident("a parameter name");
      p.type = *type;
      std::uint64_t count = 1;
      while (accept('[')) {
        const Token& size_tok = tok();
        const std::int64_t n = expect_int("an array size");
        if (n < 0 || __builtin_mul_overflow(count, static_cast<std::uint64_t>(n), &count))
          fail(size_tok, "array size " + size_tok.text + " is negative or overflows 64 bits");
        expect(']');
      }
      p.size = static_cast<std::uint32_t>(type_bytes(*type) * count);
      p.align = align ? align : type_bytes(*type);
      offset = align_up(offset, p.align);
      p.offset = offset;
      offset += p.size;
      out.push_back(p);
    } while (accept(','));
    expect(')');
    return out;
  }

  void parse_function() {
    const Token& kw = next();
    const bool entry = kw.text == ".entry";
    std::uint32_t frame = 0;
    std::vector<Param> returns;
    if (!entry && tok().is('(')) returns = parse_params(frame);
    const Token& name_tok = tok();
    const std::string name = expect_ident("a function name");
    std::vector<Param> params;
    if (tok().is('(')) params = parse_params(frame);
    std::size_t index;
    auto found = m_.function_index.find(name);
    if (found == m_.function_index.end()) {
      index = m_.functions.size();
      m_.functions.emplace_back();
      m_.function_index[name] = index;
    } else {
      index = found->second;
    }
    scopes_.front()[name] = {SymbolKind::Function, static_cast<std::int64_t>(index)};
    {
      Function& f = m_.functions[index];
      f.name = name;
      f.is_entry = entry;
      f.params = params;
      f.returns = returns;
      f.param_bytes = frame;
      f.line = name_tok.line;
    }
    // Performance directives.
    for (;;) {
      const std::string w = tok().kind == Token::Kind::Ident ? tok().text : "";
      if (w == ".maxntid" || w == ".reqntid" || w == ".reqnctapercluster") {
        next();
        std::uint32_t dims[3] = {1, 1, 1};
        int i = 0;
        do dims[i++] = static_cast<std::uint32_t>(expect_int("a thread count"));
        while (i < 3 && accept(','));
        Function& f = m_.functions[index];
        if (w != ".reqnctapercluster") {
          std::copy(dims, dims + 3, f.max_threads);
          f.threads_required = w == ".reqntid";
        } else {
          std::copy(dims, dims + 3, f.cluster_dims);
        }
      } else if (w == ".minnctapersm" || w == ".maxnreg" || w == ".maxnctapersm" ||
                 w == ".maxclusterrank") {
        next();
        expect_int("a count");
      } else if (w == ".noreturn" || w == ".explicitcluster" || w == ".blocksareclusters") {
        next();
      } else if (w == ".pragma") {
        next();
        skip_to_semicolon();
      } else {
        break;
      }
    }
    if (accept(';')) return;  // a prototype
    Function& f = m_.functions[index];
    if (f.defined) fail(name_tok, "function '" + name + "' is defined twice");
    f.defined = true;
    function_ = &f;
    registers_.clear();
    shadowed_.clear();
    labels_.clear();
    fixups_.clear();
    scopes_.emplace_back();
    for (const Param& p : f.params)
      scopes_.back()[p.name] = {entry ? SymbolKind::KernelParam : SymbolKind::FuncParam, p.offset};
    for (const Param& p : f.returns) scopes_.back()[p.name] = {SymbolKind::FuncParam, p.offset};
    expect('{');
    parse_body();
    scopes_.pop_back();
    for (const auto& [pc, label_tok] : fixups_) {
      Instruction& inst = f.code[pc];
      for (Operand& o : inst.ops)
        if (o.kind == Operand::Kind::Label && o.imm < 0) {
          auto l = labels_.find(label_tok.text);
          if (l == labels_.end()) fail(label_tok, "unknown label '" + label_tok.text + "'");
          o.imm = l->second;
          break;
        }
    }
    for (auto& [list_name, entries] : branch_tables_) {
      for (auto& [label, index_out] : entries) {
        auto l = labels_.find(label.text);
        if (l == labels_.end()) fail(label, "unknown label '" + label.text + "' in a branch table");
        index_out = l->second;
      }
    }
    resolve_branch_tables(f);
    function_ = nullptr;
  }

  // --- bodies -----------------------------------------------------------------
  void parse_body() {
    for (;;) {
      const Token& t = tok();
      if (t.kind == Token::Kind::End) fail(t, "unterminated function body");
      if (accept('}')) return;
      if (accept('{')) {
        scopes_.emplace_back();
        shadowed_.emplace_back();
        parse_body();
        end_register_scope();
        scopes_.pop_back();
        continue;
      }
      if (t.kind == Token::Kind::Ident && tok(1).is(':')) {
        const std::string label = next().text;
        next();
        if (tok().text == ".callprototype") {
          skip_to_semicolon();
          continue;
        }
        if (tok().text == ".branchtargets") {
          next();
          auto& list = branch_tables_[label];
          do list.push_back({tok(), 0}), expect_ident("a label");
          while (accept(','));
          expect(';');
          continue;
        }
        labels_[label] = static_cast<std::uint32_t>(function_->code.size());
        continue;
      }
      if (t.kind == Token::Kind::Ident && t.text[0] == '.') {
        if (t.text == ".reg") {
          parse_registers();
        } else if (t.text == ".loc" || t.text == ".file") {
          skip_line();
        } else if (t.text == ".pragma") {
          next();
          skip_to_semicolon();
        } else if (space_of(t.text) != Space::None) {
          parse_variable(false, function_);
        } else {
          fail(t, "unknown directive in a function body");
        }
        continue;
      }
      parse_instruction();
    }
  }

  void parse_registers() {
    next();  // .reg
    unsigned vec = 1;
    if (accept_word(".v2"))
      vec = 2;
    else if (accept_word(".v4"))
      vec = 4;
    if (tok().kind != Token::Kind::Ident || tok().text[0] != '.' ||
        !type_from_name(tok().text.substr(1)))
      fail(tok(), "expected a register type");
    const Type type = *type_from_name(next().text.substr(1));
    if (vec != 1) fail(tok(), "vector registers (.reg .v2/.v4) are not supported");
    do {
      const std::string name = expect_ident("a register name");
      if (accept('<')) {
        const Token& count_tok = tok();
        const std::int64_t n = expect_int("a register count");
        if (n < 0 || static_cast<std::uint64_t>(n) + function_->registers.size() > kMaxRegisters)
          fail(count_tok,
               "'" + name + "<" + count_tok.text + ">' would make " +
                   std::to_string(static_cast<std::uint64_t>(n) + function_->registers.size()) +
                   " registers in this function; at most " + std::to_string(kMaxRegisters) +
                   " are accepted");
        expect('>');
        for (std::int64_t i = 0; i < n; ++i) add_register(name + std::to_string(i), type);
      } else {
        add_register(name, type);
      }
    } while (accept(','));
    expect(';');
  }

  void add_register(const std::string& name, Type type) {
    if (!shadowed_.empty()) {  // inside a { } block: the name is the block's until its '}'
      auto r = registers_.find(name);
      shadowed_.back().emplace_back(
          name, r == registers_.end() ? std::nullopt : std::optional<std::int32_t>(r->second));
    }
    registers_[name] = static_cast<std::int32_t>(function_->registers.size());
    function_->registers.push_back({name, type});
  }

  // At a block's '}': its register names give way to the enclosing ones again
  // (inline asm declares `.reg .pred %p1;` in a block inside functions that
  // have their own %p1).
  void end_register_scope() {
    auto& names = shadowed_.back();
    for (auto n = names.rbegin(); n != names.rend(); ++n) {
      if (n->second)
        registers_[n->first] = *n->second;
      else
        registers_.erase(n->first);
    }
    shadowed_.pop_back();
  }

  std::optional<Symbol> lookup(const std::string& name) const {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
      auto f = s->find(name);
      if (f != s->end()) return f->second;
    }
    return std::nullopt;
  }

  void parse_instruction() {
    Instruction inst;
    const Token& first = tok();
    inst.line = first.line;
    inst.column = first.column;
    const std::size_t start = pos_;
    if (accept('@')) {
      inst.guard_negated = accept('!');
      const Token& p = tok();
      const std::string pred = expect_ident("a predicate register");
      auto r = registers_.find(pred);
      if (r == registers_.end()) fail(p, "unknown predicate register '" + pred + "'");
      inst.guard = r->second;
    }
    const Token& op_tok = tok();
    const std::string word = expect_ident("an instruction");
    if (!decode_opcode(word, inst)) fail(op_tok, "unknown instruction '" + word + "'");
    const std::uint32_t pc = static_cast<std::uint32_t>(function_->code.size());
    if (inst.op == Opcode::call) {
      parse_call(inst);
    } else if (inst.op == Opcode::wgmma && !tok().is(';')) {
      parse_wgmma_operands(inst, pc);
    } else if (!tok().is(';')) {
      int n = 0;
      do {
        if (n >= 6) fail(tok(), "too many operands");
        parse_operand(inst, inst.ops[n++], pc);
      } while (accept(','));
      inst.nops = static_cast<std::uint8_t>(n);
    }
    expect(';');
    // The statement text for messages: tokens joined with spaces.
    for (std::size_t i = start; i + 1 < pos_; ++i) {
      const Token& prev = tokens_[i - 1];
      const Token& cur = tokens_[i];
      const bool glued = cur.is(',') || cur.is(']') || cur.is('}') || cur.is(')') || cur.is('|') ||
                         prev.is('[') || prev.is('{') || prev.is('(') || prev.is('@') ||
                         prev.is('!') || prev.is('|');
      if (!inst.text.empty() && !glued) inst.text += ' ';
      inst.text += tokens_[i].text;
    }
    check_supported(inst);
    function_->code.push_back(std::move(inst));
  }

  // wgmma.mma_async takes up to ten operands, the last ones immediates (scales and
  // transposes) that go into inst.matrix rather than inst.ops.
  void parse_wgmma_operands(Instruction& inst, std::uint32_t pc) {
    std::vector<Operand> list;
    std::vector<std::size_t> where;
    do {
      where.push_back(pos_);
      list.emplace_back();
      parse_operand(inst, list.back(), pc);
    } while (accept(','));
    std::size_t bad = 0;
    const std::string why = place_wgmma_operands(inst, list, bad);
    if (!why.empty()) fail(tokens_[where[bad]], why);
  }

  // call[.uni] (ret), func, (args) [, table];  with ret and args optional.
  void parse_call(Instruction& inst) {
    Operand rets, args;
    rets.kind = args.kind = Operand::Kind::Vector;
    auto param_list = [&](Operand& list) {
      expect('(');
      if (accept(')')) return;
      do {
        const Token& t = tok();
        const std::string n = expect_ident("a parameter");
        auto s = lookup(n);
        if (!s || (s->kind != SymbolKind::CallParam && s->kind != SymbolKind::FuncParam))
          fail(t, "call arguments must be .param variables ('" + n + "' is not)");
        list.regs.push_back(static_cast<std::int32_t>(s->value));
      } while (accept(','));
      expect(')');
    };
    if (tok().is('(')) {
      param_list(rets);
      expect(',');
    }
    const Token& ft = tok();
    const std::string callee = expect_ident("a function name");
    Operand target;
    auto s = lookup(callee);
    if (s && s->kind == SymbolKind::Function) {
      target.kind = Operand::Kind::Symbol;
      target.symbol_kind = SymbolKind::Function;
      target.symbol = s->value;
    } else if (registers_.count(callee)) {
      target.kind = Operand::Kind::Reg;
      target.reg = registers_.at(callee);  // a function pointer
    } else {
      fail(ft, "unknown function '" + callee + "'");
    }
    if (accept(',')) {
      if (tok().is('(')) {
        param_list(args);
        if (accept(',')) expect_ident("a call table or prototype");
      } else {
        expect_ident("a call table or prototype");
      }
    }
    inst.ops[0] = rets;
    inst.ops[1] = target;
    inst.ops[2] = args;
    inst.nops = 3;
  }

  // The selector after a video operand's register (%r1.b0, %r2.h1, %r3.b7654, d.h10): which
  // bytes or halves it reads, or which ones a SIMD destination writes.
  void video_selector(const Instruction& inst, Operand& o, const Token& t, const std::string& sel) {
    const unsigned lanes = video_lanes(inst.op);
    const bool dest = &o == &inst.ops[0];
    const bool simd_source = lanes != 1 && !dest;
    const char width = lanes == 4 ? 'b' : 'h';
    std::string accepted;
    if (lanes == 1)
      accepted = inst.op == Opcode::vmad && dest ? "none on the destination of vmad"
                                                 : ".b0 .b1 .b2 .b3 .h0 .h1";
    else if (simd_source)
      accepted = lanes == 4 ? ".bxyzw with each digit 0-7" : ".hxy with each digit 0-3";
    else
      accepted = lanes == 4 ? "a mask .b3210, .b10, .b2 ... (digits 0-3, descending)"
                            : "a mask .h10, .h1 or .h0";
    auto bad = [&] {
      fail(t, "video operand selector '." + sel + "' is not valid here; accepted: " + accepted);
    };
    if (sel.size() < 2 || (inst.op == Opcode::vmad && dest)) bad();
    const char kind = sel[0];
    const std::string digits = sel.substr(1);
    if (lanes == 1 ? (kind != 'b' && kind != 'h') : kind != width) bad();
    const unsigned max_digit = lanes == 1    ? (kind == 'b' ? 3 : 1)
                               : simd_source ? 2 * lanes - 1
                                             : lanes - 1;
    if (lanes == 1    ? digits.size() != 1
        : simd_source ? digits.size() != lanes
                      : digits.size() > lanes)
      bad();
    o.sel_bits = static_cast<std::uint8_t>(kind == 'b' ? 8 : 16);
    o.sel_count = static_cast<std::uint8_t>(digits.size());
    o.sel_digits = 0;
    for (std::size_t k = 0; k < digits.size(); ++k) {
      const char ch = digits[digits.size() - 1 - k];  // the rightmost digit is element 0
      if (ch < '0' || static_cast<unsigned>(ch - '0') > max_digit) bad();
      if (!simd_source && lanes != 1 && k > 0 &&
          static_cast<unsigned>(ch - '0') <= o.sel_digit(static_cast<unsigned>(k - 1)))
        bad();  // a mask lists distinct elements, highest first
      o.sel_digits = static_cast<std::uint16_t>(o.sel_digits | (ch - '0') << (4 * k));
    }
  }

  void parse_operand(Instruction& inst, Operand& o, std::uint32_t pc) {
    if (accept('{')) {
      o.kind = Operand::Kind::Vector;
      do {
        const Token& t = tok();
        // mov.b32 d, {0, h} packs a zero half: an element that reads as zero.
        if (t.kind == Token::Kind::Number && inst.op == Opcode::mov) {
          if (expect_int("a vector element") != 0)
            fail(t, "a vector element of mov is a register or 0");
          o.regs.push_back(-1);
          continue;
        }
        const std::string n = expect_ident("a register");
        if (n == "_") {
          o.regs.push_back(-1);
          continue;
        }
        auto r = registers_.find(n);
        if (r == registers_.end()) fail(t, "unknown register '" + n + "'");
        o.regs.push_back(r->second);
      } while (accept(','));
      expect('}');
      return;
    }
    if (accept('[')) {
      o.kind = Operand::Kind::Address;
      if (tok().kind == Token::Kind::Ident && !at_warp_sz()) {
        const Token& t = tok();
        const std::string n = next().text;
        auto r = registers_.find(n);
        if (r != registers_.end()) {
          o.reg = r->second;
        } else if (auto s = lookup(n)) {
          o.has_symbol = true;
          o.symbol_kind = s->kind;
          o.symbol = s->value;
        } else {
          fail(t, "unknown register or symbol '" + n + "'");
        }
        if (accept('+')) {
          o.imm = expect_int("an offset");
        } else if (tok().is('-')) {
          o.imm = expect_int("an offset");
        }
      } else {
        o.imm = expect_int("an address");
      }
      // Texture and surface operands: [handle, {coordinates}] or [handle, sampler, {..}].
      if (accept(',')) {
        o.kind = Operand::Kind::Texture;
        if (!tok().is('{')) {
          const Token& st = tok();
          const std::string n = expect_ident("a sampler or coordinates");
          auto r = registers_.find(n);
          if (r == registers_.end()) fail(st, "unknown sampler register '" + n + "'");
          o.reg2 = r->second;
          expect(',');
        }
        expect('{');
        do {
          const Token& ct = tok();
          const std::string n = expect_ident("a coordinate register");
          auto r = registers_.find(n);
          if (r == registers_.end()) fail(ct, "unknown register '" + n + "'");
          o.regs.push_back(r->second);
        } while (accept(','));
        expect('}');
      }
      expect(']');
      return;
    }
    if (inst.op == Opcode::vmad && tok().is('-') && tok(1).kind == Token::Kind::Ident) {
      next();  // vmad's -a, -b, -c
      o.negate = true;
    }
    if (tok().is('-') || tok().is('(') || tok().is('~') || tok().kind == Token::Kind::Number ||
        at_warp_sz()) {
      // mma.sp's sixth operand, the sparsity selector, and wmma.load/store's stride (the third;
      // wmma.mma's is a fragment) are integers whatever the types.
      const bool integer = (inst.op == Opcode::mma && &o == &inst.ops[5]) ||
                           (inst.op == Opcode::wmma && &o == &inst.ops[2]);
      const Type ty = inst.op == Opcode::cvt ? inst.type2 : integer ? Type::None : inst.type;
      o.kind = Operand::Kind::Imm;
      const std::size_t at = tok().is('-') ? 1 : 0;
      const Token& number = tok(at);
      if (number.kind == Token::Kind::Number && is_float_literal(number.text, ty)) {
        const bool neg = accept('-');
        next();
        std::uint64_t bits;
        if (!number_bits(number.text, ty, neg, bits)) fail(number, "malformed number");
        o.imm = static_cast<std::int64_t>(bits);
      } else {
        o.imm = const_expr(0);  // PTX allows constant expressions: 0 + 1, (1 << 4) - 1
      }
      return;
    }
    const bool negated = accept('!');
    const Token& t = tok();
    std::string n = expect_ident("an operand");
    // The second register of a pair destination `d|p` (`_|p` discards d).
    auto pair_predicate = [&] {
      if (!accept('|')) return;
      const Token& t2 = tok();
      const std::string n2 = expect_ident("a predicate register");
      auto r2 = registers_.find(n2);
      if (r2 == registers_.end()) fail(t2, "unknown register '" + n2 + "'");
      o.reg2 = r2->second;
    };
    if (n == "_") {
      o.kind = Operand::Kind::Sink;
      pair_predicate();
      return;
    }
    if (video_lanes(inst.op) != 0 && n.find('.') != std::string::npos &&
        registers_.count(n.substr(0, n.find('.')))) {
      video_selector(inst, o, t, n.substr(n.find('.') + 1));
      n = n.substr(0, n.find('.'));
    }
    auto r = registers_.find(n);
    if (r != registers_.end()) {
      o.kind = Operand::Kind::Reg;
      o.reg = r->second;
      o.component = negated ? 1 : 0;  // a negated predicate source
      pair_predicate();
      return;
    }
    if (n[0] == '%') {
      std::string base = n;
      std::uint8_t comp = 0;
      const std::size_t dot = n.find('.');
      if (dot != std::string::npos) {
        base = n.substr(0, dot);
        const std::string c = n.substr(dot + 1);
        if (c == "x")
          comp = 0;
        else if (c == "y")
          comp = 1;
        else if (c == "z")
          comp = 2;
        else
          fail(t, "unknown special register component '." + c + "'");
      }
      auto s = special_registers().find(base);
      if (s == special_registers().end()) {
        if (base.rfind("%envreg", 0) == 0 && base.size() > 7 && base.size() <= 9 &&
            std::all_of(base.begin() + 7, base.end(),
                        [](char c) { return c >= '0' && c <= '9'; }) &&
            std::stoul(base.substr(7)) < 32) {
          o.kind = Operand::Kind::Special;
          o.special = SpecialReg::Envreg;
          o.component = static_cast<std::uint8_t>(std::stoul(base.substr(7)));
          return;
        }
        if (base.rfind("%envreg", 0) == 0 || base.rfind("%pm", 0) == 0 ||
            base.rfind("%reserved_smem", 0) == 0 || base == "%aggr_smem_size" ||
            base == "%current_graph_exec") {
          o.kind = Operand::Kind::Special;
          o.special = SpecialReg::Envreg;
          inst.unsupported = "special register " + n;
          return;
        }
        fail(t, "unknown register '" + n + "'");
      }
      o.kind = Operand::Kind::Special;
      o.special = s->second;
      o.component = comp;
      return;
    }
    if (auto s = lookup(n)) {
      o.kind = Operand::Kind::Symbol;
      o.symbol_kind = s->kind;
      o.symbol = s->value;
      return;
    }
    if (inst.op == Opcode::bra || inst.op == Opcode::brx) {
      if (inst.op == Opcode::brx && branch_tables_.count(n)) {
        o.kind = Operand::Kind::Vector;
        o.symbol = static_cast<std::int64_t>(pc);
        pending_tables_.push_back({pc, n});
        return;
      }
      o.kind = Operand::Kind::Label;
      o.imm = -1;
      fixups_.push_back({pc, t});
      return;
    }
    fail(t, "unknown register, symbol or label '" + n + "'");
  }

  void resolve_branch_tables(Function& f) {
    for (const auto& [pc, name] : pending_tables_) {
      for (Operand& o : f.code[pc].ops)
        if (o.kind == Operand::Kind::Vector && o.regs.empty()) {
          for (const auto& [label, target] : branch_tables_.at(name))
            o.regs.push_back(static_cast<std::int32_t>(target));
          break;
        }
    }
    pending_tables_.clear();
    branch_tables_.clear();
  }

  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  std::string file_;
  Module& m_;
  std::vector<std::map<std::string, Symbol>> scopes_;
  Function* function_ = nullptr;
  std::map<std::string, std::int32_t> registers_;
  // Per open { } block in a body, the names its .reg declarations shadow.
  std::vector<std::vector<std::pair<std::string, std::optional<std::int32_t>>>> shadowed_;
  std::map<std::string, std::uint32_t> labels_;
  std::vector<std::pair<std::uint32_t, Token>> fixups_;
  std::map<std::string, std::vector<std::pair<Token, std::uint32_t>>> branch_tables_;
  std::vector<std::pair<std::uint32_t, std::string>> pending_tables_;
  std::uint32_t shared_bytes_ = 0;          // module-scope and device-function .shared
  std::vector<std::size_t> module_shared_;  // those variables' indices in m_.variables
  std::uint32_t entry_shared_align_ = 1;
  int expr_depth_ = 0;  // nesting of the constant expression or initializer being read

  // Limits that keep hostile input from exhausting memory or the stack. Real
  // PTX stays far below them: nvcc declares hundreds of registers per
  // function, a CTA has at most 227 KiB of shared memory and a thread 512 KiB
  // of local memory, a .const bank holds 64 KiB.
  static constexpr std::uint64_t kMaxRegisters = 1u << 16;
  static constexpr std::uint64_t kMaxModuleSharedBytes = 1u << 30;
  static constexpr int kMaxExprDepth = 256;
  static std::uint64_t max_variable_bytes(Space space) {
    switch (space) {
      case Space::Shared:
        return 227u << 10;
      case Space::Local:
        return 512u << 10;
      case Space::Const:
        return 64u << 10;
      case Space::Param:
        return 32u << 10;
      default:
        return std::uint64_t{64} << 30;  // .global: more than any simulated GPU holds
    }
  }
  // Fails when `bytes`, a running total of `space` in one region, passed its limit.
  void check_total(std::uint64_t bytes, Space space, const Token& where, const char* what) {
    if (bytes > max_variable_bytes(space))
      fail(where, std::string(what) + " would take " + std::to_string(bytes) + " bytes; at most " +
                      std::to_string(max_variable_bytes(space)) + " are accepted");
  }

 public:
  const std::vector<std::size_t>& module_shared() const { return module_shared_; }
  std::uint32_t entry_shared_align() const { return entry_shared_align_; }
  static std::uint64_t max_cta_shared_bytes() { return max_variable_bytes(Space::Shared); }
};

}  // namespace

std::shared_ptr<const Module> Module::parse(const std::string& text, const std::string& file) {
  auto m = std::make_shared<Module>();
  m->file = file;
  Parser p(text, file, *m);
  p.parse_module();
  // A kernel's footprint: the module's .shared its code can reach plus its
  // own, not the other kernels'.
  lay_out_module_shared(*m, p.module_shared(), p.entry_shared_align());
  // Kernels over the CTA's limit, all named: one that reaches a variable
  // another kernel also reaches may be pushed over by that one's variables.
  std::string over;
  std::uint32_t line = 0;
  for (const Function& f : m->functions)
    if (f.is_entry && f.static_shared_bytes > Parser::max_cta_shared_bytes()) {
      over += (over.empty() ? "'" : ", '") + f.name + "' (" +
              std::to_string(f.static_shared_bytes) + " bytes)";
      if (!line) line = f.line;
    }
  if (!over.empty())
    throw ParseError(
        file, line, 1,
        "kernels over the limit of " + std::to_string(Parser::max_cta_shared_bytes()) +
            " bytes of .shared (the module's variables each reaches and its own): " + over);
  return m;
}

const Function* Module::find(const std::string& name) const {
  auto f = function_index.find(name);
  return f == function_index.end() ? nullptr : &functions[f->second];
}

std::vector<Unsupported> Module::unsupported() const {
  std::vector<Unsupported> out;
  for (const Function& f : functions)
    for (const Instruction& i : f.code)
      if (!i.unsupported.empty()) out.push_back({f.name, i.line, i.text, i.unsupported});
  return out;
}

}  // namespace cnuas::ptx
