#include "fuzz_files.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <systemc>

namespace cnuas::fuzz {
namespace fs = std::filesystem;

namespace {

// The directory, removed with what it holds when the process exits.
struct ScratchDir {
  std::string path;
  ScratchDir() {
    const fs::path base =
        fs::is_directory("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    path = (base / ("cnuas-fuzz-" + std::to_string(getpid()))).string();
    fs::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

}  // namespace

const std::string& scratch_dir() {
  static const ScratchDir dir;
  return dir.path;
}

std::string write_scratch(const std::string& name, const std::string& text) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path;
}

}  // namespace cnuas::fuzz

// libsystemc's main() is never run (libFuzzer brings its own), but the library
// refers to sc_main; nothing here elaborates a SystemC model.
int sc_main(int, char*[]) {
  return 0;
}
