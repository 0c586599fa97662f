#include "engine/runtime.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "core/kernel/errors.h"
#include "engine/access_policies.h"
#include "engine/checkpoint.h"
#include "engine/gpu_faults.h"
#include "engine/graph_capture.h"
#include "engine/ipc_handles.h"
#include "engine/library_capability.h"
#include "engine/memory_pools.h"
#include "engine/virtual_memory.h"
#include "gpu/perf_json.h"
#include "gpu/perf_report.h"
#include "ptx/host_backing.h"
#include "run/program_settings.h"

namespace cnuas::cuda {
namespace {

thread_local int t_device = 0;
thread_local int t_context_device = -1;
std::atomic<bool> g_driver_initialized{false};
thread_local cudaError_t t_last_error = cudaSuccess;

}  // namespace

std::recursive_mutex& Runtime::lock() {
  static std::recursive_mutex m;
  return m;
}

// The runtime, and with it the platform, lives until the process ends, on
// purpose: programs make CUDA calls from static destructors, which run after
// exit handlers, so it is never destroyed. An exit handler writes the outputs
// (finish); the operating system takes the memory back.
Runtime& Runtime::get() {
  static Runtime* runtime = nullptr;
  if (!runtime) {
    try {
      runtime = new Runtime();
    } catch (const InputError& e) {
      std::cerr << "cnuas: " << e.what() << "\n";
      std::exit(2);
    } catch (const std::exception& e) {
      std::cerr << "cnuas: cannot start the simulated platform: " << e.what() << "\n";
      std::exit(2);
    }
    std::atexit([] { runtime->finish(); });
  }
  return *runtime;
}

// Every setting comes from the environment, read once
// (run/program_settings.h); cnuas exec checked the same settings before the
// program started.
Runtime::Runtime() {
  ProgramSettings settings = program_settings_from_environment();
  gpu_stats_path_ = settings.gpu_stats_path;
  gpu_report_dir_ = settings.gpu_report_dir;
  metadata_path_ = settings.metadata_path;
  command_line_ = settings.command_line;
  kernel_limit_ = settings.kernel_limit;
  capture_ = KernelCapture::from_environment();
  log_level_ = settings.run.log_level;
  summary_ = settings.summary;  // also the level of elements whose `log` is inherit
  // Kernel accesses past an allocation's end inside a mapped page: let
  // through with a warning, as the hardware does, or a fault when strict.
  memory_.set_strict(settings.strict_memory);
  const std::string platform_file = settings.run.platform_file;
  if (const auto library = loaded_library_needing_newer_gpu();
      library && std::getenv("CNUAS_GPU_COMPUTE_CAPABILITY") == nullptr) {
    settings.run.field_overrides.push_back(
        {"compute_capability", kLibraryComputeCapability,
         fmt::format("{} is loaded (set CNUAS_GPU_COMPUTE_CAPABILITY to choose)", *library)});
    if (log_level_ >= LogLevel::Info)
      std::cerr << fmt::format(
          "cnuas: {} is loaded: the GPUs report compute capability {}, for which it hands the "
          "driver PTX (set CNUAS_GPU_COMPUTE_CAPABILITY to choose another)\n",
          *library, kLibraryComputeCapability);
  }
  session_ = std::make_unique<PlatformSession>(std::move(settings.run));
  timeline_ = std::make_unique<Timeline>(*session_);
  if (!settings.faults.empty())
    gpu_faults_ = std::make_unique<GpuFaultPlan>(std::move(settings.faults), *session_);
  timeline_->on_sync([this] { flush_printf(); });
  if (settings.host_memory_limit) ptx::host_backing::set_limit(settings.host_memory_limit);
  timeline_->after_effect([this](Command& c) { check_host_memory(c); });
  for (std::size_t i = 0; i < session_->devices().size(); ++i) {
    DeviceState d;
    d.desc = session_->devices()[i];
    d.desc.device->attach(memory_, printf_);
    d.desc.device->set_launch_replay(settings.launch_replay);
    d.legacy = std::make_unique<Stream>();
    d.legacy->device = static_cast<int>(i);
    d.legacy->legacy = true;
    d.per_thread = std::make_unique<Stream>();
    d.per_thread->device = static_cast<int>(i);
    devices_.push_back(std::move(d));
  }
  for (DeviceState& d : devices_) {
    timeline_->add_stream(d.legacy.get());
    timeline_->add_stream(d.per_thread.get());
  }
  memory_pools_ = std::make_unique<MemoryPools>(*this);
  virtual_memory_ = std::make_unique<VirtualMemory>(*this);
  ipc_ = std::make_unique<IpcHandles>(*this);
  access_policies_ = std::make_unique<AccessPolicies>(*this);
  checkpoints_ = Checkpoints::from_settings(settings, memory_, printf_);
  if (checkpoints_)
    checkpoints_->allocations = [this] {
      std::vector<CheckpointAllocation> table;
      for (const auto& [base, a] : allocations_)
        table.push_back({a.base, a.bytes, static_cast<std::uint32_t>(a.device),
                         static_cast<std::uint32_t>(a.kind)});
      return table;
    };
  if (log_level_ >= LogLevel::Info)
    std::cerr << fmt::format("cnuas: CUDA runtime on platform '{}' with {} GPU(s)\n",
                             platform_file.empty() ? "default" : platform_file, devices_.size());
}

void Runtime::finish() {
  std::lock_guard<std::recursive_mutex> guard(lock());
  if (finished_) return;
  finished_ = true;
  try {
    flush_printf();
    // As on hardware, the process ends with them: said, since their results never came.
    for (const CommandPtr& c : timeline_->suspended())
      if (log_level_ != LogLevel::Quiet)
        std::cerr << "cnuas: kernel " << c->name
                  << " was still waiting for memory the program never set when it ended\n";
    if (capture_) capture_->report_missing();
    session_->finish([this](std::uint64_t end_ps) {
      if (gpu_faults_) gpu_faults_->finish(end_ps, log_level_);
    });
    if (checkpoints_) checkpoints_->finish();
    write_gpu_outputs();
    if (!metadata_path_.empty()) session_->write_metadata(metadata_path_, command_line_);
    if (log_level_ >= LogLevel::Info || (summary_ && log_level_ > LogLevel::Quiet)) {
      std::cerr << session_->summary();
      std::uint64_t replayed = 0;
      for (const DeviceState& d : devices_) replayed += d.desc.device->replayed_launches();
      if (replayed)
        std::cerr << fmt::format(
            "cnuas: {} kernel launch(es) replayed: identical to an earlier one in kernel, "
            "arguments and device memory (--no-launch-replay executes them)\n",
            replayed);
    }
  } catch (const std::exception& e) {
    std::cerr << "cnuas: " << e.what() << "\n";
    std::_Exit(2);
  }
}

Runtime::~Runtime() = default;

// Device memory takes host memory as it is first touched, within a budget
// (ptx/host_backing.h): a touch past it fails the command that made it as a
// kernel fault does (sticky), instead of the OOM killer ending the process.
void Runtime::check_host_memory(Command& c) {
  if (!ptx::host_backing::take_refused()) return;
  if (log_level_ != LogLevel::Quiet)
    std::cerr << fmt::format(
        "cnuas: {} fails with cudaErrorMemoryAllocation: device memory has taken {} bytes of "
        "host memory, and a further 2 MiB page would pass the limit of {} bytes (raise it with "
        "CNUAS_HOST_MEMORY_LIMIT or cnuas exec --host-memory-limit; the default is 90 % of the "
        "host's available memory)\n",
        c.name.empty() ? std::string("a command") : "'" + c.name + "'",
        ptx::host_backing::committed(), ptx::host_backing::limit());
  if (fault_ != cudaSuccess && fault_command_ && fault_command_->done) return;
  fault_ = cudaErrorMemoryAllocation;
  fault_command_ = c.shared_from_this();
  fault_survives_reset_ = false;
}

void Runtime::keep_performance_run(const DeviceDesc& device, gpu::KernelRun run) {
  if (gpu_stats_path_.empty() && gpu_report_dir_.empty()) return;
  if (performance_runs_.size() >= kKeptSeries) run.windows.clear();
  performance_runs_.push_back(
      {device.element, device.device->performance_architecture(), std::move(run)});
}

// The performance model's statistics (JSON) and report (HTML + SVG), when asked for.
void Runtime::write_gpu_outputs() {
  if (!gpu_stats_path_.empty()) {
    nlohmann::json j;
    j["class"] = "performance model: cycle-level virtual time, uncalibrated";
    j["kernels"] = nlohmann::json::array();
    for (const PerformanceKernel& k : performance_runs_) {
      nlohmann::json kj = gpu::kernel_json(k.run, *k.arch);
      kj["device"] = k.device;
      if (k.run.windows.empty())
        kj["series"]["omitted"] = fmt::format(
            "time series are kept for the first {} performance-mode kernels", kKeptSeries);
      j["kernels"].push_back(std::move(kj));
    }
    // For the run: each GPU's kernels together (cycles add up; the GPU's idle
    // time between kernels is not in them).
    j["devices"] = nlohmann::json::array();
    for (const DeviceState& d : devices_) {
      const gpu::ArchConfig* arch = d.desc.device->performance_architecture();
      if (!arch) continue;
      gpu::Counters sum;
      std::uint64_t cycles = 0, kernels = 0, ps = 0;
      bool throttled = false;  // power capping changed a kernel's SM clock: time from ps
      for (const PerformanceKernel& k : performance_runs_)
        if (k.device == d.desc.element) {
          sum.add(k.run.total);
          cycles += k.run.cycles;
          ps += k.run.time_ps;
          throttled = throttled || gpu::clock_changed(k.run);
          ++kernels;
        }
      if (kernels == 0) continue;
      nlohmann::json dj = gpu::summary_json(sum, *arch, cycles, throttled ? ps : 0);
      dj["device"] = d.desc.element;
      dj["architecture"] = arch->name;
      // What CUDA programs were told, which may be another part than the
      // model's (a newer capability, for libraries to hand over their PTX).
      dj["compute_capability"] = fmt::format("{}.{}", d.desc.arch / 10, d.desc.arch % 10);
      dj["kernels"] = kernels;
      j["devices"].push_back(std::move(dj));
    }
    std::ofstream out(gpu_stats_path_);
    out << j.dump(1) << "\n";
    if (!out) throw InputError("cannot write the GPU statistics to " + gpu_stats_path_);
  }
  if (!gpu_report_dir_.empty()) {
    std::vector<gpu::ReportedKernel> kernels;
    for (const PerformanceKernel& k : performance_runs_)
      if (!k.run.windows.empty()) kernels.push_back({&k.run, k.arch, k.device});
    try {
      gpu::write_report(gpu_report_dir_, kernels);
    } catch (const std::runtime_error& e) {
      throw InputError(std::string("GPU report: ") + e.what());
    }
  }
}

void Runtime::flush_printf() {
  const std::string text = printf_.str();
  if (text.empty()) return;
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  printf_.str("");
}

// ---- errors ----

cudaError_t Runtime::record(cudaError_t e) {
  if (e != cudaSuccess) t_last_error = e;
  return e;
}

cudaError_t Runtime::take_last_error() {
  const cudaError_t e = sticky() != cudaSuccess ? sticky() : t_last_error;
  t_last_error = cudaSuccess;
  return e;
}

cudaError_t Runtime::thread_last_error() const {
  return t_last_error;
}

void Runtime::set_thread_last_error(cudaError_t e) {
  t_last_error = e;
}

cudaError_t Runtime::peek_last_error() const {
  return sticky() != cudaSuccess ? sticky() : t_last_error;
}

cudaError_t Runtime::unsupported(const char* function) {
  if (unsupported_named_.insert(function).second && log_level_ != LogLevel::Quiet)
    std::cerr << "cnuas: " << function
              << " is not supported by the simulator; it returns not-supported "
                 "(cudaErrorNotSupported, CUDA_ERROR_NOT_SUPPORTED)\n";
  return record(cudaErrorNotSupported);
}

// ---- devices ----

int Runtime::current_device() const {
  return t_device;
}

cudaError_t Runtime::set_device(int device) {
  if (device < 0 || device >= device_count()) return record(cudaErrorInvalidDevice);
  make_context_current(device);
  return cudaSuccess;
}

// ---- contexts ----

bool Runtime::initialized() {
  return g_driver_initialized.load();
}

void Runtime::initialize() {
  g_driver_initialized.store(true);
}

int Runtime::context_device() const {
  return t_context_device;
}

void Runtime::make_context_current(int device) {
  t_context_device = device;
  if (device >= 0) t_device = device;
}

void Runtime::enter_runtime_call() {
  initialize();
  if (t_context_device < 0) t_context_device = t_device;
}

bool Runtime::can_access_peer(int device, int peer) {
  if (device == peer || device < 0 || peer < 0 || device >= device_count() ||
      peer >= device_count())
    return false;
  return session_->connected(devices_[static_cast<std::size_t>(device)].desc.element,
                             devices_[static_cast<std::size_t>(peer)].desc.element);
}

cudaError_t Runtime::enable_peer(int peer) {
  const int d = current_device();
  if (peer < 0 || peer >= device_count()) return record(cudaErrorInvalidDevice);
  if (!can_access_peer(d, peer)) return record(cudaErrorPeerAccessUnsupported);
  if (!device(d).peers.insert(peer).second) return record(cudaErrorPeerAccessAlreadyEnabled);
  return cudaSuccess;
}

cudaError_t Runtime::disable_peer(int peer) {
  if (peer < 0 || peer >= device_count()) return record(cudaErrorInvalidDevice);
  if (device(current_device()).peers.erase(peer) == 0) return record(cudaErrorPeerAccessNotEnabled);
  return cudaSuccess;
}

// ---- streams and events ----

Stream* Runtime::stream(cudaStream_t s) {
  const auto v = reinterpret_cast<std::uintptr_t>(s);
  DeviceState& d = device(current_device());
  if (v == 0) return per_thread_default ? per_thread_stream() : d.legacy.get();
  if (v == 1) return d.legacy.get();
  if (v == 2) return per_thread_stream();
  Stream* p = reinterpret_cast<Stream*>(s);
  return streams_.count(p) ? p : nullptr;
}

Stream* Runtime::per_thread_stream() {
  const int device_index = current_device();
  DeviceState& d = device(device_index);
  const std::thread::id me = std::this_thread::get_id();
  if (d.per_thread_owner == std::thread::id()) d.per_thread_owner = me;
  if (d.per_thread_owner == me) return d.per_thread.get();
  std::unique_ptr<Stream>& own = d.other_per_thread[me];
  if (!own) {  // a blocking stream of the device, as the first thread's is
    own = std::make_unique<Stream>();
    own->device = device_index;
    timeline_->add_stream(own.get());
  }
  return own.get();
}

Stream* Runtime::create_stream(unsigned flags, int priority) {
  auto owned = std::make_unique<Stream>();
  Stream* s = owned.get();
  s->device = current_device();
  s->flags = flags;
  s->priority = priority;
  streams_.emplace(s, std::move(owned));
  timeline_->add_stream(s);
  return s;
}

cudaError_t Runtime::destroy_stream(cudaStream_t handle) {
  Stream* s = reinterpret_cast<Stream*>(handle);
  if (!streams_.count(s)) return record(cudaErrorInvalidResourceHandle);
  // Work already issued still completes (CUDA semantics); it keeps the commands alive.
  timeline_->remove_stream(s);
  streams_.erase(s);
  return cudaSuccess;
}

Event* Runtime::event(cudaEvent_t e) {
  Event* p = reinterpret_cast<Event*>(e);
  return events_.count(p) ? p : nullptr;
}

Event* Runtime::create_event(unsigned flags) {
  auto owned = std::make_unique<Event>();
  Event* e = owned.get();
  e->flags = flags;
  e->device = current_device();
  events_.emplace(e, std::move(owned));
  return e;
}

cudaError_t Runtime::destroy_event(cudaEvent_t handle) {
  Event* e = event(handle);
  if (!e) return record(cudaErrorInvalidResourceHandle);
  if (--e->references > 0) return cudaSuccess;  // still opened through an IPC handle
  events_.erase(e);
  return cudaSuccess;
}

cudaError_t Runtime::synchronize_device() {
  timeline_->wait_all(current_device());
  memory_pools_->synchronized();
  return sticky();
}

void Runtime::record_event(Event& e, Stream& s) {
  if (s.capturing()) return capture_event_record(e, s);
  e.captured_in.reset();
  auto marker = std::make_shared<Command>();
  marker->name = "event";
  e.marker = marker;
  e.device = s.device;
  submit(s, marker);
}

// A poll (cudaStreamQuery, cudaEventQuery) costs the host this much simulated
// time, so that a program spinning on one sees the device make progress.
constexpr std::uint64_t kPollPs = 1'000'000;  // 1 us

bool Runtime::poll(const CommandPtr& c) {
  if (timeline_->finished(c)) return true;
  timeline_->spend(kPollPs);
  return timeline_->finished(c);
}

cudaError_t Runtime::elapsed_ms(Event* start, Event* end, float* ms) {
  if (!ms) return record(cudaErrorInvalidValue);
  if (!start || !end || !start->marker || !end->marker ||
      ((start->flags | end->flags) & cudaEventDisableTiming))
    return record(cudaErrorInvalidResourceHandle);
  if (!timeline_->finished(start->marker) || !timeline_->finished(end->marker))
    return record(cudaErrorNotReady);
  const double delta =
      static_cast<double>(end->marker->done_ps) - static_cast<double>(start->marker->done_ps);
  *ms = static_cast<float>(delta / 1e9);
  return cudaSuccess;
}

}  // namespace cnuas::cuda
