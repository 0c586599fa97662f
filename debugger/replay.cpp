#include "replay.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/kernel/errors.h"
#include "ptx/errors.h"
#include "ptx/stack.h"

namespace cnuas::debugger {

std::unique_ptr<ReplaySetup> prepare_replay(const Capture& c, const std::string& path) {
  auto r = std::make_unique<ReplaySetup>();
  r->memory.set_strict(false);  // as for a CUDA program
  // Each run of buffers that share pages gets a reservation of those pages
  // at their captured address, so that nothing else (the module's variables)
  // is placed there; then each buffer is mapped at its own address.
  std::uint64_t previous_end = 0;
  for (const CapturedBuffer& b : c.buffers) {
    if (b.base < previous_end || b.before.empty() || b.base + b.before.size() < b.base)
      throw InputError(fmt::format(
          "{}: corrupt capture: buffer at {:#x} ({} bytes) is empty or overlaps the one before it",
          path, b.base, b.before.size()));
    previous_end = b.base + b.before.size();
  }
  const auto page_of = [](std::uint64_t a) { return a & ~(ptx::kDevicePage - 1); };
  for (std::size_t i = 0; i < c.buffers.size();) {
    const std::uint64_t first = page_of(c.buffers[i].base);
    std::uint64_t end = c.buffers[i].base + c.buffers[i].before.size();
    std::size_t j = i + 1;
    while (j < c.buffers.size() && page_of(c.buffers[j].base) <= page_of(end - 1)) {
      end = std::max(end, c.buffers[j].base + c.buffers[j].before.size());
      ++j;
    }
    const std::uint64_t bytes = page_of(end - 1) + ptx::kDevicePage - first;
    std::uint64_t got = 0;
    try {
      got = r->memory.reserve(bytes, ptx::kDevicePage, first);
    } catch (const std::invalid_argument&) {
    }
    if (got != first)
      throw InputError(fmt::format(
          "{}: the captured buffers at {:#x}..{:#x} cannot be placed at their addresses (host "
          "memory below the device address range is not replayed)",
          path, c.buffers[i].base, end));
    i = j;
  }
  r->storage.reserve(c.buffers.size());
  for (const CapturedBuffer& b : c.buffers) {
    r->storage.push_back(b.before);
    r->memory.map(b.base, r->storage.back().data(), b.before.size());
  }
  try {
    r->module = ptx::Module::parse(c.ptx, c.ptx_origin.empty() ? path : c.ptx_origin);
  } catch (const ptx::ParseError& e) {
    throw InputError(fmt::format("{}: the captured PTX does not parse: {}", path, e.what()));
  }
  const ptx::Function* f = r->module->find(c.kernel);
  if (!f || !f->is_entry)
    throw InputError(fmt::format("{}: the captured module has no kernel '{}'", path, c.kernel));
  r->loaded = std::make_unique<ptx::LoadedModule>(r->module, r->memory);
  for (const CapturedVariable& v : c.variables) {
    std::uint64_t address = 0;
    try {
      address = r->loaded->symbol_address(v.name);
    } catch (const std::invalid_argument&) {
      throw InputError(fmt::format("{}: the captured module has no variable '{}'", path, v.name));
    }
    if (!v.before.empty()) r->memory.write(address, v.before.data(), v.before.size());
  }
  ptx::LaunchConfig& cfg = r->config;
  cfg.grid = {c.grid[0], c.grid[1], c.grid[2]};
  cfg.block = {c.block[0], c.block[1], c.block[2]};
  cfg.cluster = {c.cluster[0], c.cluster[1], c.cluster[2]};
  cfg.dynamic_shared_bytes = c.dynamic_shared_bytes;
  cfg.params = c.params;
  cfg.stack_bytes = std::max(c.stack_bytes, ptx::static_stack_bytes(*r->module, *f));
  cfg.sm_count = c.sm_count;
  if (c.params.size() != f->param_bytes)
    throw InputError(fmt::format("{}: corrupt capture: {} parameter bytes, kernel '{}' takes {}",
                                 path, c.params.size(), c.kernel, f->param_bytes));
  return r;
}

std::string compare_outputs(const Capture& c, const ReplaySetup& r) {
  std::string first;
  std::uint64_t differing = 0;
  const auto compare = [&](const std::string& what, const std::vector<std::uint8_t>& expected,
                           const std::uint8_t* got) {
    for (std::size_t i = 0; i < expected.size(); ++i) {
      if (expected[i] == got[i]) continue;
      if (first.empty())
        first = fmt::format(
            "{} differs first at offset {} ({:#x}): captured 0x{:02x}, replayed "
            "0x{:02x}",
            what, i, i, expected[i], got[i]);
      ++differing;
    }
  };
  for (std::size_t k = 0; k < c.buffers.size(); ++k) {
    const CapturedBuffer& b = c.buffers[k];
    compare(fmt::format("buffer {} at {:#x} ({} bytes)", k, b.base, b.before.size()), b.after,
            r.storage[k].data());
  }
  for (const CapturedVariable& v : c.variables) {
    std::vector<std::uint8_t> now(v.after.size());
    if (!now.empty()) r.memory.read(r.loaded->symbol_address(v.name), now.data(), now.size());
    compare("variable " + v.name, v.after, now.data());
  }
  if (first.empty()) return first;
  return fmt::format("{}; {} bytes differ in all", first, differing);
}

}  // namespace cnuas::debugger
