#include "ptx/errors.h"

namespace cnuas::ptx {

ParseError::ParseError(const std::string& f, std::uint32_t l, std::uint32_t c,
                       const std::string& message)
    : std::runtime_error(f + ":" + std::to_string(l) + ":" + std::to_string(c) + ": " + message),
      file(f),
      line(l),
      column(c) {}

static std::string dim(Dim3 d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

ExecutionError::ExecutionError(const std::string& k, Dim3 c, Dim3 t, std::uint32_t l,
                               const std::string& statement, const std::string& message)
    : std::runtime_error("kernel " + k + ", CTA " + dim(c) + ", thread " + dim(t) + ", PTX line " +
                         std::to_string(l) + " '" + statement + "': " + message),
      kernel(k),
      cta(c),
      thread(t),
      line(l) {}

}  // namespace cnuas::ptx
