// The metadata of one run, written next to its outputs (`--out DIR` writes
// DIR/metadata.json): how it was asked for (command line, cnuas version), what
// it read (input files with their SHA-256) and the resolved platform with
// where every field's value came from (a profile or platform file:line:col,
// `--set ...`, or `default`). Two runs with equal metadata ran the same inputs.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "run/simulation.h"

namespace cnuas {

// Writes the metadata of `simulation` (loaded, run or not) to `out` as JSON.
// `command_line` is the command as the user gave it, program name first.
// Deterministic: no time stamps, no host names.
void write_run_metadata(std::ostream& out, const std::vector<std::string>& command_line,
                        const Simulation& simulation);

// The same into the file `path`; an InputError when it cannot be written.
void write_run_metadata_file(const std::string& path, const std::vector<std::string>& command_line,
                             const Simulation& simulation);

}  // namespace cnuas
