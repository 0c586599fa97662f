// cuGetProcAddress: a driver entry point by its base name, in the ABI version
// the caller was built for (proc_address_table.inc, from cudaTypedefs.h), as
// exported by this library: the newest version introduced at or before the
// requested CUDA version, its per-thread-stream form when asked for and one
// exists.
#include <dlfcn.h>

#include <cstdint>
#include <cstring>

#include "cuda_abi.h"
#include "driver/driver_internal.h"

using namespace cnuas::cuda::driver;

namespace {

struct EntryPoint {
  const char* name;
  int version;  // the CUDA version that introduced this ABI version
  const char* symbol;
  bool per_thread;  // the per-thread default stream form (_ptsz/_ptds)
};

constexpr EntryPoint kEntryPoints[] = {
#include "driver/proc_address_table.inc"
};

constexpr int kDriverVersion = 13000;  // cuDriverGetVersion
constexpr std::uint64_t kLegacyStream = 1, kPerThreadStream = 2;
enum QueryResult { kFound = 0, kSymbolNotFound = 1, kVersionNotSufficient = 2 };

// The newest entry of `name` (in the per-thread or legacy form) at or before `version`.
const EntryPoint* newest(const char* name, int version, bool per_thread) {
  const EntryPoint* best = nullptr;
  for (const EntryPoint& e : kEntryPoints)
    if (e.per_thread == per_thread && e.version <= version && std::strcmp(e.name, name) == 0 &&
        (!best || e.version > best->version))
      best = &e;
  return best;
}

bool known(const char* name) {
  for (const EntryPoint& e : kEntryPoints)
    if (std::strcmp(e.name, name) == 0) return true;
  return false;
}

// This library's own definition of a symbol, whatever else the process loaded.
void* own_symbol(const char* symbol) {
  static void* self = [] {
    static const int anchor = 0;
    Dl_info info{};
    return dladdr(&anchor, &info) ? dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD) : nullptr;
  }();
  return self ? dlsym(self, symbol) : nullptr;
}

// Flags 0 (default) search the legacy forms: a program built for the per-thread
// default stream asks for those explicitly (cuda.h's cuGetProcAddress_v2_ptsz).
CUresult look_up(const char* name, void** pfn, int version, std::uint64_t flags, int* status) {
  if (!name || !pfn || version > kDriverVersion || flags > (kLegacyStream | kPerThreadStream))
    return kInvalidValue;
  *pfn = nullptr;
  const bool per_thread = (flags & kPerThreadStream) != 0;
  const EntryPoint* e = per_thread ? newest(name, version, true) : nullptr;
  if (!e) e = newest(name, version, false);
  if (e) *pfn = own_symbol(e->symbol);
  if (status) *status = *pfn ? kFound : known(name) ? kVersionNotSufficient : kSymbolNotFound;
  return *pfn ? kSuccess : kNotFound;
}

}  // namespace

extern "C" {

CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version, std::uint64_t flags,
                             int* status) {
  return look_up(symbol, pfn, version, flags, status);
}

CUresult cuGetProcAddress(const char* symbol, void** pfn, int version, std::uint64_t flags) {
  return look_up(symbol, pfn, version, flags, nullptr);
}

}  // extern "C"
