#include "run/program_settings.h"

#include <cstdlib>

#include <fmt/format.h>

#include "core/inputs/units.h"

namespace cnuas {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t next = text.find(sep, at);
    if (next == std::string::npos) next = text.size();
    if (next > at) out.push_back(text.substr(at, next - at));
    at = next + 1;
  }
  return out;
}

}  // namespace

ProgramSettings program_settings_from_environment() {
  ProgramSettings s;
  RunOptions& run = s.run;
  run.program_driven = true;
  run.platform_file = env("CNUAS_PLATFORM");
  run.trace_path = env("CNUAS_TRACE");
  run.stats_path = env("CNUAS_STATS");
  run.perfetto_path = env("CNUAS_PERFETTO");
  run.vcd_path = env("CNUAS_VCD");
  run.csv_path = env("CNUAS_CSV");
  s.metadata_path = env("CNUAS_METADATA");
  // cnuas exec's own command line, its words separated by the unit separator.
  for (std::string rest = env("CNUAS_COMMAND_LINE"); !rest.empty();) {
    const std::size_t cut = rest.find('\x1f');
    s.command_line.push_back(rest.substr(0, cut));
    rest = cut == std::string::npos ? "" : rest.substr(cut + 1);
  }
  run.sets = split(env("CNUAS_SET"), ';');
  for (const FieldOption& o : kFieldOptions)
    if (const std::string value = env(o.variable); !value.empty())
      run.field_overrides.push_back(
          {o.field, value, fmt::format("{} (cnuas exec --{})", o.variable, o.option)});
  if (const std::string log = env("CNUAS_LOG"); !log.empty()) {
    const std::optional<LogLevel> level = parse_log_level(log);
    if (!level)
      throw InputError(
          fmt::format("CNUAS_LOG='{}' is not one of quiet, warning, info, debug", log));
    run.log_level = *level;
  }
  s.gpu_stats_path = env("CNUAS_GPU_STATS");
  s.summary = env("CNUAS_SUMMARY") == "1";
  s.gpu_report_dir = env("CNUAS_GPU_REPORT");
  if (const std::string strict = env("CNUAS_STRICT_MEMORY"); !strict.empty()) {
    if (strict != "0" && strict != "1")
      throw InputError(fmt::format("CNUAS_STRICT_MEMORY='{}' is not 0 or 1", strict));
    s.strict_memory = strict == "1";
  }
  if (const std::string replay = env("CNUAS_LAUNCH_REPLAY"); !replay.empty()) {
    if (replay != "0" && replay != "1")
      throw InputError(fmt::format("CNUAS_LAUNCH_REPLAY='{}' is not 0 or 1", replay));
    s.launch_replay = replay == "1";
  }
  if (const std::string limit = env("CNUAS_KERNEL_LIMIT"); !limit.empty()) {
    const bool digits =
        limit.size() <= 19 && limit.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoull(limit) == 0)
      throw InputError(fmt::format(
          "CNUAS_KERNEL_LIMIT='{}' is not a whole number of warp instructions from 1 to "
          "9999999999999999999",
          limit.substr(0, 40)));
    s.kernel_limit = std::stoull(limit);
  }
  if (const std::string limit = env("CNUAS_HOST_MEMORY_LIMIT"); !limit.empty()) {
    Rational bits;
    try {
      bits = parse_quantity(limit, Dimension::Data).value;
    } catch (const UnitError& e) {
      throw InputError(
          fmt::format("CNUAS_HOST_MEMORY_LIMIT='{}': {}", limit.substr(0, 40), e.message));
    }
    const Rational bytes = bits / Rational(8);
    if (bytes < Rational(1) || Rational(std::uint64_t{1} << 62) < bytes)
      throw InputError(fmt::format(
          "CNUAS_HOST_MEMORY_LIMIT='{}' is not an amount of memory from 1 B to 4 EiB (e.g. 64 GiB)",
          limit.substr(0, 40)));
    s.host_memory_limit = bytes.ceil_u64();
  }
  s.faults_path = env("CNUAS_FAULTS");
  if (!s.faults_path.empty()) {
    try {
      s.faults = load_gpu_faults(s.faults_path);
    } catch (const InputError& e) {
      throw InputError(fmt::format("CNUAS_FAULTS (cnuas exec --faults): {}", e.what()));
    }
  }
  s.checkpoint_dir = env("CNUAS_CHECKPOINT");
  s.resume_dir = env("CNUAS_RESUME");
  const std::string at = env("CNUAS_CHECKPOINT_AT");
  if (!s.checkpoint_dir.empty() && !s.resume_dir.empty())
    throw InputError(
        "CNUAS_CHECKPOINT and CNUAS_RESUME are both set: a run either writes a checkpoint "
        "(cnuas exec --checkpoint) or resumes from one (--resume)");
  if (!s.checkpoint_dir.empty() && at.empty())
    throw InputError(
        "CNUAS_CHECKPOINT (cnuas exec --checkpoint) needs CNUAS_CHECKPOINT_AT "
        "(--checkpoint-at KERNEL[:CTA]): the launch to write it at");
  if (s.checkpoint_dir.empty() && !at.empty())
    throw InputError(
        "CNUAS_CHECKPOINT_AT (cnuas exec --checkpoint-at) needs CNUAS_CHECKPOINT "
        "(--checkpoint DIR): the directory to write into");
  if (const std::string stop = env("CNUAS_CHECKPOINT_STOP"); !stop.empty()) {
    if (stop != "0" && stop != "1")
      throw InputError(fmt::format("CNUAS_CHECKPOINT_STOP='{}' is not 0 or 1", stop.substr(0, 40)));
    s.checkpoint_stop = stop == "1";
    if (s.checkpoint_stop && s.checkpoint_dir.empty())
      throw InputError(
          "CNUAS_CHECKPOINT_STOP (cnuas exec --checkpoint-stop) needs CNUAS_CHECKPOINT "
          "(--checkpoint DIR)");
  }
  if (!at.empty())
    s.checkpoint_at = parse_checkpoint_target(at, "CNUAS_CHECKPOINT_AT (--checkpoint-at)");
  return s;
}

