// What the driver says on stderr: unsupported entry points once each, and
// debug lines.
#include <iostream>
#include <mutex>
#include <set>

#include "driver/driver_internal.h"
#include "engine/runtime.h"

namespace cnuas::cuda {

CUresult report_unsupported(const char* what) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  static auto* named = new std::set<std::string>;  // also used by libraries' destructors
  if (named->insert(what).second && Runtime::get().log_level() != LogLevel::Quiet)
    std::cerr << "cnuas: " << what
              << " is not supported by the simulator; it returns not-supported "
                 "(CUDA_ERROR_NOT_SUPPORTED)\n";
  return driver::kNotSupported;
}

void driver_debug(const std::string& line) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  if (Runtime::get().log_level() >= LogLevel::Debug) std::cerr << "cnuas: " << line << "\n";
}

}  // namespace cnuas::cuda
