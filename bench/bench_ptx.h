// What the PTX benchmarks share: loading a PTX file and packing kernel
// parameters at the offsets the .entry declares.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ptx/ir.h"

namespace cnuas::bench {

// The parsed module, or exit status 2 with a message when the file cannot be read.
inline std::shared_ptr<const ptx::Module> load_ptx_or_exit(const std::string& file) {
  std::ifstream in(file);
  if (!in) {
    std::fprintf(stderr, "cannot open %s\n", file.c_str());
    std::exit(2);
  }
  std::stringstream text;
  text << in.rdbuf();
  return ptx::Module::parse(text.str(), file);
}

template <class... Args>
std::vector<std::uint8_t> params(const ptx::Function& f, const Args&... args) {
  std::vector<std::uint8_t> p(f.param_bytes);
  std::size_t k = 0;
  auto place = [&](const auto& v) { std::memcpy(p.data() + f.params[k++].offset, &v, sizeof v); };
  (place(args), ...);
  return p;
}

}  // namespace cnuas::bench
