#include "engine/device_images.h"

#include <dlfcn.h>
#include <elf.h>

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "ptx/device_runtime.h"

namespace cnuas::cuda {

bool is_elf(const void* image) {
  return std::memcmp(image, ELFMAG, SELFMAG) == 0;
}

std::size_t elf_size(const std::uint8_t* image) {
  Elf64_Ehdr h;
  std::memcpy(&h, image, sizeof h);
  if (!is_elf(image) || h.e_ident[EI_CLASS] != ELFCLASS64) return 0;
  std::size_t end =
      std::max<std::size_t>(sizeof h, h.e_shoff + std::size_t{h.e_shnum} * h.e_shentsize);
  end = std::max<std::size_t>(end, h.e_phoff + std::size_t{h.e_phnum} * h.e_phentsize);
  for (unsigned i = 0; i < h.e_shnum && h.e_shentsize >= sizeof(Elf64_Shdr); ++i) {
    Elf64_Shdr s;
    std::memcpy(&s, image + h.e_shoff + std::size_t{i} * h.e_shentsize, sizeof s);
    if (s.sh_type != SHT_NOBITS) end = std::max<std::size_t>(end, s.sh_offset + s.sh_size);
  }
  for (unsigned i = 0; i < h.e_phnum && h.e_phentsize >= sizeof(Elf64_Phdr); ++i) {
    Elf64_Phdr p;
    std::memcpy(&p, image + h.e_phoff + std::size_t{i} * h.e_phentsize, sizeof p);
    end = std::max<std::size_t>(end, p.p_offset + p.p_filesz);
  }
  return end;
}

std::vector<PtxUnit> nvrtc_ptx_of(const std::uint8_t* image, std::size_t size) {
  // Exported by libcnuas_nvrtc.so, which `cnuas exec` preloads.
  using Lookup = std::size_t (*)(const void*, std::size_t, const char* const**);
  const auto lookup = reinterpret_cast<Lookup>(dlsym(RTLD_DEFAULT, "cnuas_jit_ptx_of_image"));
  const char* const* texts = nullptr;
  const std::size_t n = lookup ? lookup(image, size, &texts) : 0;
  std::vector<PtxUnit> units;
  for (std::size_t i = 0; i < n; ++i)
    units.push_back({n == 1 ? "NVRTC's PTX" : fmt::format("NVRTC's PTX unit {}", i + 1), texts[i]});
  return units;
}

std::string ptx_of_units(const std::vector<PtxUnit>& units) {
  return units.size() == 1 ? units[0].text : link_ptx(units, ptx::is_builtin_function);
}

std::vector<std::vector<FatbinEntry>> object_fatbins(const std::uint8_t* elf, std::size_t size) {
  Elf64_Ehdr h;
  if (size < sizeof h || !is_elf(elf)) throw FatbinError("not an ELF object");
  std::memcpy(&h, elf, sizeof h);
  if (h.e_ident[EI_CLASS] != ELFCLASS64 || h.e_shentsize < sizeof(Elf64_Shdr) ||
      h.e_shoff + std::size_t{h.e_shnum} * h.e_shentsize > size || h.e_shstrndx >= h.e_shnum)
    throw FatbinError("the ELF object's section headers are not where its header says");
  auto section = [&](unsigned i) {
    Elf64_Shdr s;
    std::memcpy(&s, elf + h.e_shoff + std::size_t{i} * h.e_shentsize, sizeof s);
    return s;
  };
  const Elf64_Shdr names = section(h.e_shstrndx);
  std::vector<std::vector<FatbinEntry>> out;
  for (unsigned i = 0; i < h.e_shnum; ++i) {
    const Elf64_Shdr s = section(i);
    if (s.sh_name >= names.sh_size || s.sh_type == SHT_NOBITS || s.sh_offset + s.sh_size > size)
      continue;
    const char* name = reinterpret_cast<const char*>(elf + names.sh_offset + s.sh_name);
    if (std::strcmp(name, ".nv_fatbin") != 0 && std::strcmp(name, "__nv_relfatbin") != 0) continue;
    // Containers back to back, each aligned to 8 bytes.
    std::size_t at = 0;
    while (at + 16 <= s.sh_size) {
      const std::uint8_t* c = elf + s.sh_offset + at;
      std::uint32_t magic;
      std::memcpy(&magic, c, 4);
      if (magic != kFatbinMagic) {
        at += 8;
        continue;
      }
      const std::size_t bytes = fatbin_container_size(c);
      if (bytes > s.sh_size - at)
        throw FatbinError(fmt::format("fat binary in section {} overruns it", name));
      out.push_back(parse_fatbin(c, bytes, false));
      at += (bytes + 7) / 8 * 8;
    }
  }
  return out;
}

std::vector<ArchiveMember> archive_members(const std::uint8_t* data, std::size_t size) {
  static const char magic[] = "!<arch>\n";
  if (size < 8 || std::memcmp(data, magic, 8) != 0) throw FatbinError("not an ar archive");
  std::vector<ArchiveMember> out;
  std::string long_names;
  std::size_t at = 8;
  while (at + 60 <= size) {
    const char* header = reinterpret_cast<const char*>(data + at);
    std::string name(header, 16);
    const std::size_t bytes = std::strtoull(std::string(header + 48, 10).c_str(), nullptr, 10);
    if (bytes > size - at - 60)
      throw FatbinError(fmt::format("archive member at offset {} overruns the archive", at));
    const std::uint8_t* body = data + at + 60;
    name.erase(name.find_last_not_of(' ') + 1);
    if (name == "//") {
      long_names.assign(reinterpret_cast<const char*>(body), bytes);
    } else if (name != "/" && name != "/SYM64/") {
      if (name.size() > 1 && name[0] == '/' && std::isdigit(static_cast<unsigned char>(name[1]))) {
        const std::size_t off = std::strtoull(name.c_str() + 1, nullptr, 10);
        name = off < long_names.size() ? long_names.substr(off, long_names.find('/', off) - off)
                                       : name;
      } else if (!name.empty() && name.back() == '/') {
        name.pop_back();
      }
      out.push_back({name, body, bytes});
    }
    at += 60 + (bytes + 1) / 2 * 2;
  }
  return out;
}

std::string link_relocatable_units(const std::vector<std::vector<FatbinEntry>>& units,
                                   unsigned arch, const std::string& origin,
                                   std::vector<std::string>* skipped) {
  std::vector<PtxUnit> ptx;
  std::vector<FatbinEntry> everything;
  for (std::size_t i = 0; i < units.size(); ++i) {
    everything.insert(everything.end(), units[i].begin(), units[i].end());
    if (const FatbinEntry* e = select_ptx(units[i], arch))
      ptx.push_back({fmt::format("{} unit {} (compute_{})", origin, i + 1, e->arch), e->text});
    else if (skipped)
      skipped->push_back(fmt::format("unit {}", i + 1));
  }
  if (ptx.empty()) throw FatbinError(missing_ptx_advice(everything, arch));
  return link_ptx(ptx, ptx::is_builtin_function);
}

}  // namespace cnuas::cuda
