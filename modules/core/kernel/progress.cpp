#include "core/kernel/progress.h"

namespace cnuas::progress {

std::atomic<std::uint64_t> simulated_ps{0};
std::atomic<std::uint64_t> gpu_kernel_ps{0};

}  // namespace cnuas::progress
