// The driver's JIT linker (cuLinkCreate ... cuLinkDestroy): PTX inputs, and
// fat binaries, host objects, libraries and NVRTC cubins for the PTX they
// carry, linked into one image (the linked PTX text) that cuModuleLoadData
// loads. Link errors go to the CU_JIT_ERROR_LOG_BUFFER the program gave.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "driver/driver_entry.h"
#include "driver/driver_internal.h"
#include "engine/device_images.h"
#include "engine/runtime.h"
#include "ptx/device_runtime.h"
#include "ptx/ir.h"

using namespace cnuas::cuda;
using namespace cnuas::cuda::driver;

namespace {

// CUjit_option values the linker reads.
constexpr int kInfoLogBuffer = 3, kInfoLogBufferSize = 4, kErrorLogBuffer = 5,
              kErrorLogBufferSize = 6, kTarget = 9;
// CUjitInputType.
enum InputType { kCubin = 0, kPtx = 1, kFatbinary = 2, kObject = 3, kLibrary = 4, kNvvm = 5 };

// A log buffer the program owns: the text goes into `buffer` (NUL-terminated,
// cut to fit) and the bytes written into the option value slot, as CUDA does.
struct Log {
  char* buffer = nullptr;
  std::size_t capacity = 0;
  void** size_slot = nullptr;
  std::string text;
  void append(const std::string& line) {
    text += line + "\n";
    if (!buffer || capacity == 0) return;
    const std::size_t n = std::min(text.size(), capacity - 1);
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
    if (size_slot) *size_slot = reinterpret_cast<void*>(static_cast<std::uintptr_t>(n + 1));
  }
};

struct LinkState {
  unsigned arch = 90;
  std::vector<PtxUnit> units;
  Log info, error;
  std::string image;  // the linked PTX, once complete
};

std::set<LinkState*>& states() {
  static std::set<LinkState*> s;
  return s;
}

LinkState* state_of(void* handle) {
  auto* s = static_cast<LinkState*>(handle);
  return states().count(s) ? s : nullptr;
}

// Adds the PTX of a fat binary's best entry; false when it holds none.
bool add_fatbin(LinkState& st, const std::vector<FatbinEntry>& entries, const std::string& name,
                bool from_library = false) {
  const FatbinEntry* e = select_ptx(entries, st.arch);
  if (!e) return false;
  st.units.push_back({fmt::format("{} (compute_{})", name, e->arch), e->text, from_library});
  return true;
}

// Adds every fat binary of a host object with PTX; false when none has.
bool add_object(LinkState& st, const std::uint8_t* data, std::size_t size, const std::string& name,
                bool from_library = false) {
  bool any = false;
  const auto fatbins = object_fatbins(data, size);
  for (std::size_t i = 0; i < fatbins.size(); ++i)
    any = add_fatbin(st, fatbins[i], fatbins.size() == 1 ? name : fmt::format("{}#{}", name, i + 1),
                     from_library) ||
          any;
  return any;
}

CUresult add_input(LinkState& st, int type, const std::uint8_t* data, std::size_t size,
                   const std::string& name) {
  try {
    switch (type) {
      case kPtx: {
        std::string text(reinterpret_cast<const char*>(data),
                         size ? strnlen(reinterpret_cast<const char*>(data), size)
                              : std::strlen(reinterpret_cast<const char*>(data)));
        try {
          cnuas::ptx::Module::parse(text, name);  // what the JIT compiler checks of each input
        } catch (const std::exception& e) {
          st.error.append(fmt::format("error: {}", e.what()));
          return kInvalidPtx;
        }
        st.units.push_back({name, std::move(text)});
        return kSuccess;
      }
      case kFatbinary: {
        std::uint32_t magic = 0;
        std::memcpy(&magic, data, 4);
        if (magic == kFatbinWrapperMagic)
          data = reinterpret_cast<const std::uint8_t*>(
              reinterpret_cast<const FatbinWrapper*>(data)->data);
        const auto entries = parse_fatbin(data, fatbin_read_limit(data), false);
        if (add_fatbin(st, entries, name)) return kSuccess;
        st.error.append(fmt::format("error: {}: {}", name, missing_ptx_advice(entries, st.arch)));
        return kNoBinaryForGpu;
      }
      case kCubin: {
        const std::vector<PtxUnit> units =
            is_elf(data) ? nvrtc_ptx_of(data, elf_size(data)) : std::vector<PtxUnit>();
        if (units.empty()) {
          st.error.append(fmt::format(
              "error: {} is a cubin (machine code for a real GPU) no NVRTC or nvJitLink call of "
              "this process produced; the simulator runs PTX: add PTX instead",
              name));
          return kNoBinaryForGpu;
        }
        for (const PtxUnit& u : units) st.units.push_back({name + ": " + u.name, u.text});
        return kSuccess;
      }
      case kObject:
        if (add_object(st, data, size, name)) return kSuccess;
        st.error.append(
            fmt::format("error: {} embeds no PTX for compute_{} or below", name, st.arch));
        return kNoBinaryForGpu;
      case kLibrary:
        // A member is linked when it defines what the rest refers to; members
        // without PTX contribute nothing (the device runtime library,
        // libcudadevrt.a, carries cubins only: the engine provides its calls).
        for (const ArchiveMember& m : archive_members(data, size))
          if (is_elf(m.data)) add_object(st, m.data, m.size, name + "(" + m.name + ")", true);
        return kSuccess;
      default:
        st.error.append(fmt::format(
            "error: {}: input type {} (NVVM IR / LTO-IR) is not supported: the simulator links PTX",
            name, type));
        return type == kNvvm ? kNotSupported : kInvalidValue;
    }
  } catch (const FatbinError& e) {
    st.error.append(fmt::format("error: {}: {}", name, e.what()));
    return kInvalidImage;
  }
}

}  // namespace