CheckpointTarget parse_checkpoint_target(const std::string& text, const std::string& what) {
  const auto number = [&](const std::string& digits, const char* part) {
    if (digits.empty() || digits.size() > 18 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      throw InputError(fmt::format(
          "{} '{}': {} '{}' is not a whole number; accepted: INDEX, NAME, NAME#N, each with an "
          "optional :CTA (e.g. 3, sgemm#2, _Z4stepPfi:0)",
          what, text.substr(0, 80), part, digits.substr(0, 40)));
    return std::stoull(digits);
  };
  CheckpointTarget t;
  std::string kernel = text;
  if (const std::size_t colon = text.rfind(':');
      colon != std::string::npos && colon + 1 < text.size() &&
      text.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
    t.cta = number(text.substr(colon + 1), "the CTA");
    kernel = text.substr(0, colon);
  }
  if (kernel.empty())
    throw InputError(fmt::format("{} '{}' names no launch; accepted: INDEX, NAME or NAME#N", what,
                                 text.substr(0, 80)));
  if (kernel.find_first_not_of("0123456789") == std::string::npos) {
    t.index = number(kernel, "the launch index");
    return t;
  }
  if (const std::size_t hash = kernel.rfind('#'); hash != std::string::npos) {
    t.occurrence = number(kernel.substr(hash + 1), "the occurrence");
    if (t.occurrence == 0)
      throw InputError(fmt::format("{} '{}': occurrences count from 1 (NAME#1 is the first launch)",
                                   what, text.substr(0, 80)));
    kernel = kernel.substr(0, hash);
  }
  t.kernel = kernel;
  return t;
}

}  // namespace cnuas
