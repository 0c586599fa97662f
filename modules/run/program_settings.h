// The settings of a program-driven run (a CUDA program on the simulated
// platform), read from the CNUAS_* environment variables in one place: the
// CUDA runtime boots with them and `cnuas exec`, which turns its options into
// these variables (replacing any of the same name), checks them with the same
// reader before it starts the program. docs/user-guide.md, "Where a value
// comes from", gives the order in which they apply.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "run/gpu_faults.h"
#include "run/simulation.h"

namespace cnuas {

// A run-wide option that sets one field on every element declaring it, after
// the platform's values and the --set overrides.
struct FieldOption {
  const char* variable;  // CNUAS_GPU_MODE
  const char* option;    // the cnuas exec option, gpu-mode
  const char* field;     // mode
};
inline constexpr FieldOption kFieldOptions[] = {
    {"CNUAS_GPU_MODE", "gpu-mode", "mode"},
    {"CNUAS_GPU_KERNEL_MODES", "gpu-kernel-modes", "kernel_modes"},
    {"CNUAS_GPU_ARCH", "gpu-arch", "architecture"},
    {"CNUAS_GPU_SAMPLE", "gpu-sample", "sample_cycles"},
    {"CNUAS_GPU_COMPUTE_CAPABILITY", "gpu-compute-capability", "compute_capability"},
};

// Where --checkpoint-at stops: a launch index, or a kernel and its occurrence.
struct CheckpointTarget {
  std::optional<std::uint64_t> index;
  std::string kernel;
  std::uint64_t occurrence = 1;
  std::optional<std::uint64_t> cta;  // KERNEL:CTA
};

struct ProgramSettings {
  RunOptions
      run;  // program-driven; CNUAS_PLATFORM, _TRACE, _STATS, _PERFETTO, _VCD, _SET, _LOG, fields
  std::string gpu_stats_path;  // CNUAS_GPU_STATS
  std::string gpu_report_dir;  // CNUAS_GPU_REPORT
  // CNUAS_METADATA: where the run's metadata (run/run_metadata.h) goes at
  // exit, with CNUAS_COMMAND_LINE, the command that started the program.
  std::string metadata_path;
  std::vector<std::string> command_line;
  // CNUAS_SUMMARY=1 (set by cnuas exec): the run's summary on stderr at exit
  // unless the level is quiet; without it only --log info prints it.
  bool summary = false;
  bool strict_memory = false;  // CNUAS_STRICT_MEMORY=1: no access past an allocation's end
  // CNUAS_LAUNCH_REPLAY=0: execute every launch, even one identical to an
  // earlier one (ptx/src/launch_replay.h); the results are the same.
  bool launch_replay = true;
  // CNUAS_KERNEL_LIMIT: warp instructions one kernel launch may issue before
  // it faults as a kernel that never ends (0: the engine's default, 2^40).
  std::uint64_t kernel_limit = 0;
  // CNUAS_HOST_MEMORY_LIMIT: host bytes device memory may commit as it is
  // first touched (0: the engine's default, 90 % of MemAvailable).
  std::uint64_t host_memory_limit = 0;
  // CNUAS_FAULTS: the GPU faults file (run/gpu_faults.h) and what it holds.
  std::string faults_path;
  std::vector<GpuFault> faults;
  // CNUAS_CHECKPOINT and CNUAS_CHECKPOINT_AT: write a checkpoint into this
  // directory at this host kernel launch (runtime/src/engine/checkpoint.h).
  std::string checkpoint_dir;
  CheckpointTarget checkpoint_at;
  // CNUAS_CHECKPOINT_STOP=1: the program ends (exit status 0, no outputs)
  // once the checkpoint is written, instead of running on.
  bool checkpoint_stop = false;
  // CNUAS_RESUME: the checkpoint directory a run resumes from.
  std::string resume_dir;
};

// Parses KERNEL[:CTA] of --checkpoint-at: a launch index (0: the first host
// kernel launch) or NAME[#N] (the Nth launch, from 1, of the kernel with this
// mangled or demangled name); `what` names the option in errors.
CheckpointTarget parse_checkpoint_target(const std::string& text, const std::string& what);

// Throws InputError naming the variable for a value it does not accept.
ProgramSettings program_settings_from_environment();

}  // namespace cnuas
