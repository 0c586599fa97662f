#include "engine/library_capability.h"

#include <link.h>

#include <cstring>

namespace cnuas::cuda {

namespace {

// Shared objects whose kernels come as cubins for old GPUs and PTX only for
// the newest ones: NVIDIA's CUDA math and deep-learning libraries.
constexpr const char* kLibraries[] = {
    "libcublasLt.so", "libcublas.so", "libcudnn",     "libcurand.so", "libcusparse.so",
    "libcusolver",    "libcufft.so",  "libnvblas.so", "libnpp",       "libnvjpeg.so"};

int find_library(dl_phdr_info* info, std::size_t, void* data) {
  const char* path = info->dlpi_name;
  if (!path || !*path) return 0;
  const char* slash = std::strrchr(path, '/');
  const char* name = slash ? slash + 1 : path;
  for (const char* lib : kLibraries)
    if (std::strncmp(name, lib, std::strlen(lib)) == 0) {
      *static_cast<std::string*>(data) = name;
      return 1;
    }
  return 0;
}

}  // namespace

std::optional<std::string> loaded_library_needing_newer_gpu() {
  std::string found;
  dl_iterate_phdr(find_library, &found);
  if (found.empty()) return std::nullopt;
  return found;
}

}  // namespace cnuas::cuda
