// The register-write log of the kernel debugger: which registers an
// instruction writes, the text of one log line, and the observer that records
// a launch's writes per thread. `debug trace` writes it from the simulator;
// the program `debug instrument` writes writes the same lines from a GPU.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "ptx/executor.h"
#include "ptx/ir.h"

namespace cnuas::debugger {

// The registers `inst` writes, in operand order; none for stores, branches,
// barriers, calls and asynchronous matrix operations (wgmma), whose results
// are not in registers when the instruction completes.
std::vector<std::int32_t> written_registers(const ptx::Instruction& inst);

// A register value as the log prints it: masked to the register's width; a
// predicate is 0 or 1.
std::uint64_t logged_value(ptx::Type type, std::uint64_t raw);

// Threads by global linear index (CTA linear index x threads per CTA + thread
// linear index): "0-31,64"; empty: all.
class ThreadFilter {
 public:
  ThreadFilter() = default;
  // Throws InputError naming the bad part.
  explicit ThreadFilter(const std::string& text);
  bool contains(std::uint64_t thread) const;

 private:
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges_;  // inclusive
};

std::string log_header(const std::string& kernel, const std::uint32_t grid[3],
                       const std::uint32_t block[3]);
std::string log_line(std::uint64_t thread, const std::uint32_t grid[3],
                     const std::uint32_t block[3], std::uint32_t ptx_line, const std::string& reg,
                     std::uint64_t value, const std::string& text);

class RegisterTracer : public ptx::InstructionObserver {
 public:
  RegisterTracer(const std::uint32_t grid[3], const std::uint32_t block[3], ThreadFilter filter);
  void executed(ptx::Dim3 cta, std::uint32_t warp, std::uint32_t active, const ptx::Function& fn,
                const ptx::Instruction& inst, const std::uint64_t* regs) override;
  // The header, then each thread's writes in the order it made them, threads in index order.
  void write(std::ostream& out, const std::string& kernel) const;
  std::uint64_t writes() const { return writes_; }

 private:
  struct Write {
    const ptx::Instruction* inst;
    const ptx::Function* fn;
    std::int32_t reg;
    std::uint64_t value;
  };
  std::uint32_t grid_[3], block_[3];
  ThreadFilter filter_;
  std::map<std::uint64_t, std::vector<Write>> threads_;
  std::uint64_t writes_ = 0;
};

}  // namespace cnuas::debugger
