// How far a run has got, for a progress line another thread prints
// (run/progress_line.h). Written with relaxed atomic stores where simulated
// time advances; nothing reads them back into the simulation.
#pragma once

#include <atomic>
#include <cstdint>

namespace cnuas::progress {

// The ready time of the stage the scheduler last booked, in ps: with
// lookahead, booking runs ahead of SystemC's own time.
extern std::atomic<std::uint64_t> simulated_ps;
// Inside the GPU performance model: the time its current kernel has run, in
// ps (0 between kernels), since the platform's time stands still meanwhile.
extern std::atomic<std::uint64_t> gpu_kernel_ps;

}  // namespace cnuas::progress
