#include "engine/timeline.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include <systemc>

#include "engine/graph_capture.h"

namespace cnuas::cuda {

Timeline::Timeline(PlatformSession& session) : session_(session) {
  session_.on_completion([this](std::uint64_t id, std::uint64_t done_ps) {
    auto f = in_flight_.find(id);
    CommandPtr cmd = f->second;
    in_flight_.erase(f);
    complete(cmd, done_ps);
    drain();
    if (awaited_ && awaited_->done) sc_core::sc_pause();
  });
}

void Timeline::add_stream(Stream* s) {
  streams_.push_back(s);
}

void Timeline::remove_stream(Stream* s) {
  streams_.erase(std::remove(streams_.begin(), streams_.end(), s), streams_.end());
}

void Timeline::submit(Stream& s, CommandPtr cmd) {
  if (s.capturing()) {
    capture_command(s, std::move(cmd));
    return;
  }
  ++host_activity_;
  resume_suspended();  // the host may have set what a stopped grid waits for
  if (cmd->host_work) host_pending_.push_back(cmd);
  std::vector<CommandPtr> deps = std::move(s.pending_waits);
  s.pending_waits.clear();
  if (s.last) deps.push_back(s.last);
  // The legacy default stream waits for, and is waited for by, every blocking
  // stream of its device.
  for (Stream* other : streams_) {
    if (other == &s || other->device != s.device || !other->last) continue;
    const bool blocking = !(other->flags & 1u);
    if ((s.legacy && blocking) || (other->legacy && !(s.flags & 1u))) deps.push_back(other->last);
  }
  cmd->submit_ps = host_ps_;
  cmd->ready_ps = host_ps_;
  s.last = cmd;
  enqueue(cmd, deps);
}

void Timeline::submit_after(const CommandPtr& cmd, const std::vector<CommandPtr>& deps,
                            std::uint64_t issue_ps) {
  if (cmd->host_work) host_pending_.push_back(cmd);
  cmd->submit_ps = issue_ps;
  cmd->ready_ps = issue_ps;
  enqueue(cmd, deps);
}

void Timeline::enqueue(const CommandPtr& cmd, const std::vector<CommandPtr>& deps) {
  for (const CommandPtr& d : deps) {
    if (!d->effect_ran) cmd->after.push_back(d);
    if (d->done) {
      cmd->ready_ps = std::max(cmd->ready_ps, d->done_ps);
    } else {
      d->dependents.push_back(cmd);
      ++cmd->waiting;
    }
  }
  if (cmd->waiting == 0) {
    ready_.push_back(cmd);
    drain();
  }
}

void Timeline::add_dependency(const CommandPtr& cmd, const CommandPtr& dep) {
  if (!dep->effect_ran) cmd->after.push_back(dep);
  if (dep->done) {
    cmd->ready_ps = std::max(cmd->ready_ps, dep->done_ps);
    return;
  }
  dep->dependents.push_back(cmd);
  ++cmd->waiting;
}

void Timeline::drain() {
  if (draining_) return;
  draining_ = true;
  while (!ready_.empty()) {
    CommandPtr cmd = std::move(ready_.front());
    ready_.pop_front();
    release(cmd);
  }
  draining_ = false;
}

void Timeline::release(const CommandPtr& cmd) {
  if (!cmd->effect_ran) run_own_effect(*cmd);
  if (cmd->suspended) {
    suspended_.push_back(cmd);
    return;
  }
  finish_release(cmd);
}

void Timeline::finish_release(const CommandPtr& cmd) {
  if (cmd->on_release) {
    cmd->on_release();
    cmd->on_release = nullptr;
  }
  if (!cmd->route) {
    complete(cmd, cmd->ready_ps);
    return;
  }
  const std::uint64_t id = next_id_++;
  in_flight_[id] = cmd;
  session_.inject(id, cmd->name, *cmd->route, cmd->dims, cmd->read, cmd->ready_ps,
                  cmd->model_timed);
}

void Timeline::run_own_effect(Command& cmd) {
  cmd.effect_ran = true;
  cmd.after.clear();
  if (cmd.host_work)
    host_pending_.erase(
        std::remove(host_pending_.begin(), host_pending_.end(), cmd.shared_from_this()),
        host_pending_.end());
  if (!cmd.start) return;
  ++in_effect_;
  try {
    cmd.start(cmd);
  } catch (...) {
    --in_effect_;
    throw;
  }
  --in_effect_;
  if (cmd.suspended) {
    cmd.effect_ran = false;
    return;
  }
  if (after_effect_) after_effect_(cmd);
}

bool Timeline::run_effect(const CommandPtr& cmd) {
  std::vector<CommandPtr> stack{cmd};
  while (!stack.empty()) {
    const CommandPtr top = stack.back();
    if (top->effect_ran) {
      stack.pop_back();
      continue;
    }
    bool ready = true;
    for (const CommandPtr& d : top->after)
      if (!d->effect_ran) {
        stack.push_back(d);
        ready = false;
      }
    if (!ready) continue;
    if (top->suspended) return false;  // it continues when the timeline resumes it
    stack.pop_back();
    run_own_effect(*top);
    if (top->suspended) return false;
  }
  return true;
}

void Timeline::run_host_work_ahead() {
  while (!host_pending_.empty())
    if (!run_effect(host_pending_.front())) return;
}

bool Timeline::resume_suspended() {
  if (suspended_.empty() || draining_ || in_effect_) return false;
  bool ended = false;
  for (std::size_t i = 0; i < suspended_.size();) {
    const CommandPtr cmd = suspended_[i];
    run_own_effect(*cmd);
    if (cmd->suspended) {
      ++i;
      continue;
    }
    release_resumed(i);
    ended = true;
  }
  if (ended) drain();
  return ended;
}

void Timeline::release_resumed(std::size_t index) {
  const CommandPtr cmd = suspended_[index];
  suspended_.erase(suspended_.begin() + static_cast<std::ptrdiff_t>(index));
  // It could not end before the host (or what the host waited for) released it.
  cmd->ready_ps = std::max(cmd->ready_ps, host_ps_);
  finish_release(cmd);
}

namespace {

// Threads of this process (/proc/self/task): the program's, and the runtime's
// few helpers (none unless host functions are pending or a progress line draws).
std::size_t process_threads() {
  std::error_code e;
  std::size_t n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", e);
       !e && it != std::filesystem::directory_iterator(); it.increment(e))
    ++n;
  return std::max<std::size_t>(n, 1);
}

}  // namespace

