// Device code images other than PTX text and plain fat binaries: ELF cubins
// (NVRTC's output), host objects and archives with embedded fat binaries
// (cuLink inputs), and the per-unit fat binaries of relocatable device code.
// Each yields PTX, which is what the simulator runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/ptx_linker.h"
#include "fatbin.h"

namespace cnuas::cuda {

bool is_elf(const void* image);
// The bytes an ELF image spans, read from its headers (0 when they are not ELF64).
std::size_t elf_size(const std::uint8_t* image);

// The PTX units NVRTC compiled the cubin `image` from in this process, as
// the preloaded NVRTC hook (libcnuas_nvrtc.so) recorded them; empty when the
// cubin did not come from NVRTC here or the hook is not loaded.
std::vector<PtxUnit> nvrtc_ptx_of(const std::uint8_t* image, std::size_t size);

// One module's PTX from units: a single unit as it is, several linked.
std::string ptx_of_units(const std::vector<PtxUnit>& units);

// The fat binary entries of a host object's (or executable's) .nv_fatbin and
// __nv_relfatbin sections: one list per fat binary. Throws FatbinError.
std::vector<std::vector<FatbinEntry>> object_fatbins(const std::uint8_t* elf, std::size_t size);

// The members of an `ar` archive (a static library): name and bytes.
struct ArchiveMember {
  std::string name;
  const std::uint8_t* data;
  std::size_t size;
};
// Throws FatbinError for a malformed archive.
std::vector<ArchiveMember> archive_members(const std::uint8_t* data, std::size_t size);

// The PTX of relocatable units (the fat binary of each translation unit of an
// `nvcc -rdc=true` program), linked: each unit contributes its PTX for the
// highest architecture not above `arch`; a unit without one contributes
// nothing and is named in `skipped` (the device runtime library carries
// cubins only). Throws PtxLinkError, or FatbinError when no unit has PTX.
std::string link_relocatable_units(const std::vector<std::vector<FatbinEntry>>& units,
                                   unsigned arch, const std::string& origin,
                                   std::vector<std::string>* skipped);

}  // namespace cnuas::cuda
