#include "lexer.h"

#include <cctype>
#include <cstring>

#include "ptx/errors.h"

namespace cnuas::ptx {
namespace {

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%' ||
         c == '.';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}

}  // namespace

std::vector<Token> tokenize(const std::string& text, const std::string& file) {
  std::vector<Token> out;
  std::uint32_t line = 1, col = 1;
  std::size_t i = 0;
  auto advance = [&](std::size_t n) {
    for (std::size_t k = 0; k < n && i < text.size(); ++k, ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n' || c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      advance(1);
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') advance(1);
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const std::uint32_t l = line, cc = col;
      const std::size_t end = text.find("*/", i + 2);
      if (end == std::string::npos) throw ParseError(file, l, cc, "unterminated /* comment");
      advance(end + 2 - i);
      continue;
    }
    Token t;
    t.line = line;
    t.column = col;
    if (c == '"') {
      std::size_t j = i + 1;
      while (j < text.size() && text[j] != '"' && text[j] != '\n') j += text[j] == '\\' ? 2 : 1;
      if (j >= text.size() || text[j] != '"')
        throw ParseError(file, line, col, "unterminated string");
      t.kind = Token::Kind::String;
      t.text = text.substr(i + 1, j - i - 1);
      advance(j + 1 - i);
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      // 0x.., 0f.., 0d.. (hex float bits), decimals with '.', exponents, and the U suffix.
      if (c == '0' && j + 1 < text.size() && std::strchr("xXfFdDbB", text[j + 1])) {
        j += 2;
        while (j < text.size() && std::isxdigit(static_cast<unsigned char>(text[j]))) ++j;
      } else {
        while (j < text.size() &&
               (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.' ||
                text[j] == 'e' || text[j] == 'E' ||
                ((text[j] == '+' || text[j] == '-') && (text[j - 1] == 'e' || text[j - 1] == 'E'))))
          ++j;
      }
      if (j < text.size() && text[j] == 'U') ++j;
      t.kind = Token::Kind::Number;
      t.text = text.substr(i, j - i);
      advance(j - i);
    } else if (ident_start(c)) {
      std::size_t j = i + 1;
      // "shared::cta", "L2::128B": a scope qualifier stays inside the word.
      while (j < text.size()) {
        if (ident_char(text[j])) {
          ++j;
        } else if (text[j] == ':' && j + 2 < text.size() && text[j + 1] == ':' &&
                   ident_char(text[j + 2])) {
          j += 2;
        } else {
          break;
        }
      }
      t.kind = Token::Kind::Ident;
      t.text = text.substr(i, j - i);
      advance(j - i);
    } else if (std::strchr(",;:()[]{}<>+-!@|=*/%&^~", c)) {
      t.kind = Token::Kind::Punct;
      t.text = std::string(1, c);
      advance(1);
    } else {
      throw ParseError(file, line, col,
                       std::string("unexpected character '") + c + "' in PTX text");
    }
    out.push_back(std::move(t));
  }
  Token end;
  end.line = line;
  end.column = col;
  out.push_back(end);
  return out;
}

}  // namespace cnuas::ptx