void Timeline::end_oldest_suspended() {
  // A kernel sees host stores as they happen: another thread of the program
  // may still make the one the grid waits for. It gets up to a minute when
  // there is one; a program with a single thread, half a second.
  using Clock = std::chrono::steady_clock;
  const Clock::time_point until =
      Clock::now() +
      (process_threads() > 1 ? std::chrono::milliseconds(60'000) : std::chrono::milliseconds(500));
  for (int ms = 1; Clock::now() < until; ms = std::min(2 * ms, 100)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    if (resume_suspended()) return;
  }
  const CommandPtr cmd = suspended_.front();
  cmd->must_finish = true;
  run_own_effect(*cmd);
  cmd->must_finish = false;
  if (cmd->suspended) throw std::logic_error("a kernel told to finish stopped again: " + cmd->name);
  release_resumed(0);
  drain();
}

void Timeline::complete(const CommandPtr& cmd, std::uint64_t done_ps) {
  cmd->done = true;
  cmd->done_ps = done_ps;
  if (cmd->on_done) {
    cmd->on_done(*cmd);
    cmd->on_done = nullptr;
  }
  for (const CommandPtr& d : cmd->dependents) {
    d->ready_ps = std::max(d->ready_ps, done_ps);
    if (--d->waiting == 0) ready_.push_back(d);
  }
  cmd->dependents.clear();
}

void Timeline::wait(const CommandPtr& cmd) {
  ++host_activity_;
  if (cmd) {
    awaited_ = cmd.get();
    while (!cmd->done) {
      const bool resumed = resume_suspended();
      session_.run();
      if (cmd->done || resumed || session_.in_flight() > 0) continue;
      if (!suspended_.empty()) {
        end_oldest_suspended();
        continue;
      }
      awaited_ = nullptr;
      throw std::logic_error("the host waits for device work that can never finish: " + cmd->name);
    }
    awaited_ = nullptr;
    host_ps_ = std::max(host_ps_, cmd->done_ps);
  }
  if (on_sync_) on_sync_();
}

void Timeline::wait_all(int device) {
  for (Stream* s : std::vector<Stream*>(streams_))
    if ((device < 0 || s->device == device) && s->last) wait(s->last);
  if (on_sync_) on_sync_();
}

void Timeline::spend(std::uint64_t ps) {
  ++host_activity_;
  resume_suspended();
  host_ps_ += ps;
  session_.run_until(host_ps_);
  if (on_sync_) on_sync_();
}

}  // namespace cnuas::cuda
