// Text placed in SVG and HTML documents: the three characters that would be
// read as markup are written as entities.
#pragma once

#include <string>

namespace cnuas {

inline std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

}  // namespace cnuas
