#include "gpu/kernel_names.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace cnuas::gpu {

std::string demangled(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;  // extern "C" kernels keep their names
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> text(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && text ? std::string(text.get()) : name;
}

}  // namespace cnuas::gpu
