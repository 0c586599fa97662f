#include <fmt/format.h>

#include "gpu/device.h"

namespace cnuas::gpu {

// Out of line, so that the interface's type information lives in this library
// and a plugin's device is recognized by the runtime's dynamic_cast.
Device::~Device() = default;

KernelTiming parse_timing(const std::string& text, const SourceLocation& where,
                          const std::string& what) {
  if (text == "analytic") return KernelTiming::Analytic;
  if (text == "performance") return KernelTiming::Performance;
  if (text == "functional") return KernelTiming::Functional;
  throw InputError(
      where, fmt::format("{} is '{}'; accepted: analytic, performance, functional", what, text));
}

std::map<std::string, KernelTiming> parse_kernel_modes(const std::string& text,
                                                       const SourceLocation& where,
                                                       const std::string& what) {
  std::map<std::string, KernelTiming> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(',', at);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(at, end - at);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(
          where, fmt::format("{}: '{}' is not KERNEL=MODE (e.g. sgemm=performance)", what, item));
    const std::string kernel = item.substr(0, eq);
    out[kernel] = parse_timing(item.substr(eq + 1), where, what + " for " + kernel);
    at = end + 1;
  }
  return out;
}

}  // namespace cnuas::gpu
