#include "engine/ptx_dump.h"

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

namespace cnuas::cuda {

namespace {

// "libcusparse.so.12 (compute_120)" -> "libcusparse.so.12_compute_120_"
std::string file_name_part(const std::string& origin) {
  std::string out;
  for (char c : origin.substr(origin.find_last_of('/') + 1)) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '-' || c == '_';
    out += plain ? c : '_';
  }
  return out.substr(0, 80);
}

}  // namespace

std::string dump_ptx(const std::string& origin, const std::string& text) {
  const char* dir = std::getenv("CNUAS_DUMP_PTX");
  if (dir == nullptr || *dir == '\0') return "";
  static std::atomic<unsigned> count{0};
  const std::string path =
      fmt::format("{}/{:03}-{}.ptx", dir, count.fetch_add(1), file_name_part(origin));
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    std::cerr << "cnuas: CNUAS_DUMP_PTX: cannot write " << path << " (the directory must exist)\n";
    return "";
  }
  std::cerr << "cnuas: the PTX of " << origin << " is in " << path << "\n";
  return path;
}

}  // namespace cnuas::cuda
