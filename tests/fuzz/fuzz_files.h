// Helpers shared by the input readers' libFuzzer targets: the fuzzed bytes as
// text, and, for readers that only take a path, a file of this process on
// tmpfs (/dev/shm when there is one) that holds them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace cnuas::fuzz {

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A directory of this process only (created on first use, removed at exit).
const std::string& scratch_dir();

// Writes `text` to scratch_dir()/name, replacing what was there; returns the path.
std::string write_scratch(const std::string& name, const std::string& text);

}  // namespace cnuas::fuzz
