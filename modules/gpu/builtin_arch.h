// The GPU architecture profiles under profiles/gpu-arch/, embedded at build
// time so that `cnuas` and the CUDA runtime find them without an install tree.
#pragma once

#include <vector>

namespace cnuas::gpu {

struct BuiltinArch {
  const char* name;  // file name without .yaml
  const char* text;
};

const std::vector<BuiltinArch>& builtin_archs();

}  // namespace cnuas::gpu
