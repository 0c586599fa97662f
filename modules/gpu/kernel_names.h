// Kernel names as people wrote them: CUDA C++ kernels reach the PTX engine
// under their Itanium-ABI mangled names (_Z6vecAddPKfS0_Pfi).
#pragma once

#include <string>

namespace cnuas::gpu {

// The demangled name, or `name` itself when it is not a mangled C++ name.
std::string demangled(const std::string& name);

}  // namespace cnuas::gpu
