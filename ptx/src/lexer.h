// PTX tokens: identifiers (with dots, so "ld.global.u32" and "%tid.x" are one
// token), numbers, strings and punctuation, each with its line and column.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cnuas::ptx {

struct Token {
  enum class Kind : std::uint8_t { Ident, Number, String, Punct, End };
  Kind kind = Kind::End;
  std::string text;
  std::uint32_t line = 0, column = 0;
  bool is(char c) const { return kind == Kind::Punct && text.size() == 1 && text[0] == c; }
};

// Throws ParseError on a character PTX does not use or an unterminated comment/string.
std::vector<Token> tokenize(const std::string& text, const std::string& file);

}  // namespace cnuas::ptx
