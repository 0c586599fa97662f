// A kernel capture: one launch recorded self-contained, so that it can run
// again alone (replay, trace, instrument) without the program that made it.
// The file format is in docs/kernel-debugger.md: a fixed header, then one zstd
// frame holding the fields in the order of this struct.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cnuas::debugger {

// A device allocation a pointer parameter (or a pointer inside another
// captured allocation) reached: all of it, at its address, before and after.
struct CapturedBuffer {
  std::uint64_t base = 0;
  std::vector<std::uint8_t> before, after;  // after: empty when outputs were not recorded
};

// A .global or .const variable of the kernel's module, by name.
struct CapturedVariable {
  std::string name;
  std::vector<std::uint8_t> before, after;
};

struct Capture {
  std::string kernel;            // the .entry name
  std::uint32_t occurrence = 0;  // which launch of that kernel (0: the first)
  std::string ptx_origin;        // where the module came from, for messages
  std::string ptx;               // the whole PTX module text
  std::uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, cluster[3] = {1, 1, 1};
  std::uint32_t dynamic_shared_bytes = 0;
  std::uint32_t stack_bytes = 1024;
  std::uint32_t sm_count = 132;
  std::vector<std::uint8_t> params;     // the parameter buffer as the .entry lays it out
  std::vector<CapturedBuffer> buffers;  // in address order
  std::vector<CapturedVariable> variables;
  bool has_outputs = false;  // the launch completed and `after` was recorded
};

// Writes `c` to `path`; throws InputError when the file cannot be written.
void write_capture(const Capture& c, const std::string& path);
// Reads a capture; throws InputError naming the file and what is wrong with it.
Capture read_capture(const std::string& path);

}  // namespace cnuas::debugger
