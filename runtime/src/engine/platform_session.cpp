#include "engine/platform_session.h"

#include <fmt/format.h>

#include <cctype>

#include "core/kernel/errors.h"
#include "core/kernel/registry.h"
#include "core/kernel/run_context.h"
#include "core/kernel/sim_time.h"
#include "gpu/gpu_model.h"

namespace cnuas::cuda {
namespace {

unsigned parse_arch(const std::string& text, const SourceLocation& where) {
  unsigned major = 0, minor = 0;
  char dot = 0;
  if (std::sscanf(text.c_str(), "%u%c%u", &major, &dot, &minor) != 3 || dot != '.' || minor > 9 ||
      major == 0 || major > 20)
    throw InputError(where,
                     fmt::format("compute_capability '{}' is not MAJOR.MINOR (e.g. 9.0)", text));
  return major * 10 + minor;
}

KernelTiming parse_timing(const std::string& text, const std::string& what) {
  if (text == "analytic") return KernelTiming::Analytic;
  if (text == "performance") return KernelTiming::Performance;
  if (text == "functional") return KernelTiming::Functional;
  throw InputError(
      fmt::format("{} is '{}'; accepted: analytic, performance, functional", what, text));
}

// "name=mode,name=mode"
std::map<std::string, KernelTiming> parse_kernel_timing(const std::string& text,
                                                        const std::string& what) {
  std::map<std::string, KernelTiming> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(',', at);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(at, end - at);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError(
          fmt::format("{}: '{}' is not KERNEL=MODE (e.g. sgemm=performance)", what, item));
    out[item.substr(0, eq)] =
        parse_timing(item.substr(eq + 1), what + " for " + item.substr(0, eq));
    at = end + 1;
  }
  return out;
}

std::string module_name(const std::string& element) {
  std::string s = "cnuas_performance_";
  for (char c : element) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s;
}

}  // namespace

