// A progress line on stderr for long runs: simulated time reached and how
// fast it advances, redrawn at most four times a second, from a run's first
// half second on. Only when stderr is a terminal: logs and CI stay clean.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>

namespace cnuas {

// One line at a time: one made while another is open draws nothing.
class ProgressLine {
 public:
  ProgressLine();   // starts drawing when stderr is a terminal
  ~ProgressLine();  // stops and erases the line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  void draw_until_stopped();

  std::mutex mutex_;
  std::condition_variable stop_signal_;
  bool stop_ = false;
  bool drawn_ = false;
  std::thread thread_;
};

}  // namespace cnuas
