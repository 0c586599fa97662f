// Cubins: machine code for a real GPU, which the simulator cannot run. A cubin
// NVRTC or nvJitLink made in this process loads as the PTX it was made from,
// which the preloaded NVRTC hook kept (runtime/src/nvrtc/nvrtc_hook.cpp).
#include <iostream>

#include "engine/device_images.h"
#include "engine/runtime.h"

namespace cnuas::cuda {

cudaError_t Runtime::load_elf_image(const std::uint8_t* image, Module** out) {
  auto m = std::make_unique<Module>();
  const std::size_t size = elf_size(image);
  const std::vector<PtxUnit> units = size ? nvrtc_ptx_of(image, size) : std::vector<PtxUnit>();
  if (!units.empty()) {
    try {
      m->ptx = ptx_of_units(units);
    } catch (const PtxLinkError& e) {
      m->error = e.what();
      m->error_code = cudaErrorInvalidPtx;
    }
    m->origin = "the PTX the loaded cubin was compiled from";
  } else {
    m->origin = "a cubin image";
    m->error =
        "it holds machine code for a real GPU, which the simulator cannot run, and no NVRTC "
        "or nvJitLink call of this process produced it (their cubins load when the program "
        "runs under `cnuas exec`, which preloads libcnuas_nvrtc.so); load PTX instead "
        "(nvrtcGetPTX, nvcc -ptx or -gencode arch=compute_XX,code=compute_XX)";
    m->error_code = cudaErrorNoKernelImageForDevice;
  }
  if (!m->error.empty() && log_level_ != LogLevel::Quiet)
    std::cerr << "cnuas: cannot load " << m->origin << ": " << m->error << "\n";
  Registrations::get().modules.push_back(std::move(m));
  *out = Registrations::get().modules.back().get();
  return ensure_loaded(**out);
}

}  // namespace cnuas::cuda