PlatformSession::PlatformSession(const SessionOptions& options) {
  // The runtime calls sc_start whenever the program waits; an idle call is normal here.
  sc_core::sc_report_handler::set_actions(sc_core::SC_ID_NO_SC_START_ACTIVITY_,
                                          sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  RunOptions run;
  run.platform_file = options.platform_file;
  run.trace_path = options.trace_path;
  run.stats_path = options.stats_path;
  run.perfetto_path = options.perfetto_path;
  run.sets = options.sets;
  run.program_driven = true;
  simulation_ = std::make_unique<Simulation>(run);
  const PlatformDesc& platform = simulation_->platform();
  for (const ElementInstance& e : platform.elements) {
    if (e.type == "cnuas.host_cpu" && host_.empty()) host_ = e.name;
    if (e.type != "cnuas.gpu") continue;
    const ParamSet params =
        resolve_params(*Registry::instance().find(e.type)->schema, e.values,
                       fmt::format("element '{}' ({})", e.name, e.type), e.where);
    DeviceDesc d;
    d.element = e.name;
    d.name = params.text("device_name");
    d.arch = parse_arch(params.text("compute_capability"), params.get("compute_capability").where);
    d.sm_count = static_cast<std::uint32_t>(params.integer("sm_count"));
    d.clock_khz = (params.quantity("sm_clock") / Rational(1000)).ceil_u64();
    d.memory_bytes = params.whole_bytes("memory_size", e.name);
    d.l2_bytes = params.whole_bytes("l2_size", e.name);
    d.bus_width = static_cast<std::uint32_t>(params.integer("memory_bus_width"));
    // Kernel timing: the element's mode and per-kernel modes, unless the run overrides them.
    const std::string who = fmt::format("element '{}'", e.name);
    const auto where = [&](const char* key) { return params.get(key).where; };
    try {
      d.timing = parse_timing(options.gpu_mode.empty() ? params.text("mode") : options.gpu_mode,
                              who + " mode");
      d.kernel_timing = parse_kernel_timing(
          options.gpu_kernel_modes.empty() ? params.text("kernel_modes") : options.gpu_kernel_modes,
          who + " kernel_modes");
    } catch (const InputError& err) {
      throw InputError(where("mode"), err.what());
    }
    bool performance = d.timing == KernelTiming::Performance;
    for (const auto& [kernel, timing] : d.kernel_timing)
      performance |= timing == KernelTiming::Performance;
    if (performance) {
      // The detailed model's modules must exist before elaboration ends.
      std::uint64_t sample = params.integer("sample_cycles");
      if (!options.gpu_sample_cycles.empty()) {
        try {
          sample = std::stoull(options.gpu_sample_cycles);
        } catch (const std::exception&) {
          sample = 0;
        }
        if (sample == 0)
          throw InputError(fmt::format("GPU sample cycles '{}' is not a positive integer",
                                       options.gpu_sample_cycles));
      }
      const std::string arch =
          options.gpu_architecture.empty() ? params.text("architecture") : options.gpu_architecture;
      try {
        performance_.push_back(std::make_unique<gpu::PerformanceGpu>(module_name(e.name),
                                                                     gpu::load_arch(arch), sample));
      } catch (const InputError& err) {
        throw InputError(where("architecture"),
                         fmt::format("{} architecture: {}", who, err.what()));
      }
      d.performance = performance_.back().get();
    }
    devices_.push_back(d);
  }
  const SourceLocation where{platform.file.empty() ? "<embedded default platform>" : platform.file};
  if (devices_.empty())
    throw InputError(where, fmt::format("platform '{}' has no cnuas.gpu element: the CUDA runtime "
                                        "needs at least one GPU",
                                        platform.name));
  if (host_.empty())
    throw InputError(where, fmt::format("platform '{}' has no cnuas.host_cpu element: the CUDA "
                                        "runtime needs the host the program runs on",
                                        platform.name));
  simulation_->begin_program();
  simulation_->program_driver().on_completion([this](Operation& op, std::uint64_t done_ps) {
    auto f = ids_.find(&op);
    const std::uint64_t id = f->second;
    ids_.erase(f);
    if (completion_) completion_(id, done_ps);
  });
}

PlatformSession::~PlatformSession() = default;

bool PlatformSession::connected(const std::string& a, const std::string& b) {
  try {
    route(a, b);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

const Route& PlatformSession::route(const std::string& from, const std::string& to) {
  auto [it, inserted] = routes_.try_emplace({from, to}, nullptr);
  if (inserted) {
    try {
      std::vector<std::string> path =
          simulation_->topology().path(from, to, SourceLocation{"cuda runtime"});
      if (path.size() > 1 && path.front() == host_) path.erase(path.begin());
      if (path.size() > 1 && path.back() == host_) path.pop_back();
      it->second = &simulation_->route_along(path);
    } catch (...) {
      routes_.erase(it);
      throw;
    }
  }
  return *it->second;
}

const Route& PlatformSession::local(const std::string& element) {
  auto [it, inserted] = routes_.try_emplace({element, element}, nullptr);
  if (inserted) it->second = &simulation_->route_along({element});
  return *it->second;
}

void PlatformSession::inject(std::uint64_t id, const std::string& name, const Route& route,
                             const WorkDims& dims, bool read, std::uint64_t ready_ps) {
  RunContext& context = simulation_->context();
  const OperationSpec& spec = context.add_spec({name, dims, false, read, ""});
  Operation op;
  op.spec = &spec;
  op.dims = &spec.dims;
  op.route = &route;
  op.mode = route.path.size() > 1 ? StageMode::Overlap : StageMode::Serial;
  Operation& stored = context.add_operation(op);
  ids_[&stored] = id;
  simulation_->program_driver().inject(stored, ready_ps);
}

std::uint64_t PlatformSession::now_ps() const {
  return sc_core::sc_time_stamp().value();
}

void PlatformSession::run() {
  sc_core::sc_start();
  simulation_->context().throw_if_failed();
}

void PlatformSession::run_until(std::uint64_t until_ps) {
  const std::uint64_t now = now_ps();
  if (until_ps > now) sc_core::sc_start(ps_time(until_ps - now), sc_core::SC_RUN_TO_TIME);
  simulation_->context().throw_if_failed();
}

void PlatformSession::finish() {
  simulation_->finish_program();
}

}  // namespace cnuas::cuda

// libsystemc refers to sc_main; a CUDA program has its own main() and never
// calls it, but the dynamic linker must find the symbol.
int sc_main(int, char*[]) {
  std::fprintf(stderr, "cnuas: sc_main is not used by the simulated CUDA runtime\n");
  return 2;
}
