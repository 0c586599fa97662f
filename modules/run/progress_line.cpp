#include "run/progress_line.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "core/kernel/progress.h"

namespace cnuas {
namespace {

std::string readable_time(double ps) {
  if (ps >= 1e12) return fmt::format("{:.3f} s", ps / 1e12);
  if (ps >= 1e9) return fmt::format("{:.3f} ms", ps / 1e9);
  if (ps >= 1e6) return fmt::format("{:.3f} us", ps / 1e6);
  if (ps >= 1e3) return fmt::format("{:.3f} ns", ps / 1e3);
  return fmt::format("{:.0f} ps", ps);
}

}  // namespace

// Lines live inside each other (a kernel of the GPU model inside a program's
// wait): the outermost one draws.
static std::atomic<int> open_lines{0};

ProgressLine::ProgressLine() {
  if (open_lines.fetch_add(1) == 0 && ::isatty(STDERR_FILENO) == 1)
    thread_ = std::thread([this] { draw_until_stopped(); });
}

ProgressLine::~ProgressLine() {
  open_lines.fetch_sub(1);
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  stop_signal_.notify_one();
  thread_.join();
  if (drawn_) std::fputs("\r\033[K", stderr);  // leave the terminal as the summary finds it
}

void ProgressLine::draw_until_stopped() {
  using Clock = std::chrono::steady_clock;
  const auto begin = Clock::now();
  const std::uint64_t begin_ps = progress::simulated_ps.load(std::memory_order_relaxed);
  std::unique_lock<std::mutex> lock(mutex_);
  // Quiet for the first half second (CNUAS_PROGRESS_AFTER_MS): most runs are over by then.
  const char* after = std::getenv("CNUAS_PROGRESS_AFTER_MS");
  const long quiet_ms = after != nullptr ? std::strtol(after, nullptr, 10) : 500;
  if (stop_signal_.wait_for(lock, std::chrono::milliseconds(quiet_ms), [this] { return stop_; }))
    return;
  do {
    const double host_s = std::chrono::duration<double>(Clock::now() - begin).count();
    const std::uint64_t now_ps = progress::simulated_ps.load(std::memory_order_relaxed);
    const std::uint64_t kernel_ps = progress::gpu_kernel_ps.load(std::memory_order_relaxed);
    std::string line = fmt::format("cnuas: simulated {}", readable_time(double(now_ps)));
    // While the GPU model runs a kernel the platform's time stands still: no rate.
    if (now_ps > begin_ps)
      line +=
          fmt::format(" ({}/s of host time)", readable_time(double(now_ps - begin_ps) / host_s));
    if (kernel_ps > 0) line += fmt::format(", GPU kernel at {}", readable_time(double(kernel_ps)));
    line += fmt::format(", {:.0f} s", host_s);
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    drawn_ = true;
  } while (!stop_signal_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stop_; }));
}

}  // namespace cnuas
