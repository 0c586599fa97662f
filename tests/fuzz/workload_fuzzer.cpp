// libFuzzer entry point: any bytes as a workload file for the shipped
// platforms/h100-node.yaml (host, PCIe root, HBM, tensor unit; the platform
// workloads/gemm-offload.yaml was written for) either load or throw
// InputError; anything else is a finding. The text stays in memory.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/inputs/platform.h"
#include "core/inputs/topology.h"
#include "core/inputs/workload.h"
#include "core/inputs/yaml_source.h"
#include "fuzz_files.h"

namespace {

struct FixedPlatform {
  cnuas::PlatformDesc platform;
  std::unique_ptr<cnuas::Topology> topology;
};

FixedPlatform& fixed_platform() {
  static FixedPlatform fixed = [] {
    FixedPlatform f;
    f.platform =
        cnuas::load_platform(cnuas::load_yaml_file(CNUAS_SOURCE_DIR "/platforms/h100-node.yaml"));
    cnuas::resolve_platform(f.platform);
    f.topology = std::make_unique<cnuas::Topology>(f.platform);
    return f;
  }();
  return fixed;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cnuas;
  FixedPlatform& fixed = fixed_platform();
  const std::string file = CNUAS_SOURCE_DIR "/workloads/fuzzed.yaml";
  try {
    const YamlSource source = load_yaml_text(fuzz::text_of(data, size), file);
    (void)load_workload(source.root, file, fixed.platform, *fixed.topology);
  } catch (const InputError&) {
  }
  return 0;
}
