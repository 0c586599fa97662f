// The `cnuas` subcommands. Each returns the process exit code and throws
// InputError (exit 2) for bad input; anything else thrown (InternalError, a
// model's own exception) is an internal error (exit 1).
#pragma once

#include <string>
#include <vector>

namespace cnuas::cli {

int run_command(const std::vector<std::string>& args);
int validate_command(const std::vector<std::string>& args);
int list_models_command(const std::vector<std::string>& args);
int describe_command(const std::vector<std::string>& args);
int calibrate_command(const std::vector<std::string>& args);
int ptx_command(const std::vector<std::string>& args);
int exec_command(const std::vector<std::string>& args);
int compare_command(const std::vector<std::string>& args);
int sweep_command(const std::vector<std::string>& args);
int debug_command(const std::vector<std::string>& args);
int completion_command(const std::vector<std::string>& args);

}  // namespace cnuas::cli