extern "C" {

CUresult cuLinkCreate_v2(unsigned count, int* options, void** values, void** state_out) {
  DRIVER_ENTER();
  const int device = rt.context_device();
  if (device < 0) return kInvalidContext;
  if (!state_out || (count && (!options || !values))) return kInvalidValue;
  auto st = std::make_unique<LinkState>();
  st->arch = rt.device(device).desc.arch;
  for (unsigned i = 0; i < count; ++i) {
    const auto value = reinterpret_cast<std::uintptr_t>(values[i]);
    switch (options[i]) {
      case kInfoLogBuffer:
        st->info.buffer = static_cast<char*>(values[i]);
        break;
      case kInfoLogBufferSize:
        st->info.capacity = value;
        st->info.size_slot = &values[i];
        break;
      case kErrorLogBuffer:
        st->error.buffer = static_cast<char*>(values[i]);
        break;
      case kErrorLogBufferSize:
        st->error.capacity = value;
        st->error.size_slot = &values[i];
        break;
      case kTarget:  // CUjit_target: the compute capability x 10
        st->arch = static_cast<unsigned>(value);
        break;
      default:  // code generation options: PTX is interpreted
        break;
    }
  }
  // Nothing written yet: the logs are empty strings.
  for (Log* log : {&st->info, &st->error}) {
    if (log->buffer && log->capacity) log->buffer[0] = '\0';
    if (log->size_slot) *log->size_slot = nullptr;
  }
  *state_out = st.get();
  states().insert(st.release());
  return kSuccess;
}

CUresult cuLinkCreate(unsigned count, int* options, void** values, void** state_out) {
  return cuLinkCreate_v2(count, options, values, state_out);
}

CUresult cuLinkAddData_v2(void* state, int type, void* data, std::size_t size, const char* name,
                          unsigned, int*, void**) {
  DRIVER_ENTER();
  LinkState* st = state_of(state);
  if (!st) return kInvalidHandle;
  if (!data || (type != kPtx && size == 0)) return kInvalidValue;
  return add_input(*st, type, static_cast<const std::uint8_t*>(data), size,
                   name && *name ? name : fmt::format("input {}", st->units.size() + 1));
}

CUresult cuLinkAddData(void* state, int type, void* data, std::size_t size, const char* name,
                       unsigned count, int* options, void** values) {
  return cuLinkAddData_v2(state, type, data, size, name, count, options, values);
}

CUresult cuLinkAddFile_v2(void* state, int type, const char* path, unsigned count, int* options,
                          void** values) {
  std::string bytes;
  {
    DRIVER_ENTER();
    if (!state_of(state)) return kInvalidHandle;
    if (!path) return kInvalidValue;
    std::ifstream in(path, std::ios::binary);
    if (!in) return kFileNotFound;
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (bytes.empty()) return kInvalidImage;
  }
  bytes.push_back('\0');  // PTX text must end in a NUL
  return cuLinkAddData_v2(state, type, bytes.data(), bytes.size() - 1, path, count, options,
                          values);
}

CUresult cuLinkAddFile(void* state, int type, const char* path, unsigned count, int* options,
                       void** values) {
  return cuLinkAddFile_v2(state, type, path, count, options, values);
}

CUresult cuLinkComplete(void* state, void** image_out, std::size_t* size_out) {
  DRIVER_ENTER();
  LinkState* st = state_of(state);
  if (!st) return kInvalidHandle;
  if (!image_out) return kInvalidValue;
  try {
    st->image = link_ptx(st->units, cnuas::ptx::is_builtin_function);
  } catch (const PtxLinkError& e) {
    st->error.append(fmt::format("error: {}", e.what()));
    return kInvalidImage;
  }
  st->info.append(fmt::format("info: linked {} PTX unit{}", st->units.size(),
                              st->units.size() == 1 ? "" : "s"));
  *image_out = st->image.data();
  if (size_out) *size_out = st->image.size() + 1;
  return kSuccess;
}

CUresult cuLinkDestroy(void* state) {
  DRIVER_ENTER();
  LinkState* st = state_of(state);
  if (!st) return kInvalidHandle;
  states().erase(st);
  delete st;
  return kSuccess;
}

}  // extern "C"
