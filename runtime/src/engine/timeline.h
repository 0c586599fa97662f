// CUDA stream semantics in simulated time.
//
// Every piece of device work is a Command in a stream. A command becomes ready
// when the commands it depends on have finished (stream order, the legacy
// default stream's implicit barriers, cudaStreamWaitEvent) and not before the
// host issued it. When ready it takes its functional effect at once (so data
// flows in dependency order) and, when it has a route, crosses the platform as
// an operation whose completion ends it. The host has its own clock: it moves
// only when the program waits for the device or polls it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/kernel/work.h"
#include "engine/platform_session.h"

namespace cnuas::cuda {

struct NodeSpec;        // engine/graph.h
struct GraphNode;       // engine/graph.h
struct CaptureSession;  // engine/graph_capture.h

struct Command : std::enable_shared_from_this<Command> {
  std::string name;
  const Route* route = nullptr;  // nullptr: takes no simulated time
  WorkDims dims;
  bool read = false;
  bool model_timed = false;  // a kernel the cycle-level model timed (class "model")
  // The functional effect, run when the command becomes ready; it may fill in
  // the work (a kernel's instruction count) or drop the route.
  std::function<void(Command&)> start;
  // What the runtime made the command from, so that stream capture can record
  // it as a graph node; null for commands capture does not record.
  std::shared_ptr<const NodeSpec> spec;
  // Bookkeeping that must follow simulated order (statistics of a kernel),
  // run when the command is released even if its effect ran ahead.
  std::function<void()> on_release;
  // Run when the command ends in simulated time (a kernel an injected GPU
  // fault fails, engine/gpu_faults.h); before its dependents become ready.
  std::function<void(Command&)> on_done;
  bool host_work = false;  // a host function or stream callback
  bool effect_ran = false;
  // Set by an effect that stopped part-way: a kernel whose grid spins on memory
  // only the host or other work can change. Running `start` again continues
  // it; the command neither ends nor lets its dependents run before that.
  bool suspended = false;
  // Set while the timeline continues a suspended effect that nothing else can
  // release any more: it must end now (a grid that would stop again faults).
  bool must_finish = false;
  // Earlier commands whose effects have not run yet; kept until this one's
  // effect runs, so that it can be run ahead of simulated time in order.
  std::vector<std::shared_ptr<Command>> after;

  std::uint64_t submit_ps = 0, ready_ps = 0, done_ps = 0;
  bool done = false;
  std::uint32_t waiting = 0;
  std::vector<std::shared_ptr<Command>> dependents;
};
using CommandPtr = std::shared_ptr<Command>;

struct Stream {
  ~Stream();  // engine/graph_capture.cpp: a capturing stream leaves its capture
  // Unique in the process, unlike the address of a destroyed stream's successor.
  std::uint64_t serial = ++streams_created;
  static inline std::uint64_t streams_created = 0;
  int device = 0;
  unsigned flags = 0;  // cudaStreamNonBlocking
  int priority = 0;
  bool legacy = false;  // the legacy default stream (NULL)
  CommandPtr last;
  std::vector<CommandPtr> pending_waits;  // from cudaStreamWaitEvent, for the next command
  // Stream capture (engine/graph_capture.h): commands become nodes of the
  // capture's graph, after the nodes in capture_deps, instead of running.
  std::shared_ptr<CaptureSession> capture;
  std::vector<GraphNode*> capture_deps;
  bool capturing() const { return capture != nullptr; }
};

class Timeline {
 public:
  explicit Timeline(PlatformSession& session);

