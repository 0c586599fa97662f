// Libraries, modules and kernels as a statically linked CUDA runtime loads
// them: one module per fat binary, read when a kernel of it is first needed
// (a library registers hundreds and runs a few), kernels found by name.
// A CUlibrary is its module; a CUkernel and the CUfunction it gives are the
// same handle, since the simulated GPU has one context per device.
#include <dlfcn.h>

#include <cstring>
#include <deque>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "driver/driver_internal.h"
#include "engine/device_images.h"

using namespace cnuas::cuda;
using namespace cnuas::cuda::driver;

namespace {

constexpr std::uint32_t kElfMagic = 0x464c457f;  // "\x7fELF": a cubin

// Where an image lies, for messages: "fat binary 0x... in libcublas.so.13".
std::string describe(const void* image) {
  Dl_info info{};
  if (dladdr(image, &info) && info.dli_fname)
    return fmt::format("fat binary {} in {}", image, info.dli_fname);
  return fmt::format("fat binary {}", image);
}

Module* add_module(std::unique_ptr<Module> m) {
  auto& modules = Registrations::get().modules;
  modules.push_back(std::move(m));
  return modules.back().get();
}

Module* module_of(CUmodule m) {
  return reinterpret_cast<Module*>(m);
}

Kernel* kernel_of(void* k) {
  return static_cast<Kernel*>(k);
}

// The file an address lies in: "libcublasLt.so.13", the program's name, or
// "program" for data outside every file (an image the program read itself).
std::string file_of(const void* address) {
  Dl_info info{};
  if (!dladdr(address, &info) || !info.dli_fname || !*info.dli_fname) return "program";
  const std::string path = info.dli_fname;
  return path.substr(path.find_last_of('/') + 1);
}

// Says once per library (or for the program) why its kernels cannot run,
// and what to do.
void advise(const void* caller, const std::string& what) {
  static auto* advised = new std::set<std::string>;
  const std::string file = file_of(caller);
  if (!advised->insert(file).second || Runtime::get().log_level() == cnuas::LogLevel::Quiet) return;
  if (file.find(".so") == std::string::npos) {  // the program's own image
    std::cerr << "cnuas: the program " << what
              << "; the simulator runs PTX: give it PTX, or a fat binary built with "
                 "-gencode arch=compute_XX,code=compute_XX\n";
    return;
  }
  std::cerr << "cnuas: " << file << " " << what
            << "; the simulator runs PTX, and a CUDA library hands the driver its fat binaries "
               "(from which the driver picks the PTX) only on a GPU newer than every cubin it "
               "carries: run it with --gpu-compute-capability 13.0 "
               "(CNUAS_GPU_COMPUTE_CAPABILITY=13.0), see docs/cuda-runtime.md\n";
}

}  // namespace

namespace cnuas::cuda {

CUresult load_library_image(CUmodule* module, const void* image, const void* caller) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  if (!module || !image) return kInvalidValue;
  std::uint32_t magic = 0;
  std::memcpy(&magic, image, sizeof magic);
  if (magic == kFatbinWrapperMagic) {
    struct Wrapper {
      std::uint32_t magic, version;
      const void* data;
    };
    image = static_cast<const Wrapper*>(image)->data;
    std::memcpy(&magic, image, sizeof magic);
  }
  auto m = std::make_unique<Module>();
  if (magic == kFatbinMagic) {
    // As the driver does, refuse at once a fat binary with nothing this GPU
    // runs (here: no PTX for its compute capability or below); a library
    // then leaves the kernels in it out of its choices.
    const auto* bytes = static_cast<const std::uint8_t*>(image);
    std::vector<FatbinEntry> entries;
    try {
      entries = parse_fatbin(bytes, fatbin_read_limit(bytes), false, false);
    } catch (const FatbinError& e) {
      driver_debug(fmt::format("{}: {}", describe(image), e.what()));
      return kInvalidImage;
    }
    const unsigned arch = Runtime::get().device(0).desc.arch;
    if (!select_ptx(entries, arch)) {
      driver_debug(fmt::format("{}: no PTX for compute capability {}.{} or below (it has: {})",
                               describe(image), arch / 10, arch % 10, entry_list(entries)));
      advise(image, fmt::format("has a fat binary with no PTX for compute capability {}.{} or "
                                "below (it has: {})",
                                arch / 10, arch % 10, entry_list(entries)));
      return kNoBinaryForGpu;
    }
    m->image = bytes;
    m->origin = describe(image);
  } else if (magic == kElfMagic) {
    // A cubin NVRTC or nvJitLink made in this process loads as its PTX
    // (engine/cubin_modules.cpp); any other is machine code the simulator cannot run.
    const auto* bytes = static_cast<const std::uint8_t*>(image);
    const std::size_t size = elf_size(bytes);
    if (size && !nvrtc_ptx_of(bytes, size).empty()) {
      Module* elf = nullptr;
      const cudaError_t e = Runtime::get().load_elf_image(bytes, &elf);
      *module = reinterpret_cast<CUmodule>(elf);
      return driver_code(e);
    }
    driver_debug(fmt::format("{}: a cubin (machine code for a real GPU); the simulator runs PTX",
                             describe(image)));
    const unsigned arch = Runtime::get().device(0).desc.arch;
    advise(caller, fmt::format("loads a cubin, machine code it chose for compute capability {}.{}",
                               arch / 10, arch % 10));
    return kNoBinaryForGpu;
  } else {
    m->ptx = static_cast<const char*>(image);
    m->origin = "PTX module image";
  }
  *module = reinterpret_cast<CUmodule>(add_module(std::move(m)));
  return kSuccess;
}

}  // namespace cnuas::cuda

