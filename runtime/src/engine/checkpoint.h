// Checkpoint and resume at a kernel boundary (cnuas exec --checkpoint /
// --resume, docs/user-guide.md "Checkpoint and resume").
//
// Recording: every host kernel launch before the chosen one is executed and
// recorded with what it started from (its configuration and parameters, a
// hash of all device memory) and what it did (the memory pieces it changed,
// its printf output, the work the timeline charged it); at the chosen launch
// the whole device memory and the allocation table are written and the run
// goes on. Resuming: the program runs again; each launch before the chosen
// one is checked against its record and skipped, its recorded outcome applied
// (memory, printf, work), so that host code between kernels sees what it saw
// before, in the same simulated time; at the chosen launch the memory image
// is restored and the run continues, in whatever GPU mode it was given.
//
// Streams, events, modules and textures are the program's own: it creates
// them again as it runs, and a launch whose kernel, module, configuration,
// parameters or memory differ from the record is refused (exit 2).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/kernel/work.h"
#include "engine/checkpoint_file.h"
#include "ptx/executor.h"
#include "ptx/memory.h"

namespace cnuas {
struct ProgramSettings;
}

namespace cnuas::cuda {

struct Command;

// One entry of the allocation table written with the memory image.
struct CheckpointAllocation {
  std::uint64_t base = 0, bytes = 0;
  std::uint32_t device = 0, kind = 0;
};

class Checkpoints {
 public:
  using Key = std::pair<std::uint64_t, std::uint64_t>;  // a 128-bit hash

  // Null when the settings ask for neither; throws InputError for a
  // checkpoint that cannot be read.
  static std::unique_ptr<Checkpoints> from_settings(const ProgramSettings& s,
                                                    ptx::DeviceMemory& memory,
                                                    std::ostringstream& printf_out);
  ~Checkpoints();

  // Before a host kernel launch executes. True when it is skipped: its
  // recorded outcome is applied to memory and its work put in c.
  // For a checkpoint inside the launch (KERNEL:CTA) it sets the config's
  // grid_checkpoint (recording) or grid_resume (resuming).
  bool before_launch(const ptx::LoadedModule& module, const std::string& kernel, int device,
                     ptx::LaunchConfig& config, Command& c);
  // After a launch before_launch did not skip ran without a fault.
  void after_launch(Command& c);
  // At exit: a run that never reached the checkpoint's launch is an error.
  void finish();
  // The allocation table written with the memory image (set by the runtime).
  std::function<std::vector<CheckpointAllocation>()> allocations;

 private:
  struct Piece {
    std::uint64_t device;
    std::uint8_t* host;
    std::uint64_t bytes;
    bool touched;
    Key hash;
  };
  struct Snapshot {
    std::vector<Piece> pieces;
    Key state{};
  };
  // A launch as the file records it; its pieces' bytes are read when it comes.
  struct Record {
    std::string kernel;
    std::uint32_t device = 0;
    Key signature{}, state{};
  };
  // The CTAS record: where inside its launch the checkpoint stands.
  struct Inside {
    bool present = false;  // false: at the launch's start (a kernel boundary)
    std::uint64_t cta = 0;
    ptx::GridSnapshot grid;
    std::string printed;  // the launch's device printf output before the checkpoint
  };
  enum class Mode { Record, Resume };

  Checkpoints(Mode mode, ptx::DeviceMemory& memory, std::ostringstream& printf_out);
  Snapshot snapshot() const;
  bool is_target(const std::string& kernel);
  std::string target_text() const;
  // `index`: the launch's, which is also the number of launches before it.
  void write_checkpoint(const Record& at, std::uint64_t index, const Snapshot& memory,
                        const Command& c, const Inside& inside);
  void check_inside(const ptx::LoadedModule& module, const std::string& kernel,
                    const ptx::LaunchConfig& config);
  Inside read_inside(CheckpointReader& r) const;
  void index_file();  // resume: reads the whole file once, keeping the records
  Snapshot memory_as_recorded(const Record& now, const Key& recorded) const;
  bool skip(const Record& now, Command& c);
  void restore(const Record& now, const Command& c);
  [[noreturn]] void refuse(const std::string& why) const;

  Mode mode_;
  ptx::DeviceMemory& memory_;
  std::ostringstream& printf_;
  std::string dir_, file_;
  std::uint64_t launches_ = 0;  // host launches so far
  // Recording: where to stop, and the file written as the launches run.
  std::optional<std::uint64_t> target_index_;
  std::string target_name_;
  std::uint64_t target_occurrence_ = 0, occurrences_ = 0;
  std::unique_ptr<CheckpointWriter> writer_;
  bool stop_ = false;              // end the program once the checkpoint is written
  std::optional<Record> pending_;  // a launch executing, and its memory before
  Snapshot pending_before_;
  std::size_t pending_printf_ = 0;
  bool written_ = false, faulted_ = false;
  // Recording inside a launch (KERNEL:CTA): the CTA, the request the executor
  // answers, and whether the target launch runs without having answered yet.
  std::optional<std::uint64_t> target_cta_;
  ptx::GridCheckpointRequest grid_request_;
  bool grid_pending_ = false;
  // Resuming: the records, the launch to resume at, and the file read again
  // record by record as the launches come.
  std::vector<Record> records_;
  Record target_;
  std::uint64_t target_submit_ps_ = 0;
  Inside target_inside_;
  std::unique_ptr<CheckpointReader> reader_;
  bool resumed_ = false;
};

}  // namespace cnuas::cuda
