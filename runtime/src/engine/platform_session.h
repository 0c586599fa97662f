// The simulated platform a CUDA program runs on: booted in-process from the
// platform file the user names (or the embedded default), its GPU elements
// turned into CUDA devices, and operations injected as the program issues them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpu/device.h"
#include "run/simulation.h"

namespace cnuas::cuda {

// One CUDA device: a platform element that implements gpu::Device.
struct DeviceDesc : gpu::DeviceDescription {
  gpu::Device* device = nullptr;
};

class PlatformSession {
 public:
  // Boots the platform: elaborates it and takes every element that is a
  // gpu::Device as a CUDA device, in platform order. Throws InputError for a
  // bad platform or one without a host and a device.
  explicit PlatformSession(RunOptions options);
  ~PlatformSession();

  const std::vector<DeviceDesc>& devices() const { return devices_; }
  // The route between two elements, without a leading or trailing host CPU
  // (the copy engines move the data; no guest instructions are involved).
  const Route& route(const std::string& from, const std::string& to);
  const Route& local(const std::string& element);
  const std::string& host() const { return host_; }
  bool connected(const std::string& a, const std::string& b);

  using Completion = std::function<void(std::uint64_t id, std::uint64_t done_ps)>;
  void on_completion(Completion c) { completion_ = std::move(c); }
  // Starts an operation named `name` along `route` at `ready_ps`; its completion
  // is reported with `id`.
  // `model_timed`: its time came from the cycle-level GPU model.
  void inject(std::uint64_t id, const std::string& name, const Route& route, const WorkDims& dims,
              bool read, std::uint64_t ready_ps, bool model_timed = false);
  std::uint64_t in_flight() const { return simulation_->program_driver().in_flight(); }
  std::uint64_t now_ps() const;
  // Runs the simulation until it pauses (a completion asked for it) or runs dry.
  void run();
  // Runs the simulation up to `until_ps` (not beyond).
  void run_until(std::uint64_t until_ps);
  // The platform element `name` (a GPU a fault names); throws InputError at
  // `where` when there is none.
  Element& element(const std::string& name, const SourceLocation& where);
  // An instant in the trace: `kind` at `at_ps` on `element`, with JSON `fields`.
  void mark(std::uint64_t at_ps, const Element& element, const std::string& kind,
            const std::string& fields);
  // Runs what is left and writes the trace and statistics; `before_outputs`
  // runs in between, with the run's makespan.
  void finish(const std::function<void(std::uint64_t makespan_ps)>& before_outputs = {});
  std::string summary() const { return simulation_->summary(); }
  // The run's metadata (run/run_metadata.h) into `path`, after finish().
  void write_metadata(const std::string& path, const std::vector<std::string>& command_line) const;

 private:
  std::unique_ptr<Simulation> simulation_;
  std::vector<DeviceDesc> devices_;
  std::string host_;
  std::map<std::pair<std::string, std::string>, const Route*> routes_;
  std::map<const Operation*, std::uint64_t> ids_;
  Completion completion_;
};

}  // namespace cnuas::cuda
