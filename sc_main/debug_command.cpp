// `cnuas debug`: the kernel debugger (docs/kernel-debugger.md). capture
// records one launch of a CUDA program; replay, trace and instrument run that
// capture alone; diff compares two register-write logs.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "command_line.h"
#include "commands.h"
#include "core/kernel/errors.h"
#include "debugger/capture.h"
#include "debugger/instrument.h"
#include "debugger/log_diff.h"
#include "debugger/register_log.h"
#include "debugger/replay.h"
#include "gpu/arch_config.h"
#include "gpu/gpu_model.h"
#include "ptx/errors.h"

namespace po = boost::program_options;

namespace cnuas::cli {
namespace {

// Exit status when the debugger found a difference (outputs, logs) or the
// replayed kernel faulted: the run worked, its answer is "not the same".
constexpr int kDifferentExit = 3;

const char* kUsage =
    "cnuas debug capture --kernel NAME[#N] --out CAP [--ptx-override K=FILE] -- PROGRAM [ARGS...]\n"
    "cnuas debug replay CAP [--gpu-mode functional|performance] [--gpu-arch ARCH]\n"
    "cnuas debug trace CAP --out LOG [--threads RANGE] [--ptx FILE]\n"
    "cnuas debug instrument CAP --out DIR\n"
    "cnuas debug diff LOG_A LOG_B\n"
    "  capture records launch N (from 0) of a kernel: PTX, configuration, parameters and the\n"
    "  buffers its pointers reach, before and after; replay runs it alone and compares the\n"
    "  outputs; trace logs every register write per thread; instrument writes a CUDA program\n"
    "  and PTX that log the same on a GPU; diff names each thread's first divergent write.\n"
    "Exit status: 0 same, 3 different (or the replayed kernel faulted), 2 bad input.\n";

std::vector<std::string> tail(const std::vector<std::string>& args) {
  return std::vector<std::string>(args.begin() + 1, args.end());
}

int capture(const std::vector<std::string>& args) {
  std::string kernel, out;
  std::vector<std::string> overrides;
  po::options_description opts(
      "cnuas debug capture --kernel NAME[#N] --out CAP [options] -- PROGRAM [ARGS...]");
  opts.add_options()("help,h", "show this help")(
      "kernel", po::value(&kernel),
      "the launch to record: NAME (the first) or NAME#N (the Nth from 0); NAME is the .entry "
      "name or the C++ kernel name")("out,o", po::value(&out), "the capture file to write")(
      "ptx-override", po::value(&overrides)->composing(),
      "KERNEL=FILE.ptx: load FILE instead of the PTX module that defines KERNEL (repeatable)");
  const auto dash = std::find(args.begin(), args.end(), "--");
  po::variables_map vm = parse_command_line(std::vector<std::string>(args.begin(), dash), opts);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  if (kernel.empty()) throw InputError("debug capture needs --kernel NAME[#N]");
  if (out.empty()) throw InputError("debug capture needs --out CAP");
  if (dash == args.end() || dash + 1 == args.end())
    throw InputError("debug capture needs a program after '--'");
  if (const std::size_t hash = kernel.rfind('#'); hash != std::string::npos) {
    const std::string n = kernel.substr(hash + 1);
    if (hash == 0 || n.empty() || n.size() > 9 ||
        n.find_first_not_of("0123456789") != std::string::npos)
      throw InputError(
          fmt::format("--kernel '{}': accepted: NAME or NAME#N, N counting the "
                      "launches of NAME from 0",
                      kernel));
  }
  out = std::filesystem::absolute(out).string();
  std::error_code ec;
  std::filesystem::remove(out, ec);
  std::string replace;
  for (const std::string& o : overrides) {
    const std::size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == o.size())
      throw InputError(fmt::format("--ptx-override '{}' is no KERNEL=FILE.ptx", o));
    const std::string file = o.substr(eq + 1);
    if (!std::filesystem::is_regular_file(file))
      throw InputError(fmt::format("--ptx-override '{}': no file '{}'", o, file));
    replace += (replace.empty() ? "" : ";") + o.substr(0, eq + 1) +
               std::filesystem::absolute(file).string();
  }
  ::setenv("CNUAS_DEBUG_CAPTURE", out.c_str(), 1);
  ::setenv("CNUAS_DEBUG_KERNEL", kernel.c_str(), 1);
  if (!replace.empty()) ::setenv("CNUAS_PTX_REPLACE", replace.c_str(), 1);
  std::cout.flush();
  const pid_t child = ::fork();
  if (child < 0) throw InternalError("fork failed");
  if (child == 0) {
    try {
      exec_command(std::vector<std::string>(dash, args.end()));
    } catch (const InputError& e) {
      std::cerr << "cnuas: error: " << e.what() << "\n";
      std::_Exit(2);
    } catch (const std::exception& e) {
      std::cerr << "cnuas: internal error: " << e.what() << "\n";
      std::_Exit(1);
    }
    std::_Exit(1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (!std::filesystem::exists(out))
    throw InputError(
        fmt::format("no capture written: the program (exit status {}) never "
                    "launched kernel '{}' (the runtime's message above says what it "
                    "launched)",
                    code, kernel));
  return code;
}

// The capture, with its PTX replaced by `ptx_file` when one is given.
debugger::Capture load(const std::string& path, const std::string& ptx_file) {
  debugger::Capture c = debugger::read_capture(path);
  if (!ptx_file.empty()) {
    std::ifstream in(ptx_file, std::ios::binary);
    if (!in) throw InputError(fmt::format("cannot open PTX file '{}'", ptx_file));
    std::stringstream text;
    text << in.rdbuf();
    c.ptx = text.str();
    c.ptx_origin = ptx_file;
  }
  return c;
}

std::string positional_capture(const std::string& file, const char* command) {
  if (file.empty()) throw InputError(fmt::format("debug {} needs a capture file", command));
  return file;
}

int replay(const std::vector<std::string>& args) {
  std::string file, mode = "functional", arch = "h100-sxm";
  po::options_description opts("cnuas debug replay CAP [options]");
  opts.add_options()("help,h", "show this help")(
      "gpu-mode", po::value(&mode), "functional (default) or performance (the detailed model)")(
      "gpu-arch", po::value(&arch), "performance-model architecture (default h100-sxm)");
  po::variables_map vm = parse_command_line(args, opts, &file);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  if (mode != "functional" && mode != "performance")
    throw InputError(fmt::format(
        "--gpu-mode '{}' is not accepted here; accepted: functional, performance", mode));
  const debugger::Capture c = load(positional_capture(file, "replay"), "");
  if (!c.has_outputs)
    throw InputError(fmt::format(
        "{}: the captured launch faulted, so there are no outputs to compare with", file));
  auto setup = debugger::prepare_replay(c, file);
  std::ostringstream printf_out;
  ptx::Executor executor(setup->memory, printf_out);
  std::string timing;
  try {
    if (mode == "performance") {
      gpu::PerformanceGpu model("debug_replay", gpu::load_arch(arch), 0);
      const gpu::KernelRun run = model.run(executor, *setup->loaded, c.kernel, setup->config);
      timing = fmt::format(", {} SM cycles on {}", run.cycles, arch);
    } else {
      const ptx::LaunchStats stats = executor.launch(*setup->loaded, c.kernel, setup->config);
      timing = fmt::format(", {} warp instructions", stats.warp_instructions);
    }
  } catch (const ptx::ExecutionError& e) {
    std::cout << printf_out.str();
    std::cout << fmt::format("replay of {} faulted: {}\n", c.kernel, e.what());
    return kDifferentExit;
  }
  std::cout << printf_out.str();
  const std::string difference = debugger::compare_outputs(c, *setup);
  std::uint64_t bytes = 0;
  for (const auto& b : c.buffers) bytes += b.before.size();
  if (!difference.empty()) {
    std::cout << fmt::format("replay of {} ({} mode{}): outputs differ: {}\n", c.kernel, mode,
                             timing, difference);
    return kDifferentExit;
  }
  std::cout << fmt::format(
      "replay of {} ({} mode{}): outputs match ({} buffers, {} bytes; {} variables)\n", c.kernel,
      mode, timing, c.buffers.size(), bytes, c.variables.size());
  return 0;
}

// Runs the capture functionally with the tracer watching; the setup returned
// holds the module the tracer's records point into.
std::unique_ptr<debugger::ReplaySetup> run_traced(const debugger::Capture& c,
                                                  const std::string& path,
                                                  debugger::RegisterTracer& tracer) {
  auto setup = debugger::prepare_replay(c, path);
  setup->config.observer = &tracer;
  std::ostringstream printf_out;
  ptx::Executor executor(setup->memory, printf_out);
  try {
    executor.launch(*setup->loaded, c.kernel, setup->config);
  } catch (const ptx::ExecutionError& e) {
    std::cerr << fmt::format("cnuas: the kernel faulted; the log ends there: {}\n", e.what());
  }
  return setup;
}

int trace(const std::vector<std::string>& args) {
  std::string file, out, threads, ptx_file;
  po::options_description opts("cnuas debug trace CAP --out LOG [options]");
  opts.add_options()("help,h", "show this help")("out,o", po::value(&out),
                                                 "the register-write log to write")(
      "threads", po::value(&threads),
      "only these threads, by global linear index: N, A-B and comma lists (default: all)")(
      "ptx", po::value(&ptx_file), "run this PTX module instead of the captured one");
  po::variables_map vm = parse_command_line(args, opts, &file);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  if (out.empty()) throw InputError("debug trace needs --out LOG");
  const debugger::ThreadFilter filter(threads);
  const debugger::Capture c = load(positional_capture(file, "trace"), ptx_file);
  debugger::RegisterTracer tracer(c.grid, c.block, filter);
  const auto setup = run_traced(c, file, tracer);
  std::ofstream log(out);
  tracer.write(log, c.kernel);
  log.close();
  if (!log) throw InputError(fmt::format("cannot write the log '{}'", out));
  std::cout << fmt::format("{} register writes of {} written to {}\n", tracer.writes(), c.kernel,
                           out);
  return 0;
}

int instrument(const std::vector<std::string>& args) {
  std::string file, out;
  po::options_description opts("cnuas debug instrument CAP --out DIR");
  opts.add_options()("help,h", "show this help")(
      "out,o", po::value(&out),
      "directory for replay.cu, instrumented.ptx and inputs.bin (created)");
  po::variables_map vm = parse_command_line(args, opts, &file);
  if (vm.count("help")) {
    std::cout << opts;
    return 0;
  }
  if (out.empty()) throw InputError("debug instrument needs --out DIR");
  const debugger::Capture c = load(positional_capture(file, "instrument"), "");
  auto setup = debugger::prepare_replay(c, file);  // checks the PTX and the kernel
  const debugger::InstrumentedModule m = debugger::instrument_ptx(c.ptx, *setup->module);
  // The log is sized from the simulator's count, with room for a GPU that
  // writes more (a divergent run): twice that, at least 2^20 records.
  debugger::RegisterTracer all(c.grid, c.block, {});
  run_traced(c, file, all);
  const std::uint64_t writes = all.writes();
  const std::uint64_t capacity = std::max<std::uint64_t>(2 * writes, 1u << 20);
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) throw InputError(fmt::format("cannot create directory '{}': {}", out, ec.message()));
  const auto write = [&](const char* name, const std::string& text) {
    std::ofstream f(std::filesystem::path(out) / name, std::ios::binary);
    f << text;
    f.close();
    if (!f) throw InputError(fmt::format("cannot write '{}/{}'", out, name));
  };
  write("instrumented.ptx", m.ptx);
  write("replay.cu", debugger::replay_program(c, m.sites, capacity));
  debugger::write_program_inputs(c, (std::filesystem::path(out) / "inputs.bin").string());
  std::cout << fmt::format(
      "{}: {} logged register writes in the PTX; build with\n"
      "  nvcc -o {}/replay {}/replay.cu -L/usr/local/cuda/lib64/stubs -lcuda\n"
      "and run `{}/replay {} gpu.log` on a GPU, then `cnuas debug diff gpu.log SIM.log`\n",
      out, m.sites.size(), out, out, out, out);
  return 0;
}

int diff(const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << "cnuas debug diff LOG_A LOG_B\n";
    return 0;
  }
  if (args.size() != 2) throw InputError("debug diff needs two logs: cnuas debug diff LOG_A LOG_B");
  const debugger::DiffSummary s = debugger::diff_logs(args[0], args[1], std::cout);
  return s.diverging || s.only_one ? kDifferentExit : 0;
}

}  // namespace

int debug_command(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  const std::string& sub = args[0];
  if (sub == "capture") return capture(tail(args));
  if (sub == "replay") return replay(tail(args));
  if (sub == "trace") return trace(tail(args));
  if (sub == "instrument") return instrument(tail(args));
  if (sub == "diff") return diff(tail(args));
  throw InputError(fmt::format(
      "unknown debug subcommand '{}'; accepted: capture, replay, trace, instrument, diff", sub));
}

}  // namespace cnuas::cli
