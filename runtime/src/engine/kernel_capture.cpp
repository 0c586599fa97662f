#include "engine/kernel_capture.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/kernel/errors.h"
#include "gpu/kernel_names.h"

namespace cnuas::cuda {
namespace {

// `wanted` names `entry`: the .entry name itself, or a C++ kernel's name
// before its parameter list (saxpy for _Z5saxpyifPfS_).
bool names(const std::string& wanted, const std::string& entry) {
  if (wanted == entry) return true;
  const std::string plain = gpu::demangled(entry);
  return plain.substr(0, plain.find('(')) == wanted;
}

[[noreturn]] void bad_setting(const std::string& message) {
  std::cerr << "cnuas: error: " << message << "\n";
  std::exit(2);
}

}  // namespace

std::unique_ptr<KernelCapture> KernelCapture::from_environment() {
  const char* path = std::getenv("CNUAS_DEBUG_CAPTURE");
  if (!path || !*path) return nullptr;
  auto c = std::make_unique<KernelCapture>();
  c->path_ = path;
  const char* kernel = std::getenv("CNUAS_DEBUG_KERNEL");
  if (!kernel || !*kernel)
    bad_setting("CNUAS_DEBUG_CAPTURE needs CNUAS_DEBUG_KERNEL=NAME[#N] (the launch to record)");
  c->kernel_ = kernel;
  if (const std::size_t hash = c->kernel_.rfind('#'); hash != std::string::npos) {
    const std::string n = c->kernel_.substr(hash + 1);
    char* end = nullptr;
    const unsigned long v = std::strtoul(n.c_str(), &end, 10);
    if (n.empty() || *end != '\0' || v > 0xffffffffu)
      bad_setting(
          fmt::format("CNUAS_DEBUG_KERNEL '{}': '#{}' is no launch number; accepted: "
                      "NAME or NAME#N, N counting launches of NAME from 0",
                      c->kernel_, n));
    c->occurrence_ = static_cast<std::uint32_t>(v);
    c->kernel_ = c->kernel_.substr(0, hash);
  }
  return c;
}

bool KernelCapture::select(const std::string& kernel) {
  const std::uint32_t n = launches_[kernel]++;
  if (taken_ || !names(kernel_, kernel) || n != occurrence_) return false;
  taken_ = true;
  return true;
}

void KernelCapture::before(const std::string& kernel, const std::string& ptx,
                           const std::string& origin, const ptx::LoadedModule& module,
                           const ptx::LaunchConfig& config, ptx::DeviceMemory& memory) {
  debugger::Capture& c = capture_;
  c.kernel = kernel;
  c.occurrence = occurrence_;
  c.ptx = ptx;
  c.ptx_origin = origin;
  const ptx::Dim3* dims[3] = {&config.grid, &config.block, &config.cluster};
  std::uint32_t* out[3] = {c.grid, c.block, c.cluster};
  for (int d = 0; d < 3; ++d) {
    out[d][0] = dims[d]->x;
    out[d][1] = dims[d]->y;
    out[d][2] = dims[d]->z;
  }
  c.dynamic_shared_bytes = config.dynamic_shared_bytes;
  c.stack_bytes = config.stack_bytes;
  c.sm_count = config.sm_count;
  c.params = config.params;
  // Allocations reachable from the parameters: every aligned 8-byte word that
  // points into one, then every aligned word inside those, transitively.
  std::set<std::uint64_t> seen;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> todo;
  const auto scan = [&](const std::uint8_t* p, std::uint64_t bytes) {
    for (std::uint64_t at = 0; at + 8 <= bytes; at += 8) {
      std::uint64_t word;
      std::memcpy(&word, p + at, 8);
      if (word == 0) continue;
      const auto [base, size] = memory.allocation_of(word);
      if (size != 0 && seen.insert(base).second) todo.push_back({base, size});
    }
  };
  scan(config.params.data(), config.params.size());
  // Module variables are captured by name; a pointer to one is not a buffer.
  std::set<std::uint64_t> variables;
  for (const ptx::Variable& v : module.module().variables)
    if ((v.space == ptx::Space::Global || v.space == ptx::Space::Const) && v.size != 0)
      variables.insert(module.symbol_address(v.name));
  while (!todo.empty()) {
    const auto [base, size] = todo.back();
    todo.pop_back();
    const std::uint8_t* p = memory.find(base, size);
    if (!p) continue;
    scan(p, size);
    if (variables.count(base)) continue;
    c.buffers.push_back({base, std::vector<std::uint8_t>(p, p + size), {}});
  }
  std::sort(c.buffers.begin(), c.buffers.end(),
            [](const auto& a, const auto& b) { return a.base < b.base; });
  for (const ptx::Variable& v : module.module().variables) {
    if ((v.space != ptx::Space::Global && v.space != ptx::Space::Const) || v.size == 0) continue;
    debugger::CapturedVariable cv;
    cv.name = v.name;
    cv.before.resize(v.size);
    memory.read(module.symbol_address(v.name), cv.before.data(), v.size);
    c.variables.push_back(std::move(cv));
  }
}

void KernelCapture::after(const ptx::LoadedModule& module, ptx::DeviceMemory& memory,
                          bool completed) {
  debugger::Capture& c = capture_;
  c.has_outputs = completed;
  if (completed) {
    for (debugger::CapturedBuffer& b : c.buffers) {
      b.after.resize(b.before.size());
      memory.read(b.base, b.after.data(), b.after.size());
    }
    for (debugger::CapturedVariable& v : c.variables) {
      v.after.resize(v.before.size());
      memory.read(module.symbol_address(v.name), v.after.data(), v.after.size());
    }
  }
  std::uint64_t bytes = 0;
  for (const debugger::CapturedBuffer& b : c.buffers) bytes += b.before.size();
  try {
    debugger::write_capture(c, path_);
  } catch (const std::exception& e) {
    bad_setting(fmt::format("CNUAS_DEBUG_CAPTURE: {}", e.what()));
  }
  written_ = true;
  std::cerr << fmt::format(
      "cnuas: debug capture: launch #{} of {} ({} buffers, {} bytes{}) "
      "written to {}\n",
      c.occurrence, c.kernel, c.buffers.size(), bytes,
      completed ? "" : "; it faulted, so no outputs", path_);
}

void KernelCapture::report_missing() const {
  if (written_) return;
  std::string seen;
  for (const auto& [name, n] : launches_)
    seen += fmt::format("{}{} ({}x)", seen.empty() ? "" : ", ", name, n);
  std::cerr << fmt::format(
      "cnuas: debug capture: kernel '{}' launch #{} never ran; the program launched: {}\n", kernel_,
      occurrence_, seen.empty() ? "no kernel" : seen);
}

std::string replacement_ptx(const ptx::Module& parsed, std::string* file) {
  const char* value = std::getenv("CNUAS_PTX_REPLACE");
  if (!value || !*value) return "";
  std::stringstream list(value);
  std::string item;
  while (std::getline(list, item, ';')) {
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      bad_setting(fmt::format("CNUAS_PTX_REPLACE '{}': '{}' is no KERNEL=FILE.ptx", value, item));
    const std::string kernel = item.substr(0, eq);
    bool defines = false;
    for (const ptx::Function& f : parsed.functions)
      if (f.is_entry && f.defined && names(kernel, f.name)) defines = true;
    if (!defines) continue;
    *file = item.substr(eq + 1);
    std::ifstream in(*file, std::ios::binary);
    if (!in)
      bad_setting(
          fmt::format("CNUAS_PTX_REPLACE: cannot read '{}' (for kernel {})", *file, kernel));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  return "";
}

}  // namespace cnuas::cuda
