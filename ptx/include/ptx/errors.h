// Errors from the PTX engine. Both say where: a parse error names file:line:col
// and the offending text; an execution error names the kernel, CTA, thread,
// PTX line and, for memory faults, the address.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace cnuas::ptx {

class ParseError : public std::runtime_error {
 public:
  ParseError(const std::string& file, std::uint32_t line, std::uint32_t column,
             const std::string& message);
  std::string file;
  std::uint32_t line, column;
};

struct Dim3 {
  std::uint32_t x = 1, y = 1, z = 1;
  std::uint64_t count() const { return std::uint64_t{x} * y * z; }
};

class ExecutionError : public std::runtime_error {
 public:
  ExecutionError(const std::string& kernel, Dim3 cta, Dim3 thread, std::uint32_t line,
                 const std::string& statement, const std::string& message);
  std::string kernel;
  Dim3 cta, thread;
  std::uint32_t line;
};

}  // namespace cnuas::ptx
