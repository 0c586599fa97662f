// Input errors carry where they happened; the command turns them into exit
// code 2. Internal errors (a bug in Cnuas or in a model) exit 1 and say so.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace cnuas {

struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based; 0 when unknown

  // "file:line:col", "file" or "" depending on what is known.
  std::string str() const {
    if (file.empty()) return {};
    if (line == 0) return file;
    return file + ":" + std::to_string(line) + ":" + std::to_string(column);
  }
};

// Bad input from the user: a file, a flag, a value. Never an internal fault.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(bounded(message)) {}
  InputError(const SourceLocation& where, const std::string& message)
      : std::runtime_error(bounded(where.str().empty() ? message : where.str() + ": " + message)) {}

 private:
  // A message quoting hostile input (a 10 MB value) is cut to a readable size.
  static std::string bounded(const std::string& message);
};

// A fault in Cnuas or in a model's own logic, never the user's input: the
// command reports it as an internal error with exit code 1.
class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& message) : std::logic_error(message) {}
};

// Nearest candidate by edit distance, or "" when none is plausibly meant.
std::string nearest_name(const std::string& word, const std::vector<std::string>& candidates);

// "a, b, c" for messages.
std::string join_names(const std::vector<std::string>& names, const char* separator = ", ");

}  // namespace cnuas
