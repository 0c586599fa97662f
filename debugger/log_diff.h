// `cnuas debug diff`: two register-write logs compared thread by thread.
#pragma once

#include <ostream>
#include <string>

namespace cnuas::debugger {

struct DiffSummary {
  std::uint64_t compared = 0;   // threads in both logs
  std::uint64_t diverging = 0;  // threads whose writes differ
  std::uint64_t only_one = 0;   // threads in one log only
};

// Prints each diverging thread's first differing write (PTX line, instruction,
// register, both values) and a summary line. Throws InputError naming
// file:line for a line that is no log line.
DiffSummary diff_logs(const std::string& path_a, const std::string& path_b, std::ostream& out);

}  // namespace cnuas::debugger
