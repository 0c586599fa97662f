// Shared option parsing for the subcommands.
#pragma once

#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace cnuas::cli {

// Parses `args` against `visible`, with at most one positional argument stored
// in `positional` (when given). Unknown options throw (exit code 2).
boost::program_options::variables_map parse_command_line(
    const std::vector<std::string>& args,
    const boost::program_options::options_description& visible, std::string* positional = nullptr);

void load_plugins(const std::vector<std::string>& plugins);

}  // namespace cnuas::cli
