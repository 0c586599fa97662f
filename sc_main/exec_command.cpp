// `cnuas exec`: runs an unmodified CUDA program on the simulated platform by
// putting the project's libcudart.so.13 and libcuda.so.1 first on the library
// path and passing the run's options through the environment.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "command_line.h"
#include "commands.h"
#include "core/kernel/errors.h"
#include "gpu/arch_config.h"
#include "gpu/device.h"
#include "run/program_settings.h"
#include "run/simulation.h"

namespace po = boost::program_options;

namespace cnuas::cli {
namespace {

// build/bin/cnuas finds build/lib; an installed bin/cnuas finds lib/.
std::string library_dir() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw InputError("cannot locate the cnuas executable: " + ec.message());
  return (exe.parent_path().parent_path() / "lib").string();
}

void set(const char* name, const std::string& value) {
  if (!value.empty()) ::setenv(name, value.c_str(), 1);
}

}  // namespace

int exec_command(const std::vector<std::string>& args) {
  std::string platform, trace, stats, perfetto, vcd, out_dir, log, kernel_limit, faults,
      host_memory_limit, checkpoint, checkpoint_at, resume;
  std::string gpu_mode, gpu_kernel_modes, gpu_arch, gpu_sample, gpu_compute_capability, gpu_stats,
      gpu_report;
  std::vector<std::string> sets;
  po::options_description opts("cnuas exec [options] -- PROGRAM [ARGS...]");
  opts.add_options()("help,h", "show this help")("platform,p", po::value(&platform),
                                                 "platform YAML (default: the embedded default)")(
      "trace", po::value(&trace), "write the ordered stage trace as JSON Lines at exit")(
      "stats", po::value(&stats), "write statistics as JSON at exit")(
      "perfetto", po::value(&perfetto), "write a Perfetto/Chrome JSON trace at exit")(
      "vcd", po::value(&vcd), "write VCD waveforms (and a GTKWave .gtkw beside them) at exit")(
      "out,o", po::value(&out_dir),
      "write trace.jsonl, trace.perfetto.json, waves.vcd, stats.json to DIR (options given "
      "alone win)")("set", po::value(&sets)->composing(),
                    "override a field: ELEMENT.FIELD=VALUE (repeatable)")(
      "log", po::value(&log),
      "runtime and element messages: quiet, warning (default), info or debug")(
      "strict-memory",
      "a kernel access past the end of an allocation faults even where the GPU lets it "
      "through (inside the allocation's mapped 2 MiB page)")(
      "no-launch-replay",
      "execute every kernel launch, even one identical to an earlier one in its kernel, "
      "arguments and device memory (by default its outcome is replayed: the same results, "
      "statistics and trace)")(
      "kernel-limit", po::value(&kernel_limit),
      "warp instructions one kernel launch may issue before it faults as a kernel that never "
      "ends (cudaErrorLaunchTimeout; default 2^40)")(
      "host-memory-limit", po::value(&host_memory_limit),
      "host memory device memory may take as it is first touched, e.g. 64 GiB (default: 90 % "
      "of the host's available memory); past it a touch fails with cudaErrorMemoryAllocation")(
      "faults", po::value(&faults),
      "GPU faults at simulated times, a YAML list: ecc_error, gpu_xid, gpu_throttle "
      "(docs/cuda-runtime.md)")(
      "checkpoint", po::value(&checkpoint),
      "write a checkpoint into this directory at the launch --checkpoint-at names (the run's "
      "kernels run in functional mode unless --gpu-mode says otherwise; the run goes on)")(
      "checkpoint-at", po::value(&checkpoint_at),
      "the host kernel launch to checkpoint at: INDEX (0: the first launch), NAME or NAME#N "
      "(the Nth launch of the kernel, mangled or demangled name); :CTA inside it, when the "
      "grid's CTA of that linear index is about to begin")(
      "checkpoint-stop",
      "end the program (exit status 0, no outputs) once the checkpoint is written")(
      "resume", po::value(&resume),
      "run the program from the checkpoint in this directory: launches before it are skipped, "
      "their recorded results restored (docs/user-guide.md, Checkpoint and resume)")(
      "gpu-mode", po::value(&gpu_mode),
      "kernel timing on every GPU: analytic, performance or functional (default: the platform's)")(
      "gpu-kernel-modes", po::value(&gpu_kernel_modes),
      "per-kernel timing, KERNEL=MODE,KERNEL=MODE")(
      "gpu-arch", po::value(&gpu_arch),
      "performance-model architecture: h100-sxm, h200-sxm, gtx-1080-ti or a YAML path")(
      "gpu-sample", po::value(&gpu_sample),
      "performance model: SM cycles per time-series sample (default: chosen per kernel)")(
      "gpu-compute-capability", po::value(&gpu_compute_capability),
      "the compute capability every GPU reports, MAJOR.MINOR (13.0 for cuBLAS and cuDNN)")(
      "gpu-stats", po::value(&gpu_stats), "write the performance model's statistics as JSON")(
      "gpu-report", po::value(&gpu_report),
      "write the performance model's HTML report and SVG pictures into this directory");
  const auto dash = std::find(args.begin(), args.end(), "--");
  const std::vector<std::string> own(args.begin(), dash);
  po::variables_map vm = parse_command_line(own, opts, nullptr);
  if (vm.count("help")) {
    std::cout << opts
              << "\nThe program must be built with nvcc -cudart shared. The same settings "
                 "as environment variables: CNUAS_PLATFORM, CNUAS_TRACE, CNUAS_STATS, "
                 "CNUAS_PERFETTO, CNUAS_VCD, CNUAS_SET (';'-separated), CNUAS_LOG, "
                 "CNUAS_SUMMARY (1: the summary on stderr), CNUAS_STRICT_MEMORY (1), "
                 "CNUAS_LAUNCH_REPLAY (0), "
                 "CNUAS_KERNEL_LIMIT, CNUAS_HOST_MEMORY_LIMIT, CNUAS_FAULTS, "
                 "CNUAS_CHECKPOINT, CNUAS_CHECKPOINT_AT, CNUAS_CHECKPOINT_STOP (1), CNUAS_RESUME, "
                 "CNUAS_GPU_MODE, "
                 "CNUAS_GPU_KERNEL_MODES, CNUAS_GPU_ARCH, CNUAS_GPU_SAMPLE, "
                 "CNUAS_GPU_COMPUTE_CAPABILITY, CNUAS_GPU_STATS, CNUAS_GPU_REPORT.\n";
    return 0;
  }
  if (dash == args.end() || dash + 1 == args.end())
    throw InputError("cnuas exec needs a program after '--': cnuas exec [options] -- ./program");
  if (!log.empty() && !parse_log_level(log))
    throw InputError("--log '" + log + "' is not a level; accepted: quiet, warning, info, debug");
  const std::map<std::string, const std::string*> field_values = {
      {"gpu-mode", &gpu_mode},
      {"gpu-kernel-modes", &gpu_kernel_modes},
      {"gpu-arch", &gpu_arch},
      {"gpu-sample", &gpu_sample},
      {"gpu-compute-capability", &gpu_compute_capability}};
  // A checkpoint run executes what comes before the checkpoint only to get
  // there: functionally, unless a mode is given.
  if (!checkpoint.empty() && gpu_mode.empty() && !std::getenv("CNUAS_GPU_MODE"))
    gpu_mode = "functional";
  if (!platform.empty()) platform = std::filesystem::absolute(platform).string();
  if (!out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec) throw InputError("cannot create output directory '" + out_dir + "': " + ec.message());
    const auto fill = [&](std::string& path, const char* file) {
      if (path.empty()) path = (std::filesystem::path(out_dir) / file).lexically_normal().string();
    };
    fill(trace, "trace.jsonl");
    fill(perfetto, "trace.perfetto.json");
    fill(vcd, "waves.vcd");
    fill(stats, "stats.json");
    set("CNUAS_CSV", (std::filesystem::path(out_dir) / "stats.csv").lexically_normal().string());
    set("CNUAS_METADATA",
        (std::filesystem::path(out_dir) / "metadata.json").lexically_normal().string());
    std::string command_line =
        "cnuas\x1f"
        "exec";
    for (const std::string& a : args) command_line += '\x1f' + a;
    set("CNUAS_COMMAND_LINE", command_line);
  }
  std::string joined;
  for (const std::string& s : sets) joined += (joined.empty() ? "" : ";") + s;
  set("CNUAS_PLATFORM", platform);
  set("CNUAS_TRACE", trace);
  set("CNUAS_STATS", stats);
  set("CNUAS_PERFETTO", perfetto);
  set("CNUAS_VCD", vcd);
  // Like cnuas run: a short summary on stderr (the program owns stdout).
  set("CNUAS_SUMMARY", "1");
  set("CNUAS_SET", joined);
  set("CNUAS_LOG", log);
  if (vm.count("strict-memory")) set("CNUAS_STRICT_MEMORY", "1");
  if (vm.count("no-launch-replay")) set("CNUAS_LAUNCH_REPLAY", "0");
  set("CNUAS_KERNEL_LIMIT", kernel_limit);
  set("CNUAS_HOST_MEMORY_LIMIT", host_memory_limit);
  set("CNUAS_FAULTS", faults.empty() ? faults : std::filesystem::absolute(faults).string());
  set("CNUAS_CHECKPOINT",
      checkpoint.empty() ? checkpoint : std::filesystem::absolute(checkpoint).string());
  set("CNUAS_CHECKPOINT_AT", checkpoint_at);
  if (vm.count("checkpoint-stop")) set("CNUAS_CHECKPOINT_STOP", "1");
  set("CNUAS_RESUME", resume.empty() ? resume : std::filesystem::absolute(resume).string());
  for (const FieldOption& o : kFieldOptions) set(o.variable, *field_values.at(o.option));
  set("CNUAS_GPU_STATS",
      gpu_stats.empty() ? gpu_stats : std::filesystem::absolute(gpu_stats).string());
  set("CNUAS_GPU_REPORT",
      gpu_report.empty() ? gpu_report : std::filesystem::absolute(gpu_report).string());
  {
    // Check what the program will boot with (these options and the variables
    // they leave in place) now, so that a mistake is reported before it starts.
    const ProgramSettings settings = program_settings_from_environment();
    Simulation validated(settings.run);
    for (const GpuFault& f : settings.faults)
      if (!validated.platform().find(f.target))
        throw InputError(f.target_where,
                         fmt::format("GPU fault target '{}' is no element of the platform",
                                     f.target.substr(0, 60)));
    for (const auto& o : settings.run.field_overrides) {
      if (o.field == std::string("kernel_modes"))
        gpu::parse_kernel_modes(o.value, SourceLocation{o.origin}, "kernel_modes");
      if (o.field == std::string("architecture")) gpu::load_arch(o.value);
    }
  }
  const char* old = std::getenv("LD_LIBRARY_PATH");
  set("LD_LIBRARY_PATH", library_dir() + (old && *old ? std::string(":") + old : ""));
  // The NVRTC hook keeps the PTX of the cubins the program's NVRTC compiles;
  // after what is preloaded already (a sanitizer runtime must come first).
  const std::string hook = library_dir() + "/libcnuas_nvrtc.so";
  if (std::filesystem::exists(hook)) {
    const char* preload = std::getenv("LD_PRELOAD");
    set("LD_PRELOAD", (preload && *preload ? std::string(preload) + ":" : "") + hook);
  }
  std::vector<char*> argv;
  for (auto it = dash + 1; it != args.end(); ++it) argv.push_back(const_cast<char*>(it->c_str()));
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  throw InputError(std::string("cannot run '") + argv[0] + "': " + std::strerror(errno));
}

}  // namespace cnuas::cli
