// NVIDIA's CUDA libraries (cuBLAS, cuBLASLt, cuDNN) carry PTX for few
// architectures, and hand the driver their fat binaries, from which it can
// pick PTX, only on a GPU newer than every cubin they carry; otherwise they
// pick a cubin themselves, which the simulator cannot run. So a process that
// has one of them loaded gets a device that reports a capability above them,
// unless the user chose one (docs/cuda-runtime.md, "CUDA libraries").
#pragma once

#include <optional>
#include <string>

namespace cnuas::cuda {

// The capability the CUDA 13.0 libraries need (their newest cubins are for
// sm_121, their PTX for compute_120/121): 13.0.
inline constexpr const char* kLibraryComputeCapability = "13.0";

// The first loaded NVIDIA library that needs it ("libcublasLt.so.13"), if any.
std::optional<std::string> loaded_library_needing_newer_gpu();

}  // namespace cnuas::cuda
