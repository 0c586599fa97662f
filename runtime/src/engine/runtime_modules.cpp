// Fat binaries and modules, kernels and symbols, launches on the PTX engine.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudart/error_names.h"
#include "engine/access_policies.h"
#include "engine/checkpoint.h"
#include "engine/device_images.h"
#include "engine/gpu_faults.h"
#include "engine/graph.h"
#include "engine/ptx_dump.h"
#include "engine/runtime.h"
#include "gpu/power_model.h"
#include "ptx/ir.h"
#include "ptx/stack.h"

namespace cnuas::cuda {
namespace {

constexpr std::uint64_t kMaxPortableCluster = 8, kMaxNonPortableCluster = 16;

// The CUDA error a kernel fault stands for, from the engine's message.
cudaError_t fault_code(const std::string& message) {
  // First: the asserted expression (in the message) may hold any words.
  if (message.find("device-side assert failed") != std::string::npos) return cudaErrorAssert;
  if (message.find("misaligned") != std::string::npos) return cudaErrorMisalignedAddress;
  if (message.find("outside any") != std::string::npos) return cudaErrorIllegalAddress;
  if (message.find("read-only") != std::string::npos) return cudaErrorIllegalAddress;
  // A kernel past the instruction limit is what a watchdog stops on the hardware.
  // So is one that spins on memory nothing will change any more.
  if (message.find("instruction limit") != std::string::npos ||
      message.find("can never finish") != std::string::npos)
    return cudaErrorLaunchTimeout;
  return cudaErrorLaunchFailure;
}

// Reads a library's fat binary container on first use: libraries carry
// hundreds, of which a program runs a few.
void read_library_image(Module& m) {
  try {
    m.entries = parse_fatbin(m.image, fatbin_read_limit(m.image), false);
  } catch (const FatbinError& e) {
    m.error = e.what();
    m.error_code = cudaErrorInvalidKernelImage;
  }
  m.image = nullptr;
}

}  // namespace

Registrations& Registrations::get() {
  static Registrations r;
  return r;
}

Module* Registrations::add_fatbin(const void* wrapper_ptr) {
  auto m = std::make_unique<Module>();
  const auto* wrapper = static_cast<const FatbinWrapper*>(wrapper_ptr);
  static const std::string program = [] {
    char path[4096] = {};
    const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
    return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : std::string("the program");
  }();
  m->origin = "the fat binary of " + program;
  try {
    if (!wrapper || static_cast<std::uint32_t>(wrapper->magic) != kFatbinWrapperMagic)
      throw FatbinError("the registered object is not an nvcc fat binary wrapper");
    const auto* data = reinterpret_cast<const std::uint8_t*>(wrapper->data);
    m->entries = parse_fatbin(data, fatbin_read_limit(data), false);
    // A device-linked program (-rdc=true): its translation units' fat binaries,
    // a null-terminated array, hold the PTX; its own holds the linked cubin.
    if (wrapper->version == kFatbinWrapperLinkVersion && wrapper->filename_or_fatbins)
      for (auto* unit = static_cast<const std::uint8_t* const*>(wrapper->filename_or_fatbins);
           *unit; ++unit)
        m->units.push_back(parse_fatbin(*unit, fatbin_read_limit(*unit), false));
  } catch (const FatbinError& e) {
    m->error = e.what();
    m->error_code = cudaErrorInvalidKernelImage;
  }
  modules.push_back(std::move(m));
  return modules.back().get();
}

Module* Runtime::load_ptx_module(const std::string& ptx, const std::string& origin) {
  auto m = std::make_unique<Module>();
  m->ptx = ptx;
  m->origin = origin;
  Registrations::get().modules.push_back(std::move(m));
  return Registrations::get().modules.back().get();
}

cudaError_t Runtime::load_fatbin_image(const void* image, Module** out) {
  const auto* bytes = static_cast<const std::uint8_t*>(image);
  std::uint32_t magic = 0;
  std::memcpy(&magic, bytes, 4);
  if (magic == kFatbinWrapperMagic) {
    *out = Registrations::get().add_fatbin(image);
  } else if (magic == kFatbinMagic) {
    auto m = std::make_unique<Module>();
    m->origin = "fat binary image";
    try {
      m->entries = parse_fatbin(bytes, fatbin_read_limit(bytes), false);
    } catch (const FatbinError& e) {
      m->error = e.what();
      m->error_code = cudaErrorInvalidKernelImage;
    }
    Registrations::get().modules.push_back(std::move(m));
    *out = Registrations::get().modules.back().get();
  } else if (is_elf(image)) {
    return load_elf_image(bytes, out);
  } else {
    *out = load_ptx_module(static_cast<const char*>(image), "module image");
  }
  return ensure_loaded(**out);
}

cudaError_t Runtime::ensure_loaded(Module& m) {
  if (m.loaded) return cudaSuccess;
  if (m.image) read_library_image(m);
  if (m.error.empty()) {
    const unsigned arch = devices_.front().desc.arch;
    std::string text = m.ptx;
    std::string file = m.origin;
    if (text.empty() && !m.units.empty()) {
      try {
        std::vector<std::string> skipped;
        text = link_relocatable_units(m.units, arch, m.origin, &skipped);
        file = "the device-linked PTX of " + m.origin;
        if (!skipped.empty())
          m.missing_units = fmt::format("{} of {} has no PTX for compute capability {}.{} or below",
                                        fmt::join(skipped, ", "), m.origin, arch / 10, arch % 10);
      } catch (const FatbinError& e) {
        m.error = e.what();
        m.error_code = cudaErrorNoKernelImageForDevice;
      } catch (const PtxLinkError& e) {
        m.error = fmt::format("device link failed: {}", e.what());
        m.error_code = cudaErrorInvalidPtx;
      }
    } else if (text.empty()) {
      const FatbinEntry* e = select_ptx(m.entries, arch);
      if (!e) {
        m.error = missing_ptx_advice(m.entries, arch);
        m.error_code = cudaErrorNoKernelImageForDevice;
      } else {
        text = e->text;
        file = fmt::format("{} (compute_{})", m.origin, e->arch);
        if (log_level_ >= LogLevel::Info)
          std::cerr << "cnuas: " << m.origin << ": runs its PTX for compute_" << e->arch
                    << " (of: " << entry_list(m.entries) << ")\n";
      }
    }
    if (m.error.empty()) {
      dump_ptx(file, text);
      try {
        m.parsed = ptx::Module::parse(text, file);
        std::string replaced_by;
        if (std::string edited = replacement_ptx(*m.parsed, &replaced_by); !edited.empty()) {
          if (log_level_ != LogLevel::Quiet)
            std::cerr << "cnuas: CNUAS_PTX_REPLACE: " << file << " is replaced by " << replaced_by
                      << "\n";
          text = std::move(edited);
          file = replaced_by;
          m.parsed = ptx::Module::parse(text, file);
        }
        if (capture_) m.source = text;
        m.loaded = std::make_unique<ptx::LoadedModule>(m.parsed, memory_);
      } catch (const std::exception& e) {
        m.error = e.what();
        m.error_code = cudaErrorInvalidPtx;
      }
    }
  }
  // Also for an error found when the module was registered (a corrupt fat binary).
  if (!m.error.empty() && !m.error_told && log_level_ != LogLevel::Quiet) {
    m.error_told = true;
    std::cerr << "cnuas: cannot load " << m.origin << ": " << m.error << "\n";
  }
  if (m.loaded) {
    // Managed variables: the program reaches them through a pointer the runtime fills.
    for (auto& [host, v] : Registrations::get().variables) {
      if (v.module != &m || !v.managed || !v.managed_host) continue;
      try {
        const std::uint64_t a = m.loaded->symbol_address(v.name);
        *v.managed_host = memory_.find(a, v.size);
      } catch (const std::exception&) {
      }
    }
    return cudaSuccess;
  }
  return record(m.error_code);
}

cudaError_t Runtime::kernel(const void* host, Kernel** out) {
  auto& kernels = Registrations::get().kernels;
  auto f = kernels.find(host);
  if (f == kernels.end()) return record(cudaErrorInvalidDeviceFunction);
  if (const cudaError_t e = ensure_loaded(*f->second.module)) return e;
  if (!function(f->second)) {
    // A kernel of a relocatable unit that had no PTX to link.
    const std::string& missing = f->second.module->missing_units;
    if (missing.empty()) return record(cudaErrorInvalidDeviceFunction);
    if (log_level_ != LogLevel::Quiet && notes_given_.insert(missing).second)
      std::cerr << "cnuas: kernel " << f->second.name << " cannot load: " << missing
                << "; rebuild with -gencode arch=compute_XX,code=compute_XX\n";
    return record(cudaErrorNoKernelImageForDevice);
  }
  *out = &f->second;
  return cudaSuccess;
}

cudaError_t Runtime::kernel_by_name(Module* m, const char* name, Kernel** out) {
  if (!m || !name) return record(cudaErrorInvalidValue);
  if (const cudaError_t e = ensure_loaded(*m)) return e;
  Kernel* k = kernel_handle(m, name);
  if (!function(*k)) return record(cudaErrorSymbolNotFound);
  *out = k;
  return cudaSuccess;
}

Kernel* Runtime::kernel_handle(Module* m, const std::string& name) {
  auto& slot = named_kernels_[{m, name}];
  if (!slot) {
    slot = std::make_unique<Kernel>();
    slot->module = m;
    slot->name = name;
  }
  return slot.get();
}

const ptx::Function* Runtime::function(const Kernel& k) const {
  if (!k.module || !k.module->parsed) return nullptr;
  const ptx::Function* f = k.module->parsed->find(k.name);
  return f && f->is_entry ? f : nullptr;
}

std::uint32_t Runtime::launch_stack_bytes(const Kernel& k) {
  if (const ptx::Function* f = function(k))
    stack_bytes =
        std::max<std::size_t>(stack_bytes, ptx::static_stack_bytes(*k.module->parsed, *f));
  return static_cast<std::uint32_t>(stack_bytes);
}

cudaError_t Runtime::symbol(const void* host, std::uint64_t* addr, std::size_t* size) {
  auto& vars = Registrations::get().variables;
  auto f = vars.find(host);
  if (f == vars.end()) return record(cudaErrorInvalidSymbol);
  return symbol_by_name(f->second.module, f->second.name.c_str(), addr, size);
}

cudaError_t Runtime::symbol_by_name(Module* m, const char* name, std::uint64_t* addr,
                                    std::size_t* size) {
  if (const cudaError_t e = ensure_loaded(*m)) return e;
  for (const ptx::Variable& v : m->parsed->variables) {
    if (v.name != name) continue;
    *addr = m->loaded->symbol_address(name);
    *size = v.size;
    return cudaSuccess;
  }
  return record(cudaErrorInvalidSymbol);
}

cudaError_t Runtime::launch(Kernel& k, const LaunchRequest& r, void** args) {
  const ptx::Function* f = function(k);
  if (!f) return record(cudaErrorInvalidDeviceFunction);
  std::vector<std::uint8_t> params(f->param_bytes);
  if (!f->params.empty() && !args) return record(cudaErrorInvalidValue);
  for (std::size_t i = 0; i < f->params.size(); ++i)
    std::memcpy(params.data() + f->params[i].offset, args[i], f->params[i].size);
  return launch_packed(k, r, std::move(params));
}

cudaError_t Runtime::launch_packed(Kernel& k, const LaunchRequest& r,
                                   std::vector<std::uint8_t> params) {
  if (!function(k)) return record(cudaErrorInvalidDeviceFunction);
  Stream* s = stream(r.stream);
  if (!s) return record(cudaErrorInvalidResourceHandle);
  if (const cudaError_t e = check_launch(k, r, params, s->device)) return e;
  LaunchRequest on_stream = r;  // the stream's access policy window, unless the launch has one
  on_stream.access_policy = access_policies_->for_launch(r, *s);
  submit(*s, kernel_command(k, on_stream, std::move(params), s->device));
  return cudaSuccess;
}

cudaError_t Runtime::check_launch(Kernel& k, const LaunchRequest& r,
                                  std::vector<std::uint8_t>& params, int dev) {
  const ptx::Function* f = function(k);
  if (!f) return record(cudaErrorInvalidDeviceFunction);
  // A packed buffer may carry the tail padding of the host struct it came from.
  if (params.size() < f->param_bytes) return record(cudaErrorInvalidValue);
  params.resize(f->param_bytes);
  const std::uint64_t threads = std::uint64_t{r.block.x} * r.block.y * r.block.z;
  if (threads == 0 || threads > 1024 || r.block.z > 64 || r.grid.x == 0 || r.grid.y == 0 ||
      r.grid.z == 0 || r.grid.x > 2147483647u || r.grid.y > 65535 || r.grid.z > 65535)
    return record(cudaErrorInvalidConfiguration);
  // .maxntid / .reqntid (__launch_bounds__): more threads than the kernel was
  // compiled for is refused as the driver refuses it.
  if (f->max_threads[0] != 0 && threads > std::uint64_t{f->max_threads[0]} *
                                              std::max(1u, f->max_threads[1]) *
                                              std::max(1u, f->max_threads[2])) {
    return record(cudaErrorLaunchOutOfResources);
  }
  // Cluster sizes (CUDA programming guide, thread block clusters): 8 CTAs is the portable
  // maximum; an H100 runs 16 when the kernel opts in to non-portable sizes.
  const std::uint64_t cluster =
      std::uint64_t{r.cluster.x} * r.cluster.y * r.cluster.z > 1
          ? std::uint64_t{r.cluster.x} * r.cluster.y * r.cluster.z
          : std::uint64_t{f->cluster_dims[0]} * f->cluster_dims[1] * f->cluster_dims[2];
  if (cluster > (k.non_portable_clusters ? kMaxNonPortableCluster : kMaxPortableCluster))
    return record(cudaErrorInvalidClusterSize);
  const std::size_t max_dynamic =
      k.max_dynamic_shared >= 0
          ? static_cast<std::size_t>(k.max_dynamic_shared)
          : (48u << 10) - std::min<std::size_t>(f->static_shared_bytes, 48u << 10);
  if (r.shared > max_dynamic) return record(cudaErrorInvalidValue);
  if (r.cooperative) {
    const int per_sm = max_active_blocks(k, static_cast<int>(threads), r.shared);
    const std::uint64_t ctas = std::uint64_t{r.grid.x} * r.grid.y * r.grid.z;
    if (ctas > std::uint64_t(per_sm) * device(dev).desc.sm_count)
      return record(cudaErrorCooperativeLaunchTooLarge);
  }
  return cudaSuccess;
}

CommandPtr Runtime::kernel_command(Kernel& k, const LaunchRequest& r,
                                   std::vector<std::uint8_t> params, int dev) {
  const ptx::Function* f = function(k);
  const std::uint64_t threads = std::uint64_t{r.block.x} * r.block.y * r.block.z;
  auto spec = std::make_shared<NodeSpec>();
  spec->type = NodeType::Kernel;
  spec->kernel = &k;
  spec->launch = r;
  spec->launch.stream = nullptr;
  spec->params = params;
  auto config = std::make_shared<ptx::LaunchConfig>();
  config->grid = {r.grid.x, r.grid.y, r.grid.z};
  config->block = {r.block.x, r.block.y, r.block.z};
  config->cluster = {r.cluster.x, r.cluster.y, r.cluster.z};
  config->dynamic_shared_bytes = static_cast<std::uint32_t>(r.shared);
  config->params = std::move(params);
  config->instruction_limit = kernel_limit_;
  config->stack_bytes = launch_stack_bytes(k);
  config->sm_count = device(dev).desc.sm_count;
  config->textures = &textures_;
  // How many CTAs the device holds resident at once (occupancy x SMs).
  config->resident_ctas =
      std::uint64_t(std::max(1, max_active_blocks(k, static_cast<int>(threads), r.shared))) *
      device(dev).desc.sm_count;
  if (r.cooperative) {
    DeviceState& d = device(dev);
    if (d.grid_workspace == 0) d.grid_workspace = memory_.allocate(64, 256);
    config->cooperative = true;
    config->envreg[1] = static_cast<std::uint32_t>(d.grid_workspace >> 32);
    config->envreg[2] = static_cast<std::uint32_t>(d.grid_workspace);
  }
  const bool captured = capture_ && capture_->select(k.name);
  auto cmd = std::make_shared<Command>();
  cmd->name = k.name;
  cmd->spec = std::move(spec);
  const DeviceDesc& desc = device(dev).desc;
  cmd->route = &session_->local(desc.element);
  gpu::KernelLaunch launch;
  launch.module = k.module->loaded.get();
  launch.kernel = k.name;
  launch.clustered = config->cluster.count() > 1 ||
                     f->cluster_dims[0] * f->cluster_dims[1] * f->cluster_dims[2] > 1;
  launch.l2_policy = r.access_policy ? *r.access_policy : gpu::L2AccessPolicy{};
  launch.l2_policy.set_aside_bytes = access_policies_->persisting_limit(dev);
  launch.l2_policy.fetch_bytes = access_policies_->model_fetch_bytes(dev);
  // The device executes the kernel when its stream lets it run, so that it
  // sees the memory every earlier command left.
  const int device_index = dev;
  if (gpu_faults_ && gpu_faults_->watches(dev))
    cmd->on_done = [this, dev](Command& c) { check_gpu_faults(c, dev); };
  Module& module = *k.module;
  // What the effect keeps between the parts of a grid that stops part-way
  // (Command::suspended): its saved CTAs, what ran before, its device-side launches.
  struct Parts {
    bool begun = false, may_stop = false;
    ptx::GridSnapshot stopped, resume_from;
    std::uint64_t warp_instructions = 0, bytes = 0;
    ptx::DeviceLaunches launched;  // dynamic parallelism: what the grid launches
  };
  auto parts = std::make_shared<Parts>();
  cmd->start = [this, launch, config, &desc, device_index, &module, captured,
                parts](Command& c) mutable {
    c.suspended = false;
    if (fault_ == cudaSuccess) {
      launch.config = config.get();
      const bool first_part = !parts->begun;
      parts->begun = true;
      ptx::DeviceLaunches& launched = parts->launched;
      launched.device = device_index;
      launched.device_count = device_count();
      config->device_launches = &launched;
      struct Detach {
        ptx::LaunchConfig& config;
        ~Detach() {
          config.device_launches = nullptr;
          config.suspend_into = nullptr;
        }
      } detach{*config};
      if (captured && first_part)
        capture_->before(launch.kernel, module.source, module.origin, *module.loaded, *config,
                         memory_);
      try {
        if (first_part) {
          if (checkpoints_ &&
              checkpoints_->before_launch(*module.loaded, launch.kernel, device_index, *config, c))
            return;  // skipped on resume: its recorded outcome is applied
          // Checkpoints and kernel captures follow one launch at a time from its
          // start to its end: with either, a grid runs to its end (or faults).
          parts->may_stop = !checkpoints_ && !captured;
        } else {
          config->grid_resume = &parts->resume_from;
        }
        // It may stop where only the host or other work can release it, unless
        // nothing else is left to do so (Command::must_finish): then it faults.
        if (parts->may_stop && !c.must_finish) config->suspend_into = &parts->stopped;
        gpu::KernelOutcome outcome = desc.device->execute(launch);
        if (!first_part) config->grid_resume = nullptr;
        if (outcome.suspended) {
          parts->warp_instructions += outcome.dims.get(WorkDim::WarpInstructions);
          parts->bytes += outcome.dims.get(WorkDim::Bytes);
          parts->resume_from = std::move(parts->stopped);
          c.suspended = true;
          print_memory_reports();
          return;
        }
        // An analytic timing counts every part's work.
        for (const auto& [dim, before] :
             {std::pair{WorkDim::WarpInstructions, parts->warp_instructions},
              std::pair{WorkDim::Bytes, parts->bytes}})
          if (outcome.dims.has(dim)) outcome.dims.set(dim, outcome.dims.get(dim) + before);
        if (captured) capture_->after(*module.loaded, memory_, true);
        if (!outcome.note.empty() && notes_given_.insert(outcome.note).second &&
            log_level_ != LogLevel::Quiet)
          std::cerr << "cnuas: " << outcome.note << "\n";
        // The grid's own run, then its children's (dynamic parallelism).
        auto runs = std::make_shared<std::vector<gpu::KernelRun>>();
        if (outcome.run) runs->push_back(std::move(*outcome.run));
        outcome.run.reset();
        run_device_work(desc, module, launched, outcome, *runs);
        c.dims = outcome.dims;
        c.model_timed = !runs->empty();
        if (checkpoints_) checkpoints_->after_launch(c);
        // Kept in simulated order: the effect may have run ahead of it.
        if (!runs->empty())
          c.on_release = [this, &desc, runs] {
            for (gpu::KernelRun& run : *runs) keep_performance_run(desc, std::move(run));
          };
        print_memory_reports();
        return;
      } catch (const ptx::ExecutionError& e) {
        if (captured) capture_->after(*module.loaded, memory_, false);
        fault_ = fault_code(e.what());
        fault_command_ = c.shared_from_this();
        if (log_level_ != LogLevel::Quiet) std::cerr << "cnuas: kernel fault: " << e.what() << "\n";
      } catch (const std::invalid_argument& e) {
        if (captured) capture_->after(*module.loaded, memory_, false);
        fault_ = cudaErrorLaunchFailure;
        fault_command_ = c.shared_from_this();
        if (log_level_ != LogLevel::Quiet)
          std::cerr << "cnuas: launch failed: " << e.what() << "\n";
      }
    }
    print_memory_reports();
    c.dims.set(WorkDim::DeviceTime, 0);  // a faulted kernel takes its launch overhead
  };
  return cmd;
}

void Runtime::check_gpu_faults(Command& c, int dev) {
  const std::optional<GpuFaultPlan::Hit> hit = gpu_faults_->kernel_ended(dev, c.done_ps);
  if (!hit) return;
  if (log_level_ != LogLevel::Quiet)
    std::cerr << fmt::format(
        "cnuas: {} (device {}): Xid {} ({}) at {} ps: kernel '{}' ({} ps to {} ps) fails with "
        "{}\n",
        hit->fault->target, dev, hit->fault->xid, xid_meaning(hit->fault->xid), hit->fault->at_ps,
        c.name, c.ready_ps, c.done_ps, error_name(hit->error));
  // The first fault the program would see wins; one of a later kernel whose
  // effect ran ahead has not been seen yet.
  if (fault_ != cudaSuccess && fault_command_ && fault_command_->done) return;
  fault_ = hit->error;
  fault_command_ = c.shared_from_this();
  fault_survives_reset_ = hit->survives_reset;
}

void Runtime::print_memory_reports() {
  for (const std::string& r : memory_.take_reports())
    if (log_level_ != LogLevel::Quiet) std::cerr << "cnuas: memory check: " << r << "\n";
}

cudaError_t Runtime::func_attributes(Kernel& k, cudaFuncAttributes* a) {
  const ptx::Function* f = function(k);
  if (!f || !a) return record(cudaErrorInvalidValue);
  std::memset(a, 0, sizeof *a);
  a->sharedSizeBytes = f->static_shared_bytes;
  std::size_t constant = 0;
  for (const ptx::Variable& v : k.module->parsed->variables)
    if (v.space == ptx::Space::Const) constant += v.size;
  a->constSizeBytes = constant;
  a->localSizeBytes = f->local_bytes;
  const std::uint32_t declared =
      f->max_threads[0]
          ? f->max_threads[0] * std::max(1u, f->max_threads[1]) * std::max(1u, f->max_threads[2])
          : 1024;
  a->maxThreadsPerBlock = static_cast<int>(std::min<std::uint32_t>(declared, 1024));
  a->numRegs = kAssumedRegisters;
  unsigned major = 0, minor = 0;
  std::sscanf(k.module->parsed->version.c_str(), "%u.%u", &major, &minor);
  a->ptxVersion = static_cast<int>(major * 10 + minor);
  a->binaryVersion = static_cast<int>(devices_.front().desc.arch);
  a->maxDynamicSharedSizeBytes =
      k.max_dynamic_shared >= 0
          ? k.max_dynamic_shared
          : static_cast<int>((48u << 10) -
                             std::min<std::size_t>(f->static_shared_bytes, 48u << 10));
  a->requiredClusterWidth = static_cast<int>(f->cluster_dims[0] > 1 ? f->cluster_dims[0] : 0);
  a->requiredClusterHeight = static_cast<int>(f->cluster_dims[0] > 1 ? f->cluster_dims[1] : 0);
  a->requiredClusterDepth = static_cast<int>(f->cluster_dims[0] > 1 ? f->cluster_dims[2] : 0);
  return cudaSuccess;
}

// Resident CTAs per SM: the tightest of the CTA, warp, register and shared
// memory limits (registers at kAssumedRegisters per thread, allocated per warp).
int Runtime::max_active_blocks(Kernel& k, int block, std::size_t dynamic_shared) {
  const ptx::Function* f = function(k);
  if (!f || block <= 0) return 0;
  cudaDeviceProp p;
  fill_properties(p, current_device());
  const int warps = (block + 31) / 32;
  int blocks = p.maxBlocksPerMultiProcessor;
  blocks = std::min(blocks, p.maxThreadsPerMultiProcessor / (warps * 32));
  blocks = std::min(blocks, p.regsPerMultiprocessor / (warps * 32 * kAssumedRegisters));
  const std::size_t shared = f->static_shared_bytes + dynamic_shared;
  if (shared > 0)
    blocks = std::min<int>(blocks, static_cast<int>(p.sharedMemPerMultiprocessor /
                                                    (shared + p.reservedSharedMemPerBlock)));
  return std::max(blocks, 0);
}

}  // namespace cnuas::cuda