extern "C" {

// CUDA 12's libraries: JIT and library options do not apply (PTX is interpreted).
CUresult cuLibraryLoadData(void** library, const void* code, void*, void**, unsigned, void*, void**,
                           unsigned) {
  DRIVER_ENTER();
  return load_library_image(reinterpret_cast<CUmodule*>(library), code,
                            __builtin_return_address(0));
}

CUresult cuLibraryLoadFromFile(void** library, const char* path, void*, void**, unsigned, void*,
                               void**, unsigned) {
  std::lock_guard<std::recursive_mutex> guard(Runtime::lock());
  if (!library || !path) return kInvalidValue;
  std::ifstream in(path, std::ios::binary);
  if (!in) return kFileNotFound;
  // The module reads its image when first used; a deque never moves its elements.
  static std::deque<std::string> images;
  images.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return cuLibraryLoadData(library, images.back().c_str(), nullptr, nullptr, 0, nullptr, nullptr,
                           0);
}

// Modules stay loaded: their kernels may still be queued on a stream.
CUresult cuLibraryUnload(void* library) {
  DRIVER_ENTER();
  return library ? kSuccess : kInvalidHandle;
}

CUresult cuLibraryGetModule(CUmodule* module, void* library) {
  DRIVER_ENTER();
  if (!module || !library) return kInvalidValue;
  *module = static_cast<CUmodule>(library);
  return kSuccess;
}

// The kernel is looked for when it is first used, as with lazy loading.
CUresult cuLibraryGetKernel(void** kernel, void* library, const char* name) {
  DRIVER_ENTER();
  if (!kernel || !library || !name) return kInvalidValue;
  *kernel = rt.kernel_handle(static_cast<Module*>(library), name);
  return kSuccess;
}

CUresult cuKernelGetFunction(CUfunction* function, void* kernel) {
  DRIVER_ENTER();
  if (!function || !kernel) return kInvalidValue;
  Kernel* k = kernel_of(kernel);
  if (const cudaError_t e = rt.ensure_loaded(*k->module)) return driver_code(e);
  if (!rt.function(*k)) return kNotFound;
  *function = reinterpret_cast<CUfunction>(k);
  return kSuccess;
}

CUresult cuKernelGetName(const char** name, void* kernel) {
  DRIVER_ENTER();
  if (!name || !kernel) return kInvalidValue;
  *name = kernel_of(kernel)->name.c_str();
  return kSuccess;
}

CUresult cuFuncGetName(const char** name, CUfunction function) {
  return cuKernelGetName(name, function);
}

CUresult cuKernelGetLibrary(void** library, void* kernel) {
  DRIVER_ENTER();
  if (!library || !kernel) return kInvalidValue;
  *library = kernel_of(kernel)->module;
  return kSuccess;
}

CUresult cuFuncGetModule(CUmodule* module, CUfunction function) {
  DRIVER_ENTER();
  if (!module || !function) return kInvalidValue;
  *module = reinterpret_cast<CUmodule>(kernel_of(function)->module);
  return kSuccess;
}

// CU_FUNCTION_LOADING_STATE_LOADED (1) once its module is parsed, UNLOADED (0) before.
CUresult cuFuncIsLoaded(int* state, CUfunction function) {
  DRIVER_ENTER();
  if (!state || !function) return kInvalidValue;
  *state = kernel_of(function)->module->loaded ? 1 : 0;
  return kSuccess;
}

CUresult cuFuncLoad(CUfunction function) {
  DRIVER_ENTER();
  if (!function) return kInvalidHandle;
  return driver_code(rt.ensure_loaded(*kernel_of(function)->module));
}

CUresult cuLibraryGetGlobal(CUdeviceptr* ptr, std::size_t* bytes, void* library, const char* name) {
  DRIVER_ENTER();
  if (!library || !name) return kInvalidValue;
  std::uint64_t a = 0;
  std::size_t size = 0;
  if (const cudaError_t e = rt.symbol_by_name(static_cast<Module*>(library), name, &a, &size))
    return driver_code(e);
  if (ptr) *ptr = a;
  if (bytes) *bytes = size;
  return kSuccess;
}

// CU_MODULE_LAZY_LOADING: modules are read when a kernel of theirs is first needed.
CUresult cuModuleGetLoadingMode(int* mode) {
  if (!mode) return kInvalidValue;
  *mode = 2;
  return kSuccess;
}

CUresult cuModuleLoadFatBinary(CUmodule* module, const void* image) {
  DRIVER_ENTER();
  DRIVER_NEEDS_CONTEXT();
  if (!module || !image) return kInvalidValue;
  if (const CUresult r = load_library_image(module, image, __builtin_return_address(0))) return r;
  return driver_code(rt.ensure_loaded(*module_of(*module)));
}

}  // extern "C"
