// Runs the real `cnuas` binary and reads what it wrote.
#pragma once

#include <sys/wait.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_files.h"

namespace cnuas::testing_support {

// One microsecond in the traces' unit (picoseconds).
inline constexpr std::uint64_t us = 1'000'000;

struct CommandResult {
  int exit_code;
  std::string out;
  std::string err;
};

inline CommandResult run_cnuas(const std::string& args) {
  static int counter = 0;
  const std::string base = scratch_dir() + "/cmd" + std::to_string(counter++);
  const std::string command =
      std::string(CNUAS_BINARY) + " " + args + " >" + base + ".out 2>" + base + ".err";
  int status = std::system(command.c_str());
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return {code, read_file(base + ".out"), read_file(base + ".err")};
}

inline std::vector<nlohmann::json> read_jsonl(const std::string& path) {
  std::vector<nlohmann::json> lines;
  std::string text = read_file(path);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    lines.push_back(nlohmann::json::parse(text.substr(start, end - start)));
    start = end + 1;
  }
  return lines;
}

inline std::string source_path(const std::string& relative) {
  return std::string(CNUAS_SOURCE_DIR) + "/" + relative;
}

}  // namespace cnuas::testing_support
