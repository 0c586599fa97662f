// cnuas: the command-line entry point.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <boost/program_options/errors.hpp>
#include <systemc>

#include "commands.h"
#include "core/inputs/rational.h"
#include "core/kernel/errors.h"
#include "run/version.h"

namespace {

const char* kUsage =
    "usage: cnuas <command> [options]\n"
    "\n"
    "commands:\n"
    "  run [PLATFORM]       simulate a platform (the embedded default when none is given)\n"
    "  validate PLATFORM    check a platform and its workload without running\n"
    "  validate --profile F check one profile file\n"
    "  list-models          list the element types that can be placed in a platform\n"
    "  describe TYPE        print the fields of an element type\n"
    "  calibrate fit|validate  fit an affine calibration, score it on held-out data\n"
    "  ptx check FILE.ptx   parse PTX and list what the engine cannot run\n"
    "  exec -- PROGRAM ...  run a CUDA program (nvcc -cudart shared) on the simulated platform\n"
    "  compare RUN_A RUN_B  what changed between two runs (--out directories or stats.json)\n"
    "  debug capture|replay|trace|instrument|diff  the kernel debugger (a launch captured,\n"
    "                       replayed alone, its register writes traced and compared)\n"
    "  sweep PLATFORM --vary ELEMENT.FIELD=V1,V2,...  run every combination, one CSV row each\n"
    "  completion bash      print a bash completion script\n"
    "  version              print the cnuas version (also --version)\n"
    "\n"
    "`cnuas <command> --help` shows the options of each command.\n"
    "Exit status: 0 success, 2 bad input, 1 internal error.\n";

int dispatch(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version" || args[0] == "version") {
    std::cout << fmt::format("cnuas {} ({})\n", cnuas::version(), cnuas::git_describe());
    return 0;
  }
  const std::string& command = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (command == "run") return cnuas::cli::run_command(rest);
  if (command == "validate") return cnuas::cli::validate_command(rest);
  if (command == "list-models") return cnuas::cli::list_models_command(rest);
  if (command == "describe") return cnuas::cli::describe_command(rest);
  if (command == "calibrate") return cnuas::cli::calibrate_command(rest);
  if (command == "ptx") return cnuas::cli::ptx_command(rest);
  if (command == "exec") return cnuas::cli::exec_command(rest);
  if (command == "compare") return cnuas::cli::compare_command(rest);
  if (command == "sweep") return cnuas::cli::sweep_command(rest);
  if (command == "debug") return cnuas::cli::debug_command(rest);
  if (command == "completion") return cnuas::cli::completion_command(rest);
  throw cnuas::InputError("unknown command '" + command +
                          "'; commands: run, validate, list-models, describe, calibrate, ptx, "
                          "exec, compare, sweep, debug, completion, version");
}

}  // namespace

// libsystemc prints its banner before sc_main unless this is set; the library
// constructor runs before SystemC's static initialisation reaches the banner.
__attribute__((constructor)) static void quiet_systemc_banner() {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
}

int sc_main(int argc, char* argv[]) {
  // Infos such as the VCD timescale note would drown the run summary.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    return dispatch(args);
  } catch (const cnuas::InputError& e) {
    std::cerr << "cnuas: error: " << e.what() << "\n";
    return 2;
  } catch (const boost::program_options::error& e) {
    std::cerr << "cnuas: error: " << e.what() << " (see --help)\n";
    return 2;
  } catch (const cnuas::OverflowError& e) {
    std::cerr << "cnuas: error: " << e.what() << "\n";
    return 2;
  } catch (const sc_core::sc_report& e) {
    std::cerr << "cnuas: internal error (SystemC): " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "cnuas: internal error: " << e.what() << "\n";
    return 1;
  }
}
