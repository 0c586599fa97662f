// libFuzzer entry point: any bytes as a platform file go through what
// `cnuas validate` does before elaboration (the loader with its includes,
// element parameters resolved, the topology, the inline workload) and either
// load or throw InputError; a crash, a sanitizer report, another exception, a
// hang or a huge allocation is a finding. The text stays in memory; it is
// named as if it were in platforms/, so includes and profiles of the shipped
// platforms resolve as they do for the originals.
#include <cstddef>
#include <cstdint>

#include "core/inputs/platform.h"
#include "core/inputs/topology.h"
#include "core/inputs/workload.h"
#include "core/inputs/yaml_source.h"
#include "fuzz_files.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cnuas;
  try {
    PlatformDesc platform = load_platform(
        load_yaml_text(fuzz::text_of(data, size), CNUAS_SOURCE_DIR "/platforms/fuzzed.yaml"));
    resolve_platform(platform);
    Topology topology(platform);
    if (platform.workload)
      (void)load_workload(platform.workload, platform.workload_file, platform, topology);
  } catch (const InputError&) {
  }
  return 0;
}
