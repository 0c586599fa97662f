#include <filesystem>
#include <iostream>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "command_line.h"
#include "commands.h"
#include "run/run_metadata.h"
#include "run/simulation.h"

namespace po = boost::program_options;

namespace cnuas::cli {

int run_command(const std::vector<std::string>& args) {
  RunOptions options;
  std::string out_dir, log_level, metadata;
  po::options_description opts("cnuas run [PLATFORM] [options]");
  opts.add_options()("help,h", "show this help")("workload,w", po::value(&options.workload_file),
                                                 "workload YAML (default: the platform's own)")(
      "trace", po::value(&options.trace_path), "write the ordered stage trace as JSON Lines")(
      "perfetto", po::value(&options.perfetto_path), "write a Perfetto/Chrome JSON trace")(
      "vcd", po::value(&options.vcd_path), "write VCD waveforms (lane busy, queue depth)")(
      "stats", po::value(&options.stats_path), "write statistics as JSON")(
      "metadata", po::value(&metadata),
      "write the run's metadata as JSON: command line, version, input files with SHA-256, "
      "resolved fields with their sources, the trace's header")(
      "csv", po::value(&options.csv_path),
      "write statistics as one flat CSV table (a row per element, operation group, collective)")(
      "out,o", po::value(&out_dir),
      "write trace.jsonl, trace.perfetto.json, waves.vcd, stats.json, stats.csv and "
      "metadata.json (command line, version, inputs, resolved platform) to DIR")(
      "set", po::value(&options.sets)->composing(),
      "override a field: ELEMENT.FIELD=VALUE (repeatable)")(
      "plugin", po::value(&options.plugins)->composing(),
      "load a model plugin LIB.so (repeatable)")(
      "log", po::value(&log_level)->default_value("warning"),
      "messages from elements: quiet, warning, info or debug (an element's `log` field overrides "
      "it)")("no-lookahead",
             "wake SystemC at every ready time instead of booking ahead (same results, slower)")(
      "calibration", po::value(&options.calibrations)->composing(),
      "apply a validated calibration FILE.yaml: matching elements report calibrated predictions "
      "(repeatable)");
  po::variables_map vm = parse_command_line(args, opts, &options.platform_file);
  options.lookahead = vm.count("no-lookahead") == 0;
  if (const auto level = parse_log_level(log_level))
    options.log_level = *level;
  else
    throw InputError("--log '" + log_level +
                     "' is not a level; accepted: quiet, warning, info, debug");
  if (vm.count("help")) {
    std::cout << opts
              << "\nWith no PLATFORM the embedded default platform runs and writes its outputs to "
                 "cnuas-out/ unless output options are given.\n";
    return 0;
  }
  const bool any_output = !options.trace_path.empty() || !options.perfetto_path.empty() ||
                          !options.vcd_path.empty() || !options.stats_path.empty() ||
                          !options.csv_path.empty() || !metadata.empty();
  if (out_dir.empty() && options.platform_file.empty() && !any_output) out_dir = "cnuas-out";
  if (!out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec) throw InputError("cannot create output directory '" + out_dir + "': " + ec.message());
    auto fill = [&](std::string& path, const char* file) {
      // "out/" and "out" both give out/trace.jsonl.
      if (path.empty()) path = (std::filesystem::path(out_dir) / file).lexically_normal().string();
    };
    fill(options.trace_path, "trace.jsonl");
    fill(options.perfetto_path, "trace.perfetto.json");
    fill(options.vcd_path, "waves.vcd");
    fill(options.stats_path, "stats.json");
    fill(options.csv_path, "stats.csv");
  }
  Simulation simulation(options);
  simulation.run();
  std::cout << simulation.summary();
  if (metadata.empty() && !out_dir.empty())
    metadata = (std::filesystem::path(out_dir) / "metadata.json").lexically_normal().string();
  if (!metadata.empty()) {
    std::vector<std::string> command_line = {"cnuas", "run"};
    command_line.insert(command_line.end(), args.begin(), args.end());
    write_run_metadata_file(metadata, command_line, simulation);
    std::cout << fmt::format("  {:<9} {}\n", "metadata:", metadata);
  }
  return 0;
}

}  // namespace cnuas::cli
