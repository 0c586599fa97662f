#include "engine/platform_session.h"

#include <fmt/format.h>

#include "core/kernel/errors.h"
#include "core/kernel/registry.h"
#include "core/kernel/run_context.h"
#include "core/kernel/sim_time.h"
#include "run/progress_line.h"
#include "run/run_metadata.h"

namespace cnuas::cuda {

PlatformSession::PlatformSession(RunOptions options) {
  // The runtime calls sc_start whenever the program waits; an idle call is normal here.
  sc_core::sc_report_handler::set_actions(sc_core::SC_ID_NO_SC_START_ACTIVITY_,
                                          sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  options.program_driven = true;
  simulation_ = std::make_unique<Simulation>(options);
  const PlatformDesc& platform = simulation_->platform();
  for (const ElementInstance& e : platform.elements)
    if (e.type == "cnuas.host_cpu" && host_.empty()) host_ = e.name;
  const SourceLocation where{platform.file.empty() ? "<embedded default platform>" : platform.file};
  if (host_.empty())
    throw InputError(where, fmt::format("platform '{}' has no cnuas.host_cpu element: the CUDA "
                                        "runtime needs the host the program runs on",
                                        platform.name));
  // Elaborates: the elements, a device's performance model among them, exist from here on.
  simulation_->begin_program();
  for (const ElementInstance& e : platform.elements) {
    auto* device = dynamic_cast<gpu::Device*>(&simulation_->platform_module().element(e.name));
    if (!device) continue;
    DeviceDesc d;
    static_cast<gpu::DeviceDescription&>(d) = device->description();
    d.device = device;
    devices_.push_back(d);
  }
  if (devices_.empty())
    throw InputError(where, fmt::format("platform '{}' has no GPU (an element that is a CUDA "
                                        "device, such as cnuas.gpu): the CUDA runtime needs one",
                                        platform.name));
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
                             const WorkDims& dims, bool read, std::uint64_t ready_ps,
                             bool model_timed) {
  RunContext& context = simulation_->context();
  const OperationSpec& spec = context.add_spec({name, dims, false, read, "", "", model_timed});
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

// While the program waits on the simulation, a long wait (a kernel in the GPU
// performance model) shows a progress line on a terminal.
void PlatformSession::run() {
  const ProgressLine progress;
  sc_core::sc_start();
  simulation_->context().throw_if_failed();
}

void PlatformSession::run_until(std::uint64_t until_ps) {
  const std::uint64_t now = now_ps();
  if (until_ps > now) {
    const ProgressLine progress;
    sc_core::sc_start(ps_time(until_ps - now), sc_core::SC_RUN_TO_TIME);
  }
  simulation_->context().throw_if_failed();
}

Element& PlatformSession::element(const std::string& name, const SourceLocation& where) {
  if (!simulation_->platform().find(name))
    throw InputError(where, fmt::format("'{}' is no element of platform '{}'", name.substr(0, 60),
                                        simulation_->platform().name));
  return simulation_->platform_module().element(name);
}

void PlatformSession::mark(std::uint64_t at_ps, const Element& element, const std::string& kind,
                           const std::string& fields) {
  simulation_->context().trace().record_instant({at_ps, element.index(), kind, fields});
}

void PlatformSession::finish(const std::function<void(std::uint64_t)>& before_outputs) {
  simulation_->finish_program(before_outputs);
}

void PlatformSession::write_metadata(const std::string& path,
                                     const std::vector<std::string>& command_line) const {
  write_run_metadata_file(path, command_line, *simulation_);
}

}  // namespace cnuas::cuda

// libsystemc refers to sc_main; a CUDA program has its own main() and never
// calls it, but the dynamic linker must find the symbol.
int sc_main(int, char*[]) {
  std::fprintf(stderr, "cnuas: sc_main is not used by the simulated CUDA runtime\n");
  return 2;
}