  // Registers a stream of `device` so that the legacy stream orders with it.
  void add_stream(Stream* s);
  void remove_stream(Stream* s);
  // Issues `cmd` on `s` at the host's current time.
  void submit(Stream& s, CommandPtr cmd);
  // Issues `cmd` after `deps` only, at `issue_ps` (no earlier than the host's
  // time when the host issues it): a node of a launched graph.
  void submit_after(const CommandPtr& cmd, const std::vector<CommandPtr>& deps,
                    std::uint64_t issue_ps);
  // Makes `cmd`, issued and not yet ready, also wait for `dep` (a conditional
  // node's body issued while the graph runs).
  void add_dependency(const CommandPtr& cmd, const CommandPtr& dep);
  // Host waits until `cmd` has finished; the host clock moves to its end.
  void wait(const CommandPtr& cmd);
  // Host waits for everything issued on a device (or every device with -1).
  void wait_all(int device);
  // The host spends `ps` (a poll); the platform runs up to the new host time.
  void spend(std::uint64_t ps);
  // Whether `cmd` has finished by the host's current time.
  bool finished(const CommandPtr& cmd) const {
    return !cmd || (cmd->done && cmd->done_ps <= host_ps_);
  }
  std::uint64_t host_ps() const { return host_ps_; }
  // The last command of every stream that has not finished: all work issued
  // so far has run once these have.
  std::vector<CommandPtr> unfinished_work() const {
    std::vector<CommandPtr> out;
    for (const Stream* s : streams_)
      if (s->last && !s->last->done) out.push_back(s->last);
    return out;
  }
  // True while a command's functional effect runs (a host callback must not
  // call back into CUDA).
  bool in_effect() const { return in_effect_ > 0; }
  // Host functions and stream callbacks issued whose effect has not run.
  bool host_work_pending() const { return !host_pending_.empty(); }
  // Counts the host's submissions, waits and polls: unchanged means the host
  // has not called the runtime since.
  std::uint64_t host_activity() const { return host_activity_; }
  // Runs the functional effects of every pending host function now, each after
  // the effects of the commands it depends on, without moving simulated time:
  // the platform times them later exactly as it would have. A host function
  // after a suspended effect waits for it.
  void run_host_work_ahead();
  // The commands whose effects stopped part-way (Command::suspended) and have
  // not continued yet, in the order they stopped.
  const std::vector<CommandPtr>& suspended() const { return suspended_; }
  // Called after each command's functional effect (checks what it did to memory).
  void after_effect(std::function<void(Command&)> f) { after_effect_ = std::move(f); }
  // Called before the host observes device results (printf flushing).
  void on_sync(std::function<void()> f) { on_sync_ = std::move(f); }

 private:
  void enqueue(const CommandPtr& cmd, const std::vector<CommandPtr>& deps);
  void release(const CommandPtr& cmd);
  // The rest of release once the effect has run to its end.
  void finish_release(const CommandPtr& cmd);
  // Continues every suspended effect (the host or other work may have changed
  // what they wait for); true when one of them ended.
  bool resume_suspended();
  // Releases suspended_[index], whose effect has just ended.
  void release_resumed(std::size_t index);
  // Nothing else can change what the suspended effects wait for: the oldest
  // continues with must_finish (it faults). A grace first, in case another
  // host thread writes the memory without calling the runtime.
  void end_oldest_suspended();
  void complete(const CommandPtr& cmd, std::uint64_t done_ps);
  void drain();
  // Runs the effects of `cmd` and of every earlier command it waits for, in
  // dependency order (iteratively: a stream may hold a million of them).
  // False when one of them stopped part-way, so that `cmd`'s could not run.
  bool run_effect(const CommandPtr& cmd);
  void run_own_effect(Command& cmd);

  PlatformSession& session_;
  std::vector<Stream*> streams_;
  std::deque<CommandPtr> ready_;  // released in the order they became ready
  bool draining_ = false;
  std::uint64_t host_ps_ = 0;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, CommandPtr> in_flight_;
  const Command* awaited_ = nullptr;
  int in_effect_ = 0;
  std::function<void()> on_sync_;
  std::function<void(Command&)> after_effect_;
  std::vector<CommandPtr> host_pending_;
  std::vector<CommandPtr> suspended_;  // in the order they stopped
  std::uint64_t host_activity_ = 0;
};

}  // namespace cnuas::cuda
