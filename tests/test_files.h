// Scratch files for tests, in a fresh directory per test process.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/kernel/errors.h"

namespace cnuas::testing_support {

inline std::string scratch_dir() {
  static const std::string dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("cnuas-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    return d.string();
  }();
  return dir;
}

inline std::string write_file(const std::string& name, const std::string& text) {
  std::string path = scratch_dir() + "/" + name;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
  return path;
}

// The message of the InputError `f` throws, or "(no error)".
template <class F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const cnuas::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace cnuas::testing_support
