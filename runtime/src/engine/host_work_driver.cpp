// Host functions and stream callbacks run when their stream reaches them, even
// while the program blocks in its own code (a condition variable, a spin on a
// flag a callback sets) and so never calls the runtime that advances the
// simulation.
//
// Every tick a helper thread looks for host work issued but not run; when the
// program has made no runtime call for two ticks, it takes the runtime's lock
// and runs that work's functional effect ahead, after the effects of the
// commands it depends on. Simulated time does not move: the platform times
// every command later, when the host's calls drive it, exactly as it would
// have. So traces and statistics never depend on wall-clock time; only the
// order in which unordered streams' effects run may differ (their results
// differ only if they race, which is undefined on a GPU too).
#include <chrono>
#include <iostream>
#include <thread>

#include "engine/runtime.h"

namespace cnuas::cuda {

namespace {
constexpr std::chrono::milliseconds kHostWorkTick{20};
}  // namespace

void Runtime::submit(Stream& s, CommandPtr c) {
  timeline_->submit(s, std::move(c));
  if (timeline_->host_work_pending() && !host_work_driver_started_) start_host_work_driver();
}

void Runtime::start_host_work_driver() {
  host_work_driver_started_ = true;
  // Detached: the runtime lives until the process ends, and after finish()
  // the helper does nothing.
  std::thread([this] {
    std::uint64_t seen = 0;
    bool idle_before = false;
    for (;;) {
      std::this_thread::sleep_for(kHostWorkTick);
      std::lock_guard<std::recursive_mutex> guard(lock());
      if (finished_) return;
      const bool idle = timeline_->host_work_pending() && timeline_->host_activity() == seen;
      if (idle && idle_before) {
        try {
          timeline_->run_host_work_ahead();
        } catch (const std::exception& e) {
          std::cerr << "cnuas: internal error while running host functions ahead: " << e.what()
                    << "\n";
          std::_Exit(1);
        }
        idle_before = false;
      } else {
        idle_before = idle;
      }
      seen = timeline_->host_activity();
    }
  }).detach();
}

}  // namespace cnuas::cuda
