// A captured launch set up to run alone on the PTX engine: its buffers mapped
// at the addresses they had, its module loaded with its variables restored.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "capture.h"
#include "ptx/executor.h"
#include "ptx/memory.h"

namespace cnuas::debugger {

struct ReplaySetup {
  ptx::DeviceMemory memory;
  std::vector<std::vector<std::uint8_t>> storage;  // each buffer's bytes, mapped at its base
  std::shared_ptr<const ptx::Module> module;
  std::unique_ptr<ptx::LoadedModule> loaded;
  ptx::LaunchConfig config;
};

// Throws InputError for PTX that does not parse, a kernel the module lacks or
// buffers that cannot be placed at their addresses (`path` names the capture).
std::unique_ptr<ReplaySetup> prepare_replay(const Capture& c, const std::string& path);

// How the memory after a replay compares with the captured outputs: "" when
// every buffer and variable is byte-identical, else the first difference
// (buffer, offset, both bytes) and how many bytes differ in all.
std::string compare_outputs(const Capture& c, const ReplaySetup& r);

}  // namespace cnuas::debugger
