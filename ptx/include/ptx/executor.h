// Runs PTX kernels functionally: grids of CTAs, warps of 32 threads executing
// each decoded instruction for all active lanes at once, with IPDOM-stack
// reconvergence. The warp-level step interface lets a timing model drive the
// same executor one instruction at a time.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "ptx/errors.h"
#include "ptx/ir.h"
#include "ptx/memory.h"

namespace cnuas::ptx {

// A module bound to device memory: its .global/.const variables allocated and
// initialized.
class LoadedModule {
 public:
  LoadedModule(std::shared_ptr<const Module> module, DeviceMemory& memory);
  const Module& module() const { return *module_; }
  std::uint64_t variable_address(std::size_t index) const { return addresses_[index]; }
  // Address of a named .global/.const variable (for symbol copies); throws when unknown.
  std::uint64_t symbol_address(const std::string& name) const;

 private:
  std::shared_ptr<const Module> module_;
  std::vector<std::uint64_t> addresses_;
};

struct LaunchConfig {
  Dim3 grid, block;
  std::uint32_t dynamic_shared_bytes = 0;
  std::vector<std::uint8_t> params;  // the kernel parameter buffer, laid out as the .entry declares
  std::uint32_t stack_bytes =
      1024;  // per thread: .local frames and call parameters (CUDA's default)
  std::uint64_t instruction_limit = 0;  // warp instructions per launch; 0 = 2^40
  std::uint32_t sm_count = 132;         // for %nsmid / %smid
};

struct LaunchStats {
  std::uint64_t warp_instructions = 0;
  std::uint64_t thread_instructions = 0;  // active lanes summed over warp instructions
  std::uint64_t ctas = 0;
};

// Functional-unit class of an instruction, for a timing model.
enum class UnitClass : std::uint8_t { Int, Fp32, Fp64, Sfu, Tensor, Memory, Control, Sync };
UnitClass unit_class(const Instruction& inst);

// One issued warp instruction, as the step interface reports it.
struct StepRecord {
  std::uint32_t pc = 0;
  std::uint32_t active = 0;  // lanes that executed (guard applied)
  const Instruction* inst = nullptr;
  UnitClass unit = UnitClass::Int;
  Space space = Space::None;         // for memory instructions: the resolved space
  std::uint64_t addresses[32] = {};  // per active lane, for memory instructions
  std::uint32_t access_bytes = 0;
};

class Executor {
 public:
  Executor(DeviceMemory& memory, std::ostream& printf_out);
  ~Executor();

  // Runs the kernel to completion. Throws ExecutionError for faults
  // (out-of-bounds access, trap, unsupported instruction, a barrier that can
  // never complete, the instruction limit) and std::invalid_argument for a bad
  // launch (unknown kernel, block too large, parameter buffer size).
  LaunchStats launch(const LoadedModule& module, const std::string& kernel,
                     const LaunchConfig& config);

  // The step interface: begin a CTA, then issue instructions warp by warp.
  class Cta;
  std::unique_ptr<Cta> begin_cta(const LoadedModule& module, const std::string& kernel,
                                 const LaunchConfig& config, Dim3 cta_id);

 private:
  DeviceMemory& memory_;
  std::ostream& out_;
};

class Executor::Cta {
 public:
  ~Cta();
  std::size_t warp_count() const;
  bool warp_done(std::size_t w) const;
  bool warp_waiting(std::size_t w) const;  // at a barrier
  bool done() const;
  // Issues one instruction of warp w; false when the warp cannot issue now.
  bool step(std::size_t w, StepRecord* record = nullptr);
  // Runs every warp to completion (functional mode).
  void run();
  const LaunchStats& stats() const;

  struct State;
  explicit Cta(std::unique_ptr<State> s);

 private:
  friend class Executor;
  std::unique_ptr<State> s_;
};

}  // namespace cnuas::ptx
