// libFuzzer entry point: any bytes as a profile either load and resolve
// against their type's schema (what `cnuas validate --profile` does) or throw
// InputError; anything else is a finding. The loader takes a path, so the
// bytes go to a tmpfs file of this process, beside copies of the shipped
// profiles: `base: gen4-x16.yaml` or `base: ../gpu/h100-sxm.yaml` resolve.
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "core/inputs/profile.h"
#include "core/kernel/registry.h"
#include "fuzz_files.h"

namespace {

// The shipped profiles, copied once into this process's scratch directory.
void copy_shipped_profiles() {
  static const bool copied = [] {
    std::filesystem::copy(CNUAS_SOURCE_DIR "/profiles", cnuas::fuzz::scratch_dir() + "/profiles",
                          std::filesystem::copy_options::recursive);
    return true;
  }();
  (void)copied;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cnuas;
  copy_shipped_profiles();
  const std::string path =
      fuzz::write_scratch("profiles/pcie/fuzzed.yaml", fuzz::text_of(data, size));
  try {
    const ProfileDoc doc = load_profile(path);
    (void)resolve_params(*Registry::instance().find(doc.type)->schema, doc.values,
                         "profile " + path, SourceLocation{path});
  } catch (const InputError&) {
  }
  return 0;
}
